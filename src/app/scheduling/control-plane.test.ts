/**
 * The control plane on in-memory adapters with fake time (src/app/testing/plane-kit.ts): passes,
 * launches, exits, preemptions and QoS, driven by a manual clock and a launcher without processes.
 */
import { describe, expect, it, vi } from 'vitest';
import { findPolicy } from '../../core/index.js';
import { planeKit } from '../testing/plane-kit.js';

const GIB = 1024;

describe('ControlPlane: memory-only shares', () => {
  it('runs 20 jobs of --gpu-memory 8GiB at once on 8 simulated A10s (24 GiB each)', async () => {
    const kit = await planeKit('8xA10');
    const ids = Array.from(
      { length: 20 },
      () => kit.submit({ command: ['sleep', '600'], gpu: { gpuMemoryMiB: 8 * GIB } }).id,
    );
    await kit.settle();
    expect(ids.map((id) => kit.store.getJob(id)!.state)).toEqual(Array(20).fill('running'));
    const usage = kit.plane.allocations().usage;
    expect(usage.map((u) => u.jobIds.length).reduce((a, b) => a + b, 0)).toBe(20);
    expect(Math.max(...usage.map((u) => u.jobIds.length))).toBe(3);
    for (const u of usage) {
      expect(u.allocatedGpuMilli).toBeLessThanOrEqual(1000);
      expect(u.allocatedGpuMemoryMiB).toBeLessThanOrEqual(24 * GIB);
    }
  });
});

describe('ControlPlane: preemption', () => {
  it(
    'a victim that saves its checkpoint and exits 0 on the signal is requeued as preempted, resumes ' +
      'with GPUSHARE_RESUME=1 and finishes',
    async () => {
      const kit = await planeKit('1xT4');
      // The job's reaction to the preemption signal: write its checkpoint, exit 0.
      kit.launcher.onSignal = (signal) =>
        signal === 'SIGUSR1' ? { exitCode: 0, signal: null } : { exitCode: null, signal };
      const low = kit.submit({ command: ['train'], gpu: { gpuMilli: 1000 }, priority: 'low' });
      await kit.settle();
      expect(kit.store.getJob(low.id)!.state).toBe('running');
      await kit.advance(5_000);
      const critical = kit.submit({ command: ['infer'], gpu: { gpuMilli: 1000 }, priority: 'critical' });
      await kit.advance(100); // one monitor tick sees the victim's exit
      expect(kit.launcher.attempt(low.id).signals).toEqual(['SIGUSR1']);
      expect(kit.launcher.attempt(low.id).outcome).toMatchObject({
        exitCode: 0,
        signalDeliveredAtMs: kit.clock.nowMs() - 100,
      });
      const victim = kit.store.getJob(low.id)!;
      expect(victim.state).toBe('preempted');
      expect(kit.store.listAttempts(low.id).map((a) => [a.endReason?.code, a.exitCode])).toEqual([['preempted', 0]]);
      expect(kit.store.getJob(critical.id)!.state).toBe('running');
      // The preemptor finishes; the victim resumes from its checkpoint and finishes.
      kit.launcher.exit(critical.id, { exitCode: 0 });
      await kit.advance(100);
      expect(kit.store.getJob(low.id)!.state).toBe('running');
      expect(kit.launcher.attempt(low.id).spec.environment.GPUSHARE_RESUME).toBe('1');
      kit.launcher.exit(low.id, { exitCode: 0 });
      await kit.advance(100);
      expect(kit.store.getJob(low.id)!.state).toBe('succeeded');
      expect(kit.store.listEvents(low.id).map((e) => e.toState)).toEqual([
        'pending',
        'scheduled',
        'running',
        'preempted',
        'scheduled',
        'running',
        'succeeded',
      ]);
      expect(kit.store.listAttempts(low.id).map((a) => a.endReason?.code)).toEqual(['preempted', 'exited']);
    },
  );

  it('a job that exited before the preemption signal was sent is succeeded, not preempted', async () => {
    const kit = await planeKit('1xT4');
    const low = kit.submit({ command: ['train'], gpu: { gpuMilli: 1000 }, priority: 'low' });
    await kit.settle();
    await kit.advance(5_000);
    // It ends on its own, and before the monitor notices, a critical job makes the pass preempt it.
    kit.launcher.exit(low.id, { exitCode: 0 });
    const critical = kit.submit({ command: ['infer'], gpu: { gpuMilli: 1000 }, priority: 'critical' });
    await kit.settle();
    expect(kit.launcher.attempt(low.id).signals).toEqual([]);
    await kit.advance(100);
    expect(kit.store.getJob(low.id)!.state).toBe('succeeded');
    expect(kit.store.listAttempts(low.id).map((a) => [a.endReason?.code, a.exitCode])).toEqual([['exited', 0]]);
    expect(kit.store.getJob(critical.id)!.state).toBe('running');
  });

  it('never ends a job before it started, when the command exits before the server records it running', async () => {
    const kit = await planeKit('1xT4');
    const job = kit.submit({ command: ['true'], gpu: { gpuMilli: 500 } });
    await kit.settle();
    const startedAtMs = kit.store.getJob(job.id)!.startedAtMs!;
    // The supervisor's clock says it ended 12 ms before the server wrote `running`.
    kit.launcher.exit(job.id, { exitCode: 0, endedAtMs: startedAtMs - 12 });
    await kit.advance(100);
    const ended = kit.store.getJob(job.id)!;
    expect([ended.state, ended.endedAtMs]).toEqual(['succeeded', startedAtMs]);
    const times = kit.store.listEvents(job.id).map((e) => e.atMs);
    expect(times).toEqual([...times].sort((a, b) => a - b));
  });
});

describe('ControlPlane: QoS', () => {
  it(
    'flags a job that misses its target in every report, reporting every 2 s with ' +
      'qosViolationSeconds 1, and recovers it on a met report',
    async () => {
      const kit = await planeKit('1xA100-80GB', { qosViolationSeconds: 1 });
      const job = kit.submit({ command: ['train'], gpu: { gpuMilli: 300 }, qos: { stepSeconds: 0.5 } });
      await kit.settle();
      const report = (stepSeconds: number) => kit.plane.qos.report(job.id, { stepSeconds }, kit.clock.nowMs());
      expect(report(0.9)).toEqual([]);
      await kit.advance(2_000);
      expect(report(0.9).map((c) => c.change)).toEqual(['violation']);
      expect(kit.plane.qos.violatingJobs().map((j) => j.jobId)).toEqual([job.id]);
      await kit.advance(2_000);
      expect(report(0.4).map((c) => c.change)).toEqual(['recovered']);
      expect(kit.plane.qos.violatingJobs()).toEqual([]);
    },
  );
});

describe('ControlPlane: allocations follow the store', () => {
  it(
    'what the GPUs hold is what the scheduled and running jobs of the store hold, after submits, ' +
      'exits, failures and cancels',
    async () => {
      const kit = await planeKit('2xA100-80GB,1xT4');
      const ids: number[] = [];
      for (let i = 0; i < 12; i++)
        ids.push(
          kit.submit({
            command: ['job'],
            gpu: { gpuMilli: [200, 300, 500, 1000][i % 4]!, gpuMemoryMiB: ((i % 3) + 1) * 4 * GIB },
          }).id,
        );
      await kit.settle();
      const check = () => {
        const expected = new Map<number, { milli: number; memory: number; jobs: number[] }>();
        for (const job of kit.store.listJobs({ states: ['scheduled', 'running'] })) {
          for (const gpu of job.placement!.gpus) {
            const e = expected.get(gpu.index) ?? { milli: 0, memory: 0, jobs: [] };
            expected.set(gpu.index, {
              milli: e.milli + gpu.accountedGpuMilli,
              memory: e.memory + gpu.gpuMemoryMiB,
              jobs: [...e.jobs, job.id],
            });
          }
        }
        for (const u of kit.plane.allocations().usage) {
          const e = expected.get(u.device.index) ?? { milli: 0, memory: 0, jobs: [] };
          expect([u.device.index, u.allocatedGpuMilli, u.allocatedGpuMemoryMiB, u.jobIds]).toEqual([
            u.device.index,
            e.milli,
            e.memory,
            e.jobs.sort((a, b) => a - b),
          ]);
        }
      };
      check();
      const running = kit.plane.runningJobs().map((j) => j.id);
      expect(running.length).toBeGreaterThan(3);
      kit.launcher.exit(running[0]!, { exitCode: 0 });
      kit.launcher.exit(running[1]!, { exitCode: 3 });
      kit.launcher.vanish(running[2]!);
      await kit.jobs.cancel(kit.adminPrincipal, running[3]!);
      await kit.advance(100);
      check();
      await kit.advance(10_000);
      check();
      expect(kit.store.getJob(running[0]!)!.state).toBe('succeeded');
      expect(kit.store.getJob(running[1]!)!.state).toBe('failed');
      expect(kit.store.getJob(running[2]!)!.reason?.code).toBe('lost');
      expect(kit.store.getJob(running[3]!)!.state).toBe('cancelled');
    },
  );
});

describe('ControlPlane: allocations with the configured policy', () => {
  it('builds the view of what each GPU holds with settings.policy, not best-fit', async () => {
    const kit = await planeKit('2xA100-80GB', { policy: 'gpu-packing' });
    const job = kit.submit({ command: ['sleep', '600'], gpu: { gpuMilli: 500, mode: 'mps' } });
    await kit.settle();
    const packing = vi.spyOn(findPolicy('gpu-packing')!, 'create');
    const bestFit = vi.spyOn(findPolicy('best-fit')!, 'create');
    try {
      const { usage } = kit.plane.allocations();
      expect([packing.mock.calls.length, bestFit.mock.calls.length]).toEqual([1, 0]);
      expect(usage.map((u) => [u.device.index, u.mode, u.allocatedGpuMilli, u.jobIds])).toEqual([
        [0, 'mps', 500, [job.id]],
        [1, null, 0, []],
      ]);
    } finally {
      vi.restoreAllMocks();
    }
  });
});

describe('ControlPlane: default host limits', () => {
  it("reserves a job's default host memory like a request, and launches it with its limits", async () => {
    const kit = await planeKit('4xA100-80GB', {
      hostMemoryMiB: 4 * GIB,
      jobHostLimits: { pidsMax: 512, defaultHostMemoryMiB: 1536, tenantDefaultHostMemoryMiB: {}, cpuWeight: 50 },
    });
    // A job that asks for 1 GiB, then three without host memory that hold 1.5 GiB each: 1 + 1.5 + 1.5 fill the 4 GiB
    // offered, the third default waits for memory.
    const small = kit.submit({ command: ['sleep', '600'], gpu: { gpuMilli: 1000 }, hostMemoryMiB: GIB }).id;
    const ids = [1, 2, 3].map(() => kit.submit({ command: ['sleep', '600'], gpu: { gpuMilli: 1000 } }).id);
    await kit.settle();
    expect([small, ...ids].map((id) => kit.store.getJob(id)!.state)).toEqual([
      'running',
      'running',
      'running',
      'pending',
    ]);
    expect(kit.plane.waitingReason(ids[2]!)?.code).toBe('host-memory');
    const spec = kit.launcher.attempt(ids[0]!).spec;
    expect([spec.hostMemoryMiB, spec.pidsMax, spec.cpuWeight]).toEqual([1536, 512, 50]);
    expect(kit.launcher.attempt(small).spec.hostMemoryMiB).toBe(GIB);
  });
});
