import { describe, expect, it } from 'vitest';
import { choosePlacement, isValidLayout } from '../mig/mig-allocator.js';
import { findMigProfile } from '../mig/mig-profiles.js';
import { InvariantViolation } from '../model/errors.js';
import { SeededRng } from '../random/rng.js';
import type { GpuDevice } from '../model/gpu-device.js';
import type { Placement } from '../model/assignment.js';
import type { GpuRequest, JobRequest } from '../model/request.js';
import {
  OneNodeCluster,
  type OneNodeOptions,
  type TestAssignment,
  type TestOutcome,
} from '../testing/one-node-cluster.js';
import { whyUnresolvable } from '../sharing/unresolvable.js';

const A100 = 81920;
const T4 = 16384;
const H100 = 81559;

function gpu(index: number, model = 'A100-80GB', extra: Partial<GpuDevice> = {}): GpuDevice {
  const memory = model === 'T4' ? T4 : model === 'H100-80GB' ? H100 : A100;
  return { index, uuid: `GPU-${index}`, model, gpuMemoryMiB: memory, migEnabled: false, schedulable: true, ...extra };
}

const migGpu = (index: number, model = 'A100-80GB'): GpuDevice => gpu(index, model, { migEnabled: true });

function job(id: number, request: Partial<GpuRequest>, extra: Partial<JobRequest> = {}): JobRequest {
  return {
    id,
    tenant: 'team',
    priority: 500,
    submittedAtMs: 1_000 + id,
    cpuMilli: 0,
    hostMemoryMiB: 0,
    gpu: { gpuCount: 1, gpuMilli: 1000, gpuMemoryMiB: null, mode: 'auto', ...request },
    ...extra,
  };
}

function scheduler(gpus: readonly GpuDevice[], options: Partial<OneNodeOptions> = {}): OneNodeCluster {
  return new OneNodeCluster(gpus, {
    hostCpuMilli: 64_000,
    hostMemoryMiB: 256 * 1024,
    timesliceOvercommitRatio: 1,
    rng: new SeededRng(42),
    ...options,
  });
}

function placed(outcome: TestOutcome): Placement {
  if (outcome.kind !== 'placed') throw new Error(`expected a placement, got: ${outcome.reason}`);
  return outcome.placement;
}

function reasonOf(outcome: TestOutcome): string {
  if (outcome.kind !== 'waiting')
    throw new Error(`expected to wait, got a placement on ${outcome.placement.gpus.map((g) => g.index).join(',')}`);
  return outcome.reason;
}

const indices = (p: Placement): number[] => p.gpus.map((g) => g.index);

function usageOf(s: OneNodeCluster, index: number) {
  const u = s.usage().find((x) => x.device.index === index);
  if (!u) throw new Error(`no GPU ${index}`);
  return { mode: u.mode, milli: u.allocatedGpuMilli, memory: u.allocatedGpuMemoryMiB, jobs: u.jobIds };
}

describe('OneNodeCluster: fractions (auto → mps)', () => {
  it('places two halves on one A100-80GB, makes the third wait, and places it after a release', () => {
    const s = scheduler([gpu(0)]);
    const half = { gpuMilli: 500, gpuMemoryMiB: 30720 };
    const first = placed(s.tryPlace(job(1, half)));
    expect(first).toEqual({
      mode: 'mps',
      gpus: [{ index: 0, uuid: 'GPU-0', gpuMilli: 500, accountedGpuMilli: 500, gpuMemoryMiB: 30720, mig: null }],
    });
    expect(placed(s.tryPlace(job(2, half)))).toEqual(first);
    expect(reasonOf(s.tryPlace(job(3, half)))).toBe(
      'waiting for 1 GPU(s) of one model with 500 free milli-GPU and 30720 MiB free memory in mode mps; ' +
        'at most 0 qualify now',
    );
    expect(usageOf(s, 0)).toEqual({ mode: 'mps', milli: 1000, memory: 61440, jobs: [1, 2] });

    s.release(1);
    expect(s.isHeld(1)).toBe(false);
    expect(usageOf(s, 0)).toEqual({ mode: 'mps', milli: 500, memory: 30720, jobs: [2] });
    expect(indices(placed(s.tryPlace(job(3, half))))).toEqual([0]);
    expect(usageOf(s, 0)).toEqual({ mode: 'mps', milli: 1000, memory: 61440, jobs: [2, 3] });
  });

  it('never over-commits memory even with compute left', () => {
    const s = scheduler([gpu(0)]);
    placed(s.tryPlace(job(1, { gpuMilli: 100, gpuMemoryMiB: 60_000 })));
    expect(reasonOf(s.tryPlace(job(2, { gpuMilli: 100, gpuMemoryMiB: 21_921 })))).toContain(
      '21921 MiB free memory in mode mps',
    );
    expect(indices(placed(s.tryPlace(job(3, { gpuMilli: 100, gpuMemoryMiB: 21_920 }))))).toEqual([0]);
    expect(usageOf(s, 0)).toEqual({ mode: 'mps', milli: 200, memory: A100, jobs: [1, 3] });
  });

  it('a GPU with no jobs left takes any mode again', () => {
    const s = scheduler([gpu(0)]);
    placed(s.tryPlace(job(1, { gpuMilli: 300, gpuMemoryMiB: 1024 })));
    s.release(1);
    expect(usageOf(s, 0)).toEqual({ mode: null, milli: 0, memory: 0, jobs: [] });
    expect(placed(s.tryPlace(job(2, { gpuMilli: 300, gpuMemoryMiB: 1024, mode: 'timeslice' }))).mode).toBe('timeslice');
  });
});

describe('OneNodeCluster: whole and multiple GPUs', () => {
  it('gpuCount 2 × 1000 milli gets two distinct GPUs, exclusive, with the whole memory', () => {
    const s = scheduler([gpu(0), gpu(1)]);
    expect(placed(s.tryPlace(job(1, { gpuCount: 2, gpuMilli: 1000 })))).toEqual({
      mode: 'exclusive',
      gpus: [
        { index: 0, uuid: 'GPU-0', gpuMilli: 1000, accountedGpuMilli: 1000, gpuMemoryMiB: A100, mig: null },
        { index: 1, uuid: 'GPU-1', gpuMilli: 1000, accountedGpuMilli: 1000, gpuMemoryMiB: A100, mig: null },
      ],
    });
    expect(usageOf(s, 0)).toEqual({ mode: 'exclusive', milli: 1000, memory: A100, jobs: [1] });
    expect(usageOf(s, 1)).toEqual({ mode: 'exclusive', milli: 1000, memory: A100, jobs: [1] });
    expect(reasonOf(s.tryPlace(job(2, { gpuMilli: 100, gpuMemoryMiB: 1 })))).toContain('at most 0 qualify now');
  });

  it('gpuCount 2 on a one-GPU server waits, and whyUnresolvable names gpuCount', () => {
    const gpus = [gpu(0)];
    const twoGpus = job(1, { gpuCount: 2, gpuMilli: 1000 });
    expect(reasonOf(scheduler(gpus).tryPlace(twoGpus))).toBe(
      'waiting for 2 GPU(s) of one model with 1000 free milli-GPU and proportional free memory in mode ' +
        'exclusive; at most 1 qualify now',
    );
    expect(whyUnresolvable(twoGpus, gpus, { cpuMilli: 64_000, hostMemoryMiB: 1 << 20 })).toBe(
      "gpuCount 2 exceeds the 1 GPU(s) of one model on this server that can hold it (a job's GPUs are " +
        'distinct GPUs of one model)',
    );
  });

  it('a multi-GPU job never mixes models', () => {
    const s = scheduler([gpu(0, 'T4'), gpu(1)]);
    expect(reasonOf(s.tryPlace(job(1, { gpuCount: 2, gpuMilli: 100, gpuMemoryMiB: 1024 })))).toContain(
      'at most 1 qualify now',
    );
    const s2 = scheduler([gpu(0, 'T4'), gpu(1), gpu(2, 'T4'), gpu(3)]);
    const p = placed(s2.tryPlace(job(1, { gpuCount: 2, gpuMilli: 1000 })));
    expect(indices(p)).toEqual([0, 2]); // memory follows the GPU: the smallest model that fits (T4)
    expect(p.gpus.map((g) => g.gpuMemoryMiB)).toEqual([T4, T4]);
  });
});

describe('OneNodeCluster: proportional memory and the choice of model', () => {
  it('reserves gpuMilli/1000 of the GPU memory when gpuMemoryMiB is null', () => {
    expect(placed(scheduler([gpu(0)]).tryPlace(job(1, { gpuMilli: 500 }))).gpus[0]!.gpuMemoryMiB).toBe(40960);
    expect(placed(scheduler([gpu(0, 'T4')]).tryPlace(job(1, { gpuMilli: 500 }))).gpus[0]!.gpuMemoryMiB).toBe(8192);
    // floor(333 × 16384 / 1000)
    expect(placed(scheduler([gpu(0, 'T4')]).tryPlace(job(1, { gpuMilli: 333 }))).gpus[0]!.gpuMemoryMiB).toBe(5455);
  });

  it(
    'sends a null-memory job to the smallest model that fits (T4 before A100), and to the A100 once the T4 ' +
      'is full',
    () => {
      const s = scheduler([gpu(0), gpu(1, 'T4')]);
      expect(placed(s.tryPlace(job(1, { gpuMilli: 500 })))).toEqual({
        mode: 'mps',
        gpus: [{ index: 1, uuid: 'GPU-1', gpuMilli: 500, accountedGpuMilli: 500, gpuMemoryMiB: 8192, mig: null }],
      });
      expect(indices(placed(s.tryPlace(job(2, { gpuMilli: 500 }))))).toEqual([1]);
      expect(placed(s.tryPlace(job(3, { gpuMilli: 500 })))).toEqual({
        mode: 'mps',
        gpus: [{ index: 0, uuid: 'GPU-0', gpuMilli: 500, accountedGpuMilli: 500, gpuMemoryMiB: 40960, mig: null }],
      });
    },
  );

  it('whole-GPU jobs also take the smallest model, but never one below an explicit memory request', () => {
    expect(placed(scheduler([gpu(0), gpu(1, 'T4')]).tryPlace(job(1, { gpuMilli: 1000 }))).gpus[0]).toMatchObject({
      index: 1,
      gpuMemoryMiB: T4,
    });
    // 30000 MiB does not fit a T4: the exclusive job must get the A100, with its whole memory.
    const s = scheduler([gpu(0, 'T4'), gpu(1)]);
    expect(placed(s.tryPlace(job(1, { gpuMilli: 1000, gpuMemoryMiB: 30_000 })))).toEqual({
      mode: 'exclusive',
      gpus: [{ index: 1, uuid: 'GPU-1', gpuMilli: 1000, accountedGpuMilli: 1000, gpuMemoryMiB: A100, mig: null }],
    });
    expect(reasonOf(s.tryPlace(job(2, { gpuMilli: 1000, gpuMemoryMiB: 30_000 })))).toContain('at most 0 qualify now');
    expect(indices(placed(s.tryPlace(job(3, { gpuMilli: 1000, gpuMemoryMiB: 16_000 }))))).toEqual([0]);
  });

  it('an explicit memory request may go to either model, always within that GPU', () => {
    const s = scheduler([gpu(0, 'T4'), gpu(1)]);
    const p = placed(s.tryPlace(job(1, { gpuMilli: 200, gpuMemoryMiB: 8000 })));
    expect(p.gpus).toHaveLength(1);
    expect(p.gpus[0]!.gpuMemoryMiB).toBe(8000);
    // 20000 MiB only fits the A100
    expect(indices(placed(s.tryPlace(job(2, { gpuMilli: 200, gpuMemoryMiB: 20_000 }))))).toEqual([1]);
  });
});

describe('OneNodeCluster: timeslice', () => {
  it('fits 600 + 300 + 100 on one GPU at ratio 1; a fourth 100 waits', () => {
    const s = scheduler([gpu(0)]);
    for (const [id, milli] of [
      [1, 600],
      [2, 300],
      [3, 100],
    ] as const) {
      expect(placed(s.tryPlace(job(id, { gpuMilli: milli, gpuMemoryMiB: 1024, mode: 'timeslice' })))).toEqual({
        mode: 'timeslice',
        gpus: [{ index: 0, uuid: 'GPU-0', gpuMilli: milli, accountedGpuMilli: milli, gpuMemoryMiB: 1024, mig: null }],
      });
    }
    expect(reasonOf(s.tryPlace(job(4, { gpuMilli: 100, gpuMemoryMiB: 1024, mode: 'timeslice' })))).toBe(
      'waiting for 1 GPU(s) of one model with 100 free milli-GPU and 1024 MiB free memory in mode ' +
        'timeslice; at most 0 qualify now',
    );
    expect(usageOf(s, 0)).toEqual({ mode: 'timeslice', milli: 1000, memory: 3072, jobs: [1, 2, 3] });
  });

  it('at ratio 2 accounts ceil(gpuMilli / 2): 1200 milli of requests fit, and the limit is exact', () => {
    const s = scheduler([gpu(0)], { timesliceOvercommitRatio: 2 });
    const a = placed(s.tryPlace(job(1, { gpuMilli: 600, gpuMemoryMiB: 1024, mode: 'timeslice' })));
    const b = placed(s.tryPlace(job(2, { gpuMilli: 600, gpuMemoryMiB: 1024, mode: 'timeslice' })));
    expect([a.gpus[0]!.gpuMilli, a.gpus[0]!.accountedGpuMilli, b.gpus[0]!.accountedGpuMilli]).toEqual([600, 300, 300]);
    expect(usageOf(s, 0).milli).toBe(600);
    // 999 → ceil(499.5) = 500 would make 1100: waits; 799 → 400 makes exactly 1000: fits.
    expect(reasonOf(s.tryPlace(job(3, { gpuMilli: 999, gpuMemoryMiB: 1024, mode: 'timeslice' })))).toContain(
      'with 500 free milli-GPU',
    );
    expect(
      placed(s.tryPlace(job(4, { gpuMilli: 799, gpuMemoryMiB: 1024, mode: 'timeslice' }))).gpus[0]!.accountedGpuMilli,
    ).toBe(400);
    expect(usageOf(s, 0)).toEqual({ mode: 'timeslice', milli: 1000, memory: 3072, jobs: [1, 2, 4] });
    expect(reasonOf(s.tryPlace(job(5, { gpuMilli: 1, gpuMemoryMiB: 1, mode: 'timeslice' })))).toContain(
      'at most 0 qualify now',
    );
  });

  it('the ratio never applies to memory, nor to mps', () => {
    const s = scheduler([gpu(0)], { timesliceOvercommitRatio: 4 });
    placed(s.tryPlace(job(1, { gpuMilli: 100, gpuMemoryMiB: 50_000, mode: 'timeslice' })));
    expect(reasonOf(s.tryPlace(job(2, { gpuMilli: 100, gpuMemoryMiB: 50_000, mode: 'timeslice' })))).toContain(
      '50000 MiB free memory',
    );
    const m = scheduler([gpu(0)], { timesliceOvercommitRatio: 4 });
    expect(placed(m.tryPlace(job(1, { gpuMilli: 600, gpuMemoryMiB: 1, mode: 'mps' }))).gpus[0]!.accountedGpuMilli).toBe(
      600,
    );
    expect(reasonOf(m.tryPlace(job(2, { gpuMilli: 401, gpuMemoryMiB: 1, mode: 'mps' })))).toContain(
      'at most 0 qualify now',
    );
  });

  it('rejects an overcommit ratio below 1', () => {
    expect(() => scheduler([gpu(0)], { timesliceOvercommitRatio: 0.5 })).toThrow(InvariantViolation);
    expect(() => scheduler([gpu(0)], { timesliceOvercommitRatio: Number.NaN })).toThrow(InvariantViolation);
  });
});

describe('OneNodeCluster: one sharing mode per GPU', () => {
  it('an mps GPU refuses timeslice; the timeslice job goes to the other GPU, exclusive waits for an empty one', () => {
    const s = scheduler([gpu(0), gpu(1)]);
    const mps = indices(placed(s.tryPlace(job(1, { gpuMilli: 300, gpuMemoryMiB: 1024, mode: 'mps' }))))[0]!;
    const other = 1 - mps;
    expect(indices(placed(s.tryPlace(job(2, { gpuMilli: 300, gpuMemoryMiB: 1024, mode: 'timeslice' }))))).toEqual([
      other,
    ]);
    // each further job follows its mode, although both GPUs have room
    expect(indices(placed(s.tryPlace(job(3, { gpuMilli: 300, gpuMemoryMiB: 1024, mode: 'timeslice' }))))).toEqual([
      other,
    ]);
    expect(indices(placed(s.tryPlace(job(4, { gpuMilli: 300, gpuMemoryMiB: 1024, mode: 'mps' }))))).toEqual([mps]);
    expect(reasonOf(s.tryPlace(job(5, { gpuMilli: 1000 })))).toBe(
      'waiting for 1 GPU(s) of one model with 1000 free milli-GPU and proportional free memory in mode ' +
        'exclusive; at most 0 qualify now',
    );
    expect(usageOf(s, mps).mode).toBe('mps');
    expect(usageOf(s, other).mode).toBe('timeslice');
    s.release(1);
    s.release(4);
    expect(placed(s.tryPlace(job(5, { gpuMilli: 1000 })))).toEqual({
      mode: 'exclusive',
      gpus: [
        { index: mps, uuid: `GPU-${mps}`, gpuMilli: 1000, accountedGpuMilli: 1000, gpuMemoryMiB: A100, mig: null },
      ],
    });
  });

  it('on one GPU, a job of another mode waits with a reason naming its mode', () => {
    const s = scheduler([gpu(0)]);
    placed(s.tryPlace(job(1, { gpuMilli: 100, gpuMemoryMiB: 1024, mode: 'mps' })));
    expect(reasonOf(s.tryPlace(job(2, { gpuMilli: 100, gpuMemoryMiB: 1024, mode: 'timeslice' })))).toBe(
      'waiting for 1 GPU(s) of one model with 100 free milli-GPU and 1024 MiB free memory in mode ' +
        'timeslice; at most 0 qualify now',
    );
    const t = scheduler([gpu(0)]);
    placed(t.tryPlace(job(1, { gpuMilli: 100, gpuMemoryMiB: 1024, mode: 'timeslice' })));
    expect(reasonOf(t.tryPlace(job(2, { gpuMilli: 100, gpuMemoryMiB: 1024, mode: 'mps' })))).toContain('in mode mps');
  });

  it('an exclusive GPU takes nothing else, and a fraction asked as exclusive still takes the whole GPU', () => {
    const s = scheduler([gpu(0)]);
    expect(placed(s.tryPlace(job(1, { gpuMilli: 1000, mode: 'exclusive' }))).gpus[0]).toMatchObject({
      accountedGpuMilli: 1000,
      gpuMemoryMiB: A100,
    });
    for (const mode of ['mps', 'timeslice', 'exclusive', 'auto'] as const) {
      expect(s.tryPlace(job(2, { gpuMilli: 1, gpuMemoryMiB: 1, mode })).kind).toBe('waiting');
    }
    const f = scheduler([gpu(0)]);
    expect(placed(f.tryPlace(job(1, { gpuMilli: 250, gpuMemoryMiB: 1024, mode: 'exclusive' }))).gpus[0]).toMatchObject({
      gpuMilli: 250,
      accountedGpuMilli: 1000,
      gpuMemoryMiB: A100,
    });
  });

  it('auto picks exclusive for 1000 milli and mps for fractions', () => {
    const s = scheduler([gpu(0), gpu(1)]);
    expect(placed(s.tryPlace(job(1, { gpuMilli: 1000 }))).mode).toBe('exclusive');
    expect(placed(s.tryPlace(job(2, { gpuMilli: 999, gpuMemoryMiB: 1 }))).mode).toBe('mps');
  });
});

describe('OneNodeCluster: schedulable flags and GPU list changes', () => {
  it('gives nothing to an unschedulable GPU', () => {
    const s = scheduler([gpu(0, 'A100-80GB', { schedulable: false }), gpu(1)]);
    expect(indices(placed(s.tryPlace(job(1, { gpuMilli: 100, gpuMemoryMiB: 1024 }))))).toEqual([1]);
    expect(indices(placed(s.tryPlace(job(2, { gpuMilli: 100, gpuMemoryMiB: 1024 }))))).toEqual([1]);
    expect(reasonOf(s.tryPlace(job(3, { gpuMilli: 1000 })))).toContain('at most 0 qualify now');
    expect(reasonOf(s.tryPlace(job(4, { gpuCount: 2, gpuMilli: 100, gpuMemoryMiB: 1 })))).toContain(
      'at most 1 qualify now',
    );
    s.setGpus([gpu(0), gpu(1)]);
    expect(indices(placed(s.tryPlace(job(3, { gpuMilli: 1000 }))))).toEqual([0]);
  });

  it('a cordoned GPU keeps its jobs and their accounting, and takes no new ones', () => {
    const s = scheduler([gpu(0)]);
    placed(s.tryPlace(job(1, { gpuMilli: 400, gpuMemoryMiB: 4096 })));
    s.setGpus([gpu(0, 'A100-80GB', { schedulable: false })]);
    expect(usageOf(s, 0)).toEqual({ mode: 'mps', milli: 400, memory: 4096, jobs: [1] });
    expect(reasonOf(s.tryPlace(job(2, { gpuMilli: 100, gpuMemoryMiB: 1 })))).toContain('at most 0 qualify now');
    s.setGpus([gpu(0)]);
    expect(indices(placed(s.tryPlace(job(2, { gpuMilli: 600, gpuMemoryMiB: 1 }))))).toEqual([0]);
    expect(reasonOf(s.tryPlace(job(3, { gpuMilli: 1, gpuMemoryMiB: 1 })))).toContain('at most 0 qualify now');
  });

  it('keeps a vanished GPU, unschedulable, while it holds jobs, and forgets it after the last release', () => {
    const s = scheduler([gpu(0), gpu(1)]);
    const p = placed(s.tryPlace(job(1, { gpuCount: 2, gpuMilli: 300, gpuMemoryMiB: 2048 })));
    expect(indices(p)).toEqual([0, 1]);
    s.setGpus([gpu(1)]);
    expect(s.gpus()).toEqual([gpu(0, 'A100-80GB', { schedulable: false }), gpu(1)]);
    expect(usageOf(s, 0)).toEqual({ mode: 'mps', milli: 300, memory: 2048, jobs: [1] });
    expect(usageOf(s, 1)).toEqual({ mode: 'mps', milli: 300, memory: 2048, jobs: [1] });
    expect(indices(placed(s.tryPlace(job(2, { gpuMilli: 700, gpuMemoryMiB: 1 }))))).toEqual([1]);
    expect(reasonOf(s.tryPlace(job(3, { gpuMilli: 1, gpuMemoryMiB: 1 })))).toContain('at most 0 qualify now');
    s.release(1);
    expect(s.gpus()).toEqual([gpu(1)]);
    expect(usageOf(s, 1)).toEqual({ mode: 'mps', milli: 700, memory: 1, jobs: [2] });
    // a GPU that comes back starts empty
    s.setGpus([gpu(0), gpu(1)]);
    expect(usageOf(s, 0)).toEqual({ mode: null, milli: 0, memory: 0, jobs: [] });
  });

  it('adds new GPUs and keeps every held allocation across setGpus', () => {
    const s = scheduler([gpu(0)]);
    placed(s.tryPlace(job(1, { gpuMilli: 1000 })));
    s.setGpus([gpu(0), gpu(1, 'T4'), gpu(2, 'T4')]);
    expect(usageOf(s, 0)).toEqual({ mode: 'exclusive', milli: 1000, memory: A100, jobs: [1] });
    expect(indices(placed(s.tryPlace(job(2, { gpuCount: 2, gpuMilli: 1000 }))))).toEqual([1, 2]);
    expect(reasonOf(s.tryPlace(job(3, { gpuMilli: 1, gpuMemoryMiB: 1 })))).toContain('at most 0 qualify now');
  });

  it('rejects a GPU index listed twice, in the constructor and in setGpus, changing nothing', () => {
    expect(() => scheduler([gpu(0), gpu(0)])).toThrow(InvariantViolation);
    const s = scheduler([gpu(0)]);
    expect(() => s.setGpus([gpu(1), gpu(1)])).toThrow('GPU index 1 listed twice');
    expect(s.gpus()).toEqual([gpu(0)]);
  });
});

describe('OneNodeCluster: MIG', () => {
  const profile = (name: string) => {
    const p = findMigProfile('A100-80GB', name);
    if (!p) throw new Error(name);
    return p;
  };
  const migJob = (id: number, gpuMilli: number, gpuMemoryMiB: number | null, gpuCount = 1) =>
    job(id, { gpuMilli, gpuMemoryMiB, gpuCount, mode: 'mig' });

  it(
    "gives the smallest covering profile at the start choosePlacement picks; memory is the profile's " +
      'usable memory',
    () => {
      const s = scheduler([migGpu(0)]);
      const oneG20 = profile('1g.20gb');
      expect(choosePlacement('A100-80GB', [], oneG20)).toBe(6);
      expect(placed(s.tryPlace(migJob(1, 100, 15 * 1024)))).toEqual({
        mode: 'mig',
        gpus: [
          {
            index: 0,
            uuid: 'GPU-0',
            gpuMilli: 100,
            accountedGpuMilli: 0,
            gpuMemoryMiB: 19968,
            mig: { profileId: 15, profileName: '1g.20gb', start: 6, size: 2, computeSlices: 1 },
            migChanges: { destroy: [], create: [{ start: 6, profileId: 15 }] },
          },
        ],
      });
      const second = placed(s.tryPlace(migJob(2, 100, 15 * 1024))).gpus[0]!.mig!;
      expect(second.start).toBe(
        choosePlacement('A100-80GB', [{ profileId: 15, start: 6, size: 2, inUse: true }], oneG20),
      );
      expect(second.start).toBe(4);
      // 500 milli needs 4 compute slices: 4g.40gb, whose only home is 0
      expect(placed(s.tryPlace(migJob(3, 500, 30_000))).gpus[0]).toMatchObject({
        gpuMemoryMiB: 40192,
        mig: { profileName: '4g.40gb', start: 0, size: 4, computeSlices: 4 },
      });
      expect(reasonOf(s.tryPlace(migJob(4, 1, 1)))).toBe(
        'waiting for 1 MIG GPU(s) of one model with room for the instance; 0 have room now',
      );
      expect(usageOf(s, 0)).toEqual({ mode: 'mig', milli: 0, memory: 19968 * 2 + 40192, jobs: [1, 2, 3] });
      s.release(2);
      expect(placed(s.tryPlace(migJob(5, 1, 1))).gpus[0]!.mig).toEqual({
        profileId: 19,
        profileName: '1g.10gb',
        start: 5,
        size: 1,
        computeSlices: 1,
      });
    },
  );

  it(
    'without gpuMemoryMiB, chooses the profile by compute (MIG splits memory with compute); 1000 milli ' +
      'gets the 7g',
    () => {
      const fresh = () => scheduler([migGpu(0)]);
      expect(placed(fresh().tryPlace(migJob(1, 100, null))).gpus[0]).toMatchObject({
        gpuMemoryMiB: 9728,
        mig: { profileName: '1g.10gb' },
      });
      expect(placed(fresh().tryPlace(migJob(1, 500, null))).gpus[0]).toMatchObject({
        gpuMemoryMiB: 40192,
        mig: { profileName: '4g.40gb', start: 0 },
      });
      expect(placed(fresh().tryPlace(migJob(1, 1000, null))).gpus[0]).toMatchObject({
        gpuMemoryMiB: 80896,
        mig: { profileName: '7g.80gb', start: 0, size: 8, computeSlices: 7 },
      });
      expect(whyUnresolvable(migJob(1, 1000, null), [migGpu(0)], { cpuMilli: 1, hostMemoryMiB: 1 })).toBeNull();
    },
  );

  it('a MIG GPU never takes mps, timeslice or exclusive jobs, and reports mode mig even when empty', () => {
    const s = scheduler([migGpu(0)]);
    expect(usageOf(s, 0)).toEqual({ mode: 'mig', milli: 0, memory: 0, jobs: [] });
    for (const mode of ['mps', 'timeslice', 'exclusive', 'auto'] as const) {
      expect(
        reasonOf(
          s.tryPlace(job(1, { gpuMilli: mode === 'exclusive' || mode === 'auto' ? 1000 : 100, gpuMemoryMiB: 1, mode })),
        ),
      ).toContain('at most 0 qualify now');
    }
    const mixed = scheduler([migGpu(0), gpu(1)]);
    expect(indices(placed(mixed.tryPlace(job(1, { gpuMilli: 100, gpuMemoryMiB: 1 }))))).toEqual([1]);
    expect(indices(placed(mixed.tryPlace(migJob(2, 100, 1))))).toEqual([0]);
    expect(reasonOf(mixed.tryPlace(job(3, { gpuMilli: 100, gpuMemoryMiB: 1, mode: 'timeslice' })))).toContain(
      'at most 0 qualify now',
    );
  });

  it('a mig job waits without a MIG GPU, and skips unschedulable MIG GPUs', () => {
    expect(reasonOf(scheduler([gpu(0)]).tryPlace(migJob(1, 100, 1)))).toBe(
      'waiting for a schedulable MIG GPU whose profiles cover the request',
    );
    const s = scheduler([gpu(0, 'A100-80GB', { migEnabled: true, schedulable: false }), migGpu(1)]);
    expect(indices(placed(s.tryPlace(migJob(1, 100, 1))))).toEqual([1]);
    expect(
      reasonOf(scheduler([gpu(0, 'A100-80GB', { migEnabled: true, schedulable: false })]).tryPlace(migJob(1, 100, 1))),
    ).toBe('waiting for a schedulable MIG GPU whose profiles cover the request');
  });

  it('fills the fullest MIG GPU first, and gives a multi-GPU job distinct GPUs of one model', () => {
    const s = scheduler([migGpu(0), migGpu(1), migGpu(2, 'H100-80GB')]);
    expect(indices(placed(s.tryPlace(migJob(1, 100, 1))))).toEqual([0]);
    expect(indices(placed(s.tryPlace(migJob(2, 100, 1))))).toEqual([0]);
    const pair = placed(s.tryPlace(migJob(3, 400, 1, 2)));
    expect(indices(pair)).toEqual([0, 1]);
    // 400 milli = 2.8 of 7 compute slices
    expect(pair.gpus.map((g) => g.mig!.profileName)).toEqual(['3g.40gb', '3g.40gb']);
    // GPU 1 and the H100 have room for another 3g, but not two of one model
    expect(reasonOf(s.tryPlace(migJob(4, 400, 1, 2)))).toBe(
      'waiting for 2 MIG GPU(s) of one model with room for the instance; 1 have room now',
    );
    const models = scheduler([migGpu(0), migGpu(1, 'H100-80GB')]);
    expect(models.tryPlace(migJob(1, 100, 1, 2)).kind).toBe('waiting');
    expect(
      whyUnresolvable(migJob(1, 100, 1, 2), [migGpu(0), migGpu(1, 'H100-80GB')], { cpuMilli: 1, hostMemoryMiB: 1 }),
    ).toContain('gpuCount 2 exceeds the 1 MIG GPU(s) of one model');
  });

  it('a GPU taken out of MIG mode while empty takes shared jobs', () => {
    const s = scheduler([migGpu(0)]);
    s.setGpus([gpu(0)]);
    expect(usageOf(s, 0)).toEqual({ mode: null, milli: 0, memory: 0, jobs: [] });
    expect(placed(s.tryPlace(job(1, { gpuMilli: 300, gpuMemoryMiB: 1 }))).mode).toBe('mps');
    s.release(1);
    s.setGpus([migGpu(0)]);
    expect(placed(s.tryPlace(migJob(2, 100, 1))).mode).toBe('mig');
  });

  it('a GPU whose MIG mode changes under held jobs keeps its old mode, unschedulable, until they leave', () => {
    const s = scheduler([gpu(0), gpu(1)]);
    const p = placed(s.tryPlace(job(1, { gpuMilli: 300, gpuMemoryMiB: 2048 })));
    const [index] = indices(p);
    const list = (migOn: number) => [0, 1].map((i) => (i === migOn ? migGpu(i) : gpu(i)));
    s.setGpus(list(index!));
    expect(s.gpus().find((g) => g.index === index)).toEqual(gpu(index!, 'A100-80GB', { schedulable: false }));
    expect(usageOf(s, index!)).toEqual({ mode: 'mps', milli: 300, memory: 2048, jobs: [1] });
    expect(s.tryPlace(job(2, { gpuMilli: 100, gpuMemoryMiB: 1, mode: 'mig' })).kind).toBe('waiting');
    s.release(1);
    expect(s.gpus().find((g) => g.index === index)).toEqual(migGpu(index!));
    expect(indices(placed(s.tryPlace(job(3, { gpuMilli: 100, gpuMemoryMiB: 1, mode: 'mig' }))))).toEqual([index]);

    // and the other way round: MIG switched off under a mig job
    const m = scheduler([migGpu(0)]);
    placed(m.tryPlace(migJob(1, 100, 1)));
    m.setGpus([gpu(0)]);
    expect(m.gpus()).toEqual([gpu(0, 'A100-80GB', { migEnabled: true, schedulable: false })]);
    expect(usageOf(m, 0)).toEqual({ mode: 'mig', milli: 0, memory: 9728, jobs: [1] });
    expect(m.tryPlace(job(2, { gpuMilli: 100, gpuMemoryMiB: 1 })).kind).toBe('waiting');
    m.release(1);
    expect(m.gpus()).toEqual([gpu(0)]);
    expect(placed(m.tryPlace(job(2, { gpuMilli: 100, gpuMemoryMiB: 1 }))).mode).toBe('mps');
  });

  it('placements keep every MIG layout valid', () => {
    const s = scheduler([migGpu(0)]);
    const instances = [];
    for (let id = 1; id <= 10; id++) {
      const outcome = s.tryPlace(migJob(id, 100, 1));
      if (outcome.kind === 'placed') instances.push(outcome.placement.gpus[0]!.mig!);
    }
    expect(instances).toHaveLength(7);
    expect(
      isValidLayout(
        'A100-80GB',
        instances.map((i) => ({ ...i, inUse: true })),
      ),
    ).toBe(true);
  });
});

describe('OneNodeCluster: host resources', () => {
  it('checks cpuMilli and hostMemoryMiB against the server totals, and frees them on release', () => {
    const s = scheduler([gpu(0), gpu(1)], { hostCpuMilli: 4000, hostMemoryMiB: 8192 });
    placed(s.tryPlace(job(1, { gpuMilli: 100, gpuMemoryMiB: 1 }, { cpuMilli: 3000, hostMemoryMiB: 1024 })));
    expect(reasonOf(s.tryPlace(job(2, { gpuMilli: 100, gpuMemoryMiB: 1 }, { cpuMilli: 3000 })))).toBe(
      'waiting for host CPU: needs 3000 cpuMilli, 1000 free',
    );
    expect(reasonOf(s.tryPlace(job(3, { gpuMilli: 100, gpuMemoryMiB: 1 }, { hostMemoryMiB: 7169 })))).toBe(
      'waiting for host memory: needs 7169 MiB, 7168 free',
    );
    placed(s.tryPlace(job(4, { gpuMilli: 100, gpuMemoryMiB: 1 }, { cpuMilli: 1000, hostMemoryMiB: 7168 })));
    s.release(1);
    placed(s.tryPlace(job(2, { gpuMilli: 100, gpuMemoryMiB: 1 }, { cpuMilli: 3000 })));
  });
});

describe('OneNodeCluster: runPass and queue order', () => {
  it('places the higher priority first when only one fits, then the earlier submit, then the lower id', () => {
    const whole = { gpuMilli: 1000 };
    const cases: { jobs: JobRequest[]; winner: number }[] = [
      { jobs: [job(1, whole, { priority: 100 }), job(2, whole, { priority: 900, submittedAtMs: 99_999 })], winner: 2 },
      { jobs: [job(1, whole, { submittedAtMs: 5 }), job(2, whole, { submittedAtMs: 4 })], winner: 2 },
      { jobs: [job(7, whole, { submittedAtMs: 5 }), job(3, whole, { submittedAtMs: 5 })], winner: 3 },
    ];
    for (const { jobs, winner } of cases) {
      for (const input of [jobs, [...jobs].reverse()]) {
        const { placed: done, waiting } = scheduler([gpu(0)]).runPass(input);
        expect(done.map((p) => p.jobId)).toEqual([winner]);
        expect([...waiting.keys()]).toEqual(jobs.map((j) => j.id).filter((id) => id !== winner));
      }
    }
  });

  it('backfills: a small job behind a blocked big one is still placed', () => {
    const s = scheduler([gpu(0), gpu(1)]);
    placed(s.tryPlace(job(1, { gpuMilli: 500, gpuMemoryMiB: 1024 })));
    const big = job(2, { gpuCount: 2, gpuMilli: 1000 }, { priority: 1000 });
    const small = job(3, { gpuMilli: 400, gpuMemoryMiB: 1024 }, { priority: 100 });
    const result = s.runPass([small, big]);
    expect(result.placed.map((p) => p.jobId)).toEqual([3]);
    expect(result.waiting).toEqual(
      new Map([
        [
          2,
          'waiting for 2 GPU(s) of one model with 1000 free milli-GPU and proportional free memory in ' +
            'mode exclusive; at most 1 qualify now',
        ],
      ]),
    );
    expect(s.isHeld(3)).toBe(true);
  });

  it('returns placements in queue order across passes whose queue changes', () => {
    const s = scheduler([gpu(0), gpu(1)]);
    const small = (id: number, priority: number, submittedAtMs: number) =>
      job(id, { gpuMilli: 10, gpuMemoryMiB: 1 }, { priority, submittedAtMs });
    const first = [small(1, 500, 30), small(2, 900, 40), small(3, 500, 10), small(4, 100, 0), small(5, 500, 30)];
    expect(s.runPass(first).placed.map((p) => p.jobId)).toEqual([2, 3, 1, 5, 4]);
    for (const id of [1, 2, 3, 4, 5]) s.release(id);
    const second = [first[4]!, small(6, 1000, 99), first[0]!, small(7, 500, 20), first[3]!, small(8, 100, -1)];
    expect(s.runPass(second).placed.map((p) => p.jobId)).toEqual([6, 7, 1, 5, 8, 4]);
    for (const id of [1, 4, 5, 6, 7, 8]) s.release(id);
    expect(s.runPass([small(9, 1, 1), first[3]!]).placed.map((p) => p.jobId)).toEqual([4, 9]);
    expect(s.runPass([]).placed).toEqual([]);
  });

  it(
    'gives an equal mig request that failed the same reason later in the pass, and retries it after a ' + 'placement',
    () => {
      const s = scheduler([migGpu(0)]);
      placed(s.tryPlace(job(1, { gpuMilli: 1000, mode: 'mig' })));
      const result = s.runPass([
        job(2, { gpuMilli: 100, gpuMemoryMiB: 1, mode: 'mig' }),
        job(3, { gpuMilli: 100, gpuMemoryMiB: 1, mode: 'mig' }),
      ]);
      expect(result.placed).toEqual([]);
      expect([...result.waiting.values()]).toEqual([
        'waiting for 1 MIG GPU(s) of one model with room for the instance; 0 have room now',
        'waiting for 1 MIG GPU(s) of one model with room for the instance; 0 have room now',
      ]);
      s.release(1);
      expect(
        s
          .runPass([
            job(2, { gpuMilli: 100, gpuMemoryMiB: 1, mode: 'mig' }),
            job(3, { gpuMilli: 100, gpuMemoryMiB: 1, mode: 'mig' }),
          ])
          .placed.map((p) => p.jobId),
      ).toEqual([2, 3]);
    },
  );
});

describe('OneNodeCluster: hold and release', () => {
  const share = (index: number, accountedGpuMilli: number, gpuMemoryMiB: number, gpuMilli = accountedGpuMilli) => ({
    index,
    uuid: `GPU-${index}`,
    gpuMilli,
    accountedGpuMilli,
    gpuMemoryMiB,
    mig: null,
  });
  const alloc = (jobId: number, placement: Placement, cpuMilli = 0): TestAssignment => ({
    jobId,
    cpuMilli,
    hostMemoryMiB: 0,
    placement,
  });

  it('re-adopts an allocation, which later placements respect', () => {
    const s = scheduler([gpu(0), gpu(1)]);
    s.hold(alloc(10, { mode: 'mps', gpus: [share(1, 700, 70_000)] }, 1000));
    expect(usageOf(s, 1)).toEqual({ mode: 'mps', milli: 700, memory: 70_000, jobs: [10] });
    expect(indices(placed(s.tryPlace(job(1, { gpuMilli: 400, gpuMemoryMiB: 1 }))))).toEqual([0]);
    expect(reasonOf(s.tryPlace(job(2, { gpuMilli: 1000 })))).toContain('at most 0 qualify now');
  });

  it('throws InvariantViolation for an allocation that does not fit, changing nothing', () => {
    const s = scheduler([gpu(0), gpu(1), migGpu(2)]);
    s.hold(alloc(1, { mode: 'mps', gpus: [share(0, 600, 1024)] }));
    const bad: [string, TestAssignment][] = [
      ['compute over-commit', alloc(2, { mode: 'mps', gpus: [share(0, 600, 1024)] })],
      ['memory over-commit', alloc(2, { mode: 'mps', gpus: [share(0, 100, 81_000)] })],
      ['second GPU over-committed', alloc(2, { mode: 'mps', gpus: [share(1, 500, 1024), share(0, 500, 1024)] })],
      ['other mode', alloc(2, { mode: 'timeslice', gpus: [share(0, 100, 1024)] })],
      ['exclusive on a busy GPU', alloc(2, { mode: 'exclusive', gpus: [share(1, 1000, A100), share(0, 1000, A100)] })],
      ['already held', alloc(1, { mode: 'mps', gpus: [share(1, 100, 1024)] })],
      ['unknown GPU', alloc(2, { mode: 'mps', gpus: [share(1, 100, 1024), share(9, 100, 1024)] })],
      ['same GPU twice', alloc(2, { mode: 'mps', gpus: [share(1, 100, 1024), share(1, 100, 1024)] })],
      ['no GPU', alloc(2, { mode: 'mps', gpus: [] })],
      ['shares differ per GPU', alloc(2, { mode: 'mps', gpus: [share(1, 100, 1024), share(0, 200, 1024)] })],
      ['shared mode on a MIG GPU', alloc(2, { mode: 'mps', gpus: [share(2, 100, 1024)] })],
      [
        'mig on a non-MIG GPU after a MIG one',
        alloc(2, {
          mode: 'mig',
          gpus: [
            {
              ...share(2, 0, 9728),
              mig: { profileId: 19, profileName: '1g.10gb', start: 6, size: 1, computeSlices: 1 },
            },
            {
              ...share(1, 0, 9728),
              mig: { profileId: 19, profileName: '1g.10gb', start: 6, size: 1, computeSlices: 1 },
            },
          ],
        }),
      ],
      ['mig without an instance', alloc(2, { mode: 'mig', gpus: [share(2, 0, 9728)] })],
      [
        'mig instance at an invalid start',
        alloc(2, {
          mode: 'mig',
          gpus: [
            {
              ...share(2, 0, 40192),
              mig: { profileId: 5, profileName: '4g.40gb', start: 4, size: 4, computeSlices: 4 },
            },
          ],
        }),
      ],
    ];
    const before = s.usage();
    for (const [what, allocation] of bad) {
      expect(() => s.hold(allocation), what).toThrow(InvariantViolation);
      expect(s.usage(), what).toEqual(before);
      expect(s.isHeld(2), what).toBe(false);
    }
    // nothing leaked: the MIG GPU is still empty, GPU 1 still takes a whole-GPU job
    expect(placed(s.tryPlace(job(3, { gpuMilli: 100, gpuMemoryMiB: 1, mode: 'mig' }))).gpus[0]!.mig!.start).toBe(6);
    expect(indices(placed(s.tryPlace(job(4, { gpuMilli: 1000 }))))).toEqual([1]);
  });

  it('throws for a MIG instance overlapping a held one', () => {
    const s = scheduler([migGpu(0)]);
    const p = placed(s.tryPlace(job(1, { gpuMilli: 300, gpuMemoryMiB: 1, mode: 'mig' })));
    const instance = p.gpus[0]!.mig!;
    expect(instance).toMatchObject({ profileName: '3g.40gb', start: 4 });
    expect(() => s.hold(alloc(2, p))).toThrow('the GI at 4 on GPU 0 is used by job 1');
    const oneG = { profileId: 19, profileName: '1g.10gb', size: 1, computeSlices: 1 };
    expect(() =>
      s.hold(alloc(2, { mode: 'mig', gpus: [{ ...share(0, 0, 9728), mig: { ...oneG, start: 5 } }] })),
    ).toThrow(InvariantViolation);
    s.hold(alloc(2, { mode: 'mig', gpus: [{ ...share(0, 0, 9728), mig: { ...oneG, start: 3 } }] }));
    expect(usageOf(s, 0).jobs).toEqual([1, 2]);
  });

  it('may hold on an unschedulable GPU (a re-adopted job)', () => {
    const s = scheduler([gpu(0, 'A100-80GB', { schedulable: false })]);
    s.hold(alloc(1, { mode: 'exclusive', gpus: [share(0, 1000, A100)] }));
    expect(usageOf(s, 0)).toEqual({ mode: 'exclusive', milli: 1000, memory: A100, jobs: [1] });
  });

  it('release of an unknown or already released job is a no-op', () => {
    const s = scheduler([gpu(0)]);
    placed(s.tryPlace(job(1, { gpuMilli: 500, gpuMemoryMiB: 1024 })));
    const before = s.usage();
    s.release(99);
    expect(s.usage()).toEqual(before);
    s.release(1);
    s.release(1);
    expect(usageOf(s, 0)).toEqual({ mode: null, milli: 0, memory: 0, jobs: [] });
  });
});
