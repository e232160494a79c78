import { describe, expect, it } from 'vitest';
import { createMemoryStore } from '../../adapters/store/memory-store.js';
import { note, sampleJob, SHARED_PLACEMENT } from '../../adapters/store/store-fixtures.js';
import type { JobChange, NewJob, StateStore } from '../ports/state-store.js';
import { HISTORY_PAGE_JOBS, historyExport } from './history-export.js';

const T0 = 1_712_345_678_000;
const ADMIN = { role: 'admin', tenant: null } as const;

/** A store with tenants team-a and team-b. */
function store(): StateStore {
  const s = createMemoryStore();
  s.createTenant('team-a', T0);
  s.createTenant('team-b', T0);
  return s;
}

/** Inserts a job submitted at `at` whose attempts run for the [start, end] pairs given (the last one ends it). */
function ran(s: StateStore, at: number, attempts: [number, number][], job: Partial<NewJob> = {}): number {
  const { id } = s.insertJob(sampleJob(job.tenant ?? 'team-a', { name: 'train', ...job }), at);
  attempts.forEach(([start, end], i) => {
    const last = i === attempts.length - 1;
    const changes: JobChange[] = [
      { jobId: id, atMs: start, to: 'scheduled', patch: { placement: SHARED_PLACEMENT } },
      { jobId: id, atMs: start, to: 'running', startAttempt: i + 1, patch: { attempt: i + 1, startedAtMs: start } },
      {
        jobId: id,
        atMs: end,
        to: last ? 'succeeded' : 'preempted',
        endAttempt: { attempt: i + 1, exitCode: 0, signal: null, endReason: note(last ? 'exited' : 'preempted') },
        patch: last ? { endedAtMs: end } : {},
      },
    ];
    s.applyJobChanges(changes);
  });
  return id;
}

const text = (chunks: Iterable<string>): string => [...chunks].join('');
const rows = (chunks: Iterable<string>): string[] => text(chunks).trimEnd().split('\n').slice(1);

describe('history export', () => {
  it('has one row per job that ran and ended, its run time summed over its attempts, peaks where measured', () => {
    const s = store();
    const preempted = ran(s, T0, [
      [T0 + 1_500, T0 + 61_500],
      [T0 + 100_000, T0 + 130_250],
    ]);
    const measured = ran(s, T0 + 2_000, [[T0 + 2_125, T0 + 12_125]], {
      name: 'eval, "quick"',
      tenant: 'team-b',
      priority: 900,
      gpu: {
        gpuCount: 2,
        gpuMilli: 1000,
        gpuMemoryMiB: 40960,
        mode: 'exclusive',
        allowedGpuModels: ['A100-80GB', 'H100'],
      },
    });
    s.raiseUsagePeaks([{ jobId: measured, gpuMemoryMiB: 30_123, gpuUtilizationPct: 87.25 }], T0 + 5_000);
    // Not in it: a job that never started, one that runs, one waiting again after a preemption.
    const never = s.insertJob(sampleJob('team-a'), T0 + 3_000).id;
    s.applyJobChanges([{ jobId: never, atMs: T0 + 3_500, to: 'cancelled' }]);
    const running = s.insertJob(sampleJob('team-a'), T0 + 4_000).id;
    s.applyJobChanges([
      { jobId: running, atMs: T0 + 4_100, to: 'scheduled', patch: { placement: SHARED_PLACEMENT } },
      { jobId: running, atMs: T0 + 4_100, to: 'running', startAttempt: 1, patch: { attempt: 1 } },
    ]);
    expect(rows(historyExport(s, ADMIN, {}))).toEqual([
      // 60 s + 30.25 s of run time from the first start
      `train-${preempted},4000,16384,1,500,,,1712345678,1712345679.5,1712345769.75,team-a,500,timeslice,0,,`,
      `eval___quick_-${measured},4000,16384,2,1000,A100-80GB|H100,,1712345680,1712345680.125,1712345690.125,` +
        'team-b,900,timeslice,40960,30123,87.25',
    ]);
  });

  it("gives a tenant's tokens their tenant's jobs, filters by submit time [since, until), refuses a job token", () => {
    const s = store();
    const a1 = ran(s, T0, [[T0 + 1, T0 + 2]]);
    ran(s, T0 + 10, [[T0 + 11, T0 + 12]], { tenant: 'team-b' });
    const a2 = ran(s, T0 + 20, [[T0 + 21, T0 + 22]]);
    const a3 = ran(s, T0 + 30, [[T0 + 31, T0 + 32]]);
    const names = (chunks: Iterable<string>) => rows(chunks).map((r) => r.split(',')[0]);
    const viewer = { role: 'viewer', tenant: 'team-a', tokenId: 5 } as const;
    expect(names(historyExport(s, viewer, {}))).toEqual([`train-${a1}`, `train-${a2}`, `train-${a3}`]);
    expect(names(historyExport(s, viewer, { sinceMs: T0 + 10, untilMs: T0 + 30 }))).toEqual([`train-${a2}`]);
    expect(names(historyExport(s, ADMIN, { sinceMs: T0 + 31 }))).toEqual([]);
    expect(text(historyExport(s, ADMIN, { sinceMs: T0 + 31 }))).toBe(
      'name,cpu_milli,memory_mib,num_gpu,gpu_milli,gpu_spec,qos,creation_time,scheduled_time,deletion_time,' +
        'tenant,priority,sharing_mode,gpu_memory_mib,measured_gpu_memory_mib,measured_gpu_util_pct\n',
    );
    expect(() => historyExport(s, { role: 'job', tenant: 'team-a', jobId: a1 }, {})).toThrow(
      `a job token (GPUSHARE_JOB_TOKEN) may only report for its own job ${a1}`,
    );
  });

  it('reads the store a page at a time, every job once', () => {
    const s = store();
    const ids = Array.from({ length: HISTORY_PAGE_JOBS + 2 }, (_, i) => ran(s, T0 + i, [[T0 + i, T0 + i + 1]]));
    let reads = 0;
    const list = s.listJobs.bind(s);
    s.listJobs = (filter) => {
      reads++;
      return list(filter);
    };
    const chunks = [...historyExport(s, ADMIN, {})];
    expect(reads).toBe(2);
    expect(chunks).toHaveLength(3);
    expect(rows(chunks).map((r) => r.split(',')[0])).toEqual(ids.map((id) => `train-${id}`));
  });
});
