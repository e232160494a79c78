import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { schedule, type PassRulesOptions } from '../schedule.js';
import { SeededRng } from '../random/rng.js';
import type { ActiveJob, ClusterSnapshot } from '../model/cluster.js';
import type { GpuDevice } from '../model/gpu-device.js';
import type { JobRequest, SharingMode } from '../model/request.js';
import { QueueIndex } from '../queue/queue-index.js';
import { createQueueComparator, DEFAULT_AGING, type QueueOrderContext } from '../queue/queue-order.js';
import { waitOf } from '../testing/plan-waits.js';
import { unvisitedWait } from './unvisited-waits.js';

const MODELS = [
  { model: 'A100-80GB', gpuMemoryMiB: 81920 },
  { model: 'A10', gpuMemoryMiB: 24576 },
] as const;
const NOW = 10 * 3_600_000;

const gpusArb: fc.Arbitrary<GpuDevice[]> = fc
  .array(fc.constantFrom(0, 0, 1), { minLength: 1, maxLength: 4 })
  .map((models) =>
    models.map((m, index) => ({ index, uuid: `GPU-${index}`, ...MODELS[m]!, migEnabled: false, schedulable: true })),
  );

const jobArb = (id: number): fc.Arbitrary<JobRequest> =>
  fc
    .record({
      tenant: fc.constantFrom('a', 'b', 'c'),
      priority: fc.constantFrom(100, 500, 500, 900),
      waitedMs: fc.integer({ min: 0, max: 4 * 3_600_000 }),
      gpuCount: fc.constantFrom(1, 1, 1, 2),
      gpuMilli: fc.constantFrom(100, 250, 500, 1000),
      gpuMemoryMiB: fc.constantFrom(null, 4096, 20480, 40960),
      mode: fc.constantFrom<SharingMode>('auto', 'mps', 'timeslice', 'exclusive'),
      timeLimitSeconds: fc.option(fc.constantFrom(60, 600, 7200), { freq: 3 }),
      onlyA100: fc.boolean(),
    })
    .map((r) => ({
      id,
      tenant: r.tenant,
      priority: r.priority,
      submittedAtMs: NOW - r.waitedMs,
      cpuMilli: 0,
      hostMemoryMiB: 0,
      gpu: {
        gpuCount: r.gpuCount,
        gpuMilli: r.mode === 'exclusive' ? 1000 : r.gpuMilli,
        gpuMemoryMiB: r.gpuMemoryMiB,
        mode: r.mode,
        ...(r.onlyA100 ? { allowedGpuModels: ['A100-80GB'] } : {}),
      },
      timeLimitSeconds: r.timeLimitSeconds,
    }));

const jobsArb = (first: number, max: number): fc.Arbitrary<JobRequest[]> =>
  fc
    .integer({ min: 0, max })
    .chain((n) => (n === 0 ? fc.constant([]) : fc.tuple(...Array.from({ length: n }, (_, i) => jobArb(first + i)))));

const rulesArb: fc.Arbitrary<PassRulesOptions> = fc
  .record({
    limitA: fc.option(fc.constantFrom(0.5, 1, 2), { freq: 2 }),
    guaranteeB: fc.constantFrom(0, 0, 0, 1),
    preemption: fc.boolean(),
  })
  .map((r) => ({
    tenants: [
      { tenant: 'a', guaranteedGpuEquivalents: 0, limitGpuEquivalents: r.limitA },
      { tenant: 'b', guaranteedGpuEquivalents: r.guaranteeB, limitGpuEquivalents: null },
    ],
    backfill: true,
    preemption: r.preemption ? { minRunSeconds: 60, maxPreemptionsPerJob: 3, maxPreemptorsTried: 1 } : null,
  }));

/** The jobs placed by a first pass on empty GPUs, as running jobs. */
function runningOn(gpus: readonly GpuDevice[], jobs: readonly JobRequest[]): ActiveJob[] {
  const plan = schedule({
    snapshot: { nodes: [{ name: 'n', hostCpuMilli: 64_000, hostMemoryMiB: 262_144, gpus }], active: [] },
    pending: jobs,
    nowMs: NOW,
    rng: new SeededRng(3),
  });
  return plan.placements.map(({ jobId, node, placement }, i) => {
    const request = jobs.find((j) => j.id === jobId)!;
    return {
      request,
      assignment: { jobId, node, cpuMilli: 0, hostMemoryMiB: 0, placement },
      preemptible: i % 2 === 0,
      startedAtMs: NOW - i * 30_000,
      preemptionCount: 0,
      stopping: false,
    };
  });
}

describe('a pass over the QueueIndex', () => {
  it('yields the queue order of a full sort, for any jobs, shares and time (aging included)', () => {
    fc.assert(
      fc.property(
        jobsArb(1, 60),
        fc.record({ a: fc.double({ min: 0, max: 1, noNaN: true }), b: fc.constantFrom(0, 0.25, 0.5) }),
        fc.integer({ min: 0, max: 8 * 3_600_000 }),
        (jobs, shares, later) => {
          const ctx: QueueOrderContext = {
            nowMs: NOW + later,
            dominantShareByTenant: new Map([
              ['a', shares.a],
              ['b', shares.b],
            ]),
            aging: DEFAULT_AGING,
          };
          const index = new QueueIndex();
          for (const job of jobs) index.add(job);
          const merge = index.inOrder(ctx);
          const lazy: number[] = [];
          for (let next = merge.next(); next !== null; next = merge.next()) lazy.push(next.job.id);
          expect(lazy).toEqual([...jobs].sort(createQueueComparator<JobRequest>(ctx)).map((j) => j.id));
        },
      ),
      { numRuns: 500 },
    );
  });

  it('places, blocks, preempts and gives reasons exactly as a pass that visits every job', () => {
    let stoppedEarly = 0;
    fc.assert(
      fc.property(
        gpusArb,
        jobsArb(1, 6),
        jobsArb(100, 40),
        rulesArb,
        fc.integer({ min: 0, max: 40 }),
        (gpus, initial, pending, rules, removeEvery) => {
          const active = runningOn(gpus, initial);
          const snapshot: ClusterSnapshot = {
            nodes: [{ name: 'n', hostCpuMilli: 64_000, hostMemoryMiB: 262_144, gpus }],
            active,
          };
          const index = new QueueIndex();
          for (const job of pending) index.add(job);
          // Removals and re-adds, as placements, cancels and requeues do between passes.
          if (removeEvery > 0) for (const job of pending.filter((_, i) => i % removeEvery === 0)) index.remove(job.id);
          for (const job of pending.filter((_, i) => removeEvery > 0 && i % (2 * removeEvery) === 0)) index.add(job);
          const queued = pending.filter((j) => index.has(j.id));
          const full = schedule({ snapshot, pending: queued, nowMs: NOW, rng: new SeededRng(9), rules });
          const lazy = schedule({ snapshot, pending: index, nowMs: NOW, rng: new SeededRng(9), rules });
          expect(lazy.placements).toEqual(full.placements);
          expect(lazy.blockedJobId).toBe(full.blockedJobId);
          expect(lazy.preemption).toEqual(full.preemption);
          expect(full.unvisited).toBeNull();
          if (lazy.unvisited !== null) stoppedEarly++;
          const placed = new Set(full.placements.map((p) => p.jobId));
          for (const job of queued) {
            if (placed.has(job.id)) continue;
            const reason = waitOf(lazy, job.id) ?? (lazy.unvisited && unvisitedWait(lazy.unvisited, job));
            expect(reason, `job ${job.id}`).toEqual(waitOf(full, job.id));
          }
        },
      ),
      { numRuns: 400 },
    );
    // The comparison is about passes that stopped early: most generated cases must have.
    expect(stoppedEarly).toBeGreaterThan(100);
  });
});
