/**
 * Watching attempts to their end on a manual clock: an exit settled with its real end time, a
 * retry re-queued, a lost process, a time limit, and a full disk that holds the settling back.
 */
import { describe, expect, it } from 'vitest';
import { diskFull } from '../errors.js';
import { loopParts, type LoopParts } from '../testing/loop-parts.js';
import { AttemptMonitor } from './attempt-monitor.js';
import type { NewJob } from '../ports/state-store.js';

const HALF = { gpuCount: 1, gpuMilli: 500, gpuMemoryMiB: null, mode: 'timeslice' } as const;

/** The parts, a monitor over them, and `run` to place, launch and adopt a job. */
async function setup() {
  const parts = await loopParts('1xA100-80GB');
  const monitor = new AttemptMonitor(parts);
  const run = async (overrides: Partial<NewJob> = {}): Promise<number> => {
    const { id } = parts.place({ gpu: HALF, ...overrides });
    expect((await parts.launch.launch(id, null)).kind).toBe('started');
    parts.runningSet.adopt(parts.store.getJob(id)!);
    return id;
  };
  return { parts, monitor, run };
}

const stateOf = (parts: LoopParts, id: number) => parts.store.getJob(id)!.state;

describe('AttemptMonitor', () => {
  it('settles an exit with the time the command ended; a failure with retries left is re-queued queue', async () => {
    const { parts, monitor, run } = await setup();
    const ok = await run({ retries: 0 });
    const flaky = await run({ retries: 1 });
    const endedAtMs = parts.clock.nowMs();
    parts.launcher.exit(ok, { exitCode: 0 });
    parts.launcher.exit(flaky, { exitCode: 3 });
    parts.clock.advance(250);
    monitor.check();
    expect([stateOf(parts, ok), stateOf(parts, flaky)]).toEqual(['succeeded', 'pending']);
    expect(parts.store.getJob(ok)!.endedAtMs).toBe(endedAtMs);
    expect(parts.store.listAttempts(flaky).map((a) => [a.exitCode, a.endReason?.code, a.endedAtMs])).toEqual([
      [3, 'exited', endedAtMs],
    ]);
    expect([parts.running.size, parts.queue.has(flaky), parts.queue.has(ok)]).toEqual([0, true, false]);
    expect(parts.noted).toEqual(['job-ended', 'requeued']);
    expect(parts.passRequests.count).toBe(2);
  });

  it('ends a process that vanished without an outcome as lost', async () => {
    const { parts, monitor, run } = await setup();
    const id = await run({ retries: 0 });
    parts.launcher.vanish(id);
    monitor.check();
    expect(stateOf(parts, id)).toBe('failed');
    expect(parts.store.listAttempts(id).map((a) => a.endReason?.code)).toEqual(['lost']);
  });

  it('stops a job past its time limit once, and settles its end as time-limit', async () => {
    const { parts, monitor, run } = await setup();
    const id = await run({ timeLimitSeconds: 10, retries: 0 });
    parts.clock.advance(10_000);
    monitor.check();
    expect(parts.launcher.attempt(id).signals).toEqual([]);
    parts.clock.advance(1);
    monitor.check();
    await parts.clock.settle();
    expect(parts.intents.get(id)).toEqual({ kind: 'time-limit' });
    expect(parts.launcher.attempt(id).signals).toEqual(['SIGTERM']);
    expect(parts.logs.filter((l) => l.msg === 'time limit reached')).toHaveLength(1);
    monitor.check();
    expect(stateOf(parts, id)).toBe('failed');
    expect(parts.store.listAttempts(id).map((a) => a.endReason?.code)).toEqual(['time-limit']);
    expect(parts.intents.has(id)).toBe(false);
  });

  it('kills a job counted at its process limit, ending it process-limit; an OOM kill ends one at exit', async () => {
    const { parts, run } = await setup();
    const hostLimits = { pidsMax: 64, defaultHostMemoryMiB: 256, tenantDefaultHostMemoryMiB: {}, cpuWeight: 100 };
    const events = new Map<string, { pidsMaxHits: number; oomKills: number; cpuThrottledPeriods: number }>();
    // The fake launcher as one on a host with every controller, whose kernel counted `events` per attempt.
    Object.assign(parts.launcher, {
      enforcement: { cpuMilli: true, hostMemoryMiB: true, pidsMax: true, cpuWeight: true },
      limitEvents: (handle: { outcomePath: string }) => events.get(handle.outcomePath) ?? null,
    });
    const monitor = new AttemptMonitor({ ...parts, settings: { jobHostLimits: hostLimits } });
    const bomb = await run({ retries: 0 });
    const hog = await run({ retries: 0, hostMemoryMiB: 0 }); // held to the default, 256 MiB
    events.set(parts.store.getJob(bomb)!.process!.outcomePath, { pidsMaxHits: 7, oomKills: 0, cpuThrottledPeriods: 3 });
    monitor.check();
    await parts.clock.settle();
    expect(parts.launcher.attempt(bomb).signals).toEqual(['SIGKILL']);
    monitor.check();
    expect(stateOf(parts, bomb)).toBe('failed');
    expect(parts.store.listAttempts(bomb).map((a) => a.endReason)).toEqual([
      { code: 'process-limit', lasting: false, details: { pidsMax: 64, forksRefused: 7 } },
    ]);
    // The OOM killer ended the job's only process before a tick saw the count: it ends for the limit too.
    events.set(parts.store.getJob(hog)!.process!.outcomePath, { pidsMaxHits: 0, oomKills: 1, cpuThrottledPeriods: 0 });
    parts.launcher.exit(hog, { exitCode: null, signal: 'SIGKILL' });
    monitor.check();
    expect(parts.store.listAttempts(hog).map((a) => a.endReason)).toEqual([
      { code: 'host-memory-limit', lasting: false, details: { hostMemoryMiB: 256, oomKills: 1 } },
    ]);
    expect(parts.launcher.attempt(hog).signals).toEqual([]);
  });

  it('with the disk full, keeps an ended attempt until there is room; a full-disk write is not logged', async () => {
    const { parts, monitor, run } = await setup();
    const id = await run({ retries: 0 });
    parts.launcher.exit(id, { exitCode: 0, endedAtMs: parts.clock.nowMs() });
    const endedAtMs = parts.clock.nowMs();
    parts.testDisk.fill();
    parts.clock.advance(5_000);
    monitor.check();
    expect([stateOf(parts, id), parts.running.size]).toEqual(['running', 1]);
    // The disk says it has room but the write still fails: reported to the disk, not logged.
    parts.testDisk.free();
    const write = parts.store.applyJobChanges.bind(parts.store);
    parts.store.applyJobChanges = () => {
      throw diskFull('/data', 'SQLITE_FULL');
    };
    monitor.check();
    expect([stateOf(parts, id), parts.disk.full, parts.logs]).toEqual(['running', true, []]);
    parts.store.applyJobChanges = write;
    parts.testDisk.free();
    monitor.check();
    expect(stateOf(parts, id)).toBe('succeeded');
    expect(parts.store.getJob(id)!.endedAtMs).toBe(endedAtMs);
  });

  it("logs one job's trouble and goes on watching the others", async () => {
    const { parts, monitor, run } = await setup();
    const first = await run({ retries: 0 });
    const second = await run({ retries: 0 });
    parts.launcher.exit(first, { exitCode: 0 });
    parts.launcher.exit(second, { exitCode: 0 });
    const write = parts.store.applyJobChanges.bind(parts.store);
    parts.store.applyJobChanges = (changes) => {
      if (changes[0]!.jobId === first) throw new Error('conflict');
      return write(changes);
    };
    monitor.check();
    expect([stateOf(parts, first), stateOf(parts, second)]).toEqual(['running', 'succeeded']);
    expect(parts.logs.map((l) => [l.level, l.msg, (l.obj as { jobId: number }).jobId])).toEqual([
      ['error', 'watching the job failed', first],
    ]);
  });
});
