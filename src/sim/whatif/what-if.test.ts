import { describe, expect, it } from 'vitest';
import { historyJobs, type HistoryRecord } from './history-jobs.js';
import { rightSize } from './right-size.js';
import { runWhatIf, type WhatIfOptions } from './run-what-if.js';
import { fixedNodes, replayFixed, smallestFixed, whatIfRequest } from './what-if-replay.js';

type Row = HistoryRecord;

function row(name: string, overrides: Partial<Row> = {}): Row {
  return {
    name,
    cpuMilli: 1000,
    hostMemoryMiB: 4096,
    gpuCount: 1,
    gpuMilli: 500,
    allowedGpuModels: [],
    gpuSpec: '',
    qos: null,
    creationTimeSeconds: 1_000,
    scheduledTimeSeconds: 1_000,
    deletionTimeSeconds: 4_600,
    tenant: 'team-a',
    priority: 500,
    sharingMode: 'mps',
    gpuMemoryMiB: 40_960,
    measuredGpuMemoryMiB: null,
    measuredGpuUtilPct: null,
    ...overrides,
  };
}

const SHAPE = { gpuModel: 'A100-80GB', gpusPerNode: 8, cpuMilli: 128_000, hostMemoryMiB: 1_048_576 };
const SETTINGS = { shape: SHAPE, seed: 42, preemption: false, checkpointIntervalSeconds: 1800 };

/** `n` half-GPU, 40 GiB jobs of an hour, one a minute, that peaked at 10 GiB and 20% of a GPU. */
function inferenceHistory(n: number) {
  return historyJobs(
    Array.from({ length: n }, (_, i) =>
      row(`infer-${i + 1}`, {
        creationTimeSeconds: 1_000 + 60 * i,
        scheduledTimeSeconds: 1_000 + 60 * i + (i % 4) * 10,
        deletionTimeSeconds: 1_000 + 60 * i + (i % 4) * 10 + 3_600,
        measuredGpuMemoryMiB: 10_240,
        measuredGpuUtilPct: 20,
      }),
    ),
    () => 500,
  );
}

describe('historyJobs', () => {
  it('orders jobs by submit, with arrivals from the first, run times, waits and workloads', () => {
    const h = historyJobs(
      [
        row('train-12', { creationTimeSeconds: 2_000, scheduledTimeSeconds: 2_030, deletionTimeSeconds: 2_630 }),
        row('infer-3', { sharingMode: 'mig', tenant: null, priority: null, qos: 'LS' }),
        row('broken-1', { scheduledTimeSeconds: 5_000, deletionTimeSeconds: 4_000 }),
      ],
      (qos) => (qos === 'LS' ? 900 : 0),
    );
    expect(h.skippedNegativeRunTime).toBe(1);
    expect(h.jobs.map((j) => [j.job.id, j.job.name, j.job.arrivalSeconds, j.job.durationSeconds])).toEqual([
      [0, 'infer-3', 0, 3_600],
      [1, 'train-12', 1_000, 600],
    ]);
    expect(h.jobs.map((j) => [j.tenant, j.job.priority, j.mode, j.observedWaitSeconds, j.workload])).toEqual([
      ['trace', 900, 'mps', 0, 'trace/infer'],
      ['team-a', 500, 'mps', 30, 'team-a/train'],
    ]);
  });
});

describe('whatIfRequest', () => {
  const [h] = inferenceHistory(1).jobs;
  it('places shares in their mode with their memory, whole GPUs exclusive, sized ones as advised', () => {
    expect(whatIfRequest(h!, { kind: 'shared' }).gpu).toEqual({
      gpuCount: 1,
      gpuMilli: 500,
      gpuMemoryMiB: 40_960,
      mode: 'mps',
      allowedGpuModels: [],
    });
    expect(whatIfRequest(h!, { kind: 'whole' }).gpu).toMatchObject({
      gpuMilli: 1000,
      gpuMemoryMiB: null,
      mode: 'exclusive',
    });
    const sized = whatIfRequest(h!, { kind: 'sized', sizes: new Map([[0, { gpuMilli: 240, gpuMemoryMiB: 12_288 }]]) });
    expect(sized.gpu).toMatchObject({ gpuMilli: 240, gpuMemoryMiB: 12_288, mode: 'mps' });
  });
});

describe('fixedNodes', () => {
  it('makes full nodes and trims the last one, CPU and memory in proportion', () => {
    const nodes = fixedNodes(SHAPE, 19);
    expect(nodes.map((n) => [n.name, n.gpus.length, n.hostCpuMilli, n.hostMemoryMiB])).toEqual([
      ['node-000', 8, 128_000, 1_048_576],
      ['node-001', 8, 128_000, 1_048_576],
      ['node-002', 3, 48_000, 393_216],
    ]);
    expect(nodes[0]!.gpus[0]!.gpuMemoryMiB).toBe(81_920);
  });
});

describe('smallestFixed', () => {
  it('finds the fewest GPUs at the p95 wait: two half-GPU jobs of 40 GiB share an 80 GB GPU', () => {
    const h = inferenceHistory(12);
    const shared = smallestFixed(h, 'default', { kind: 'shared' }, 0, SETTINGS);
    const whole = smallestFixed(h, 'default', { kind: 'whole' }, 0, SETTINGS);
    // 12 jobs of an hour arriving a minute apart all overlap: 12 whole GPUs, 6 shared.
    expect(whole.found?.gpus).toBe(12);
    expect(shared.found?.gpus).toBe(6);
    expect(replayFixed(h, 5, 'default', { kind: 'shared' }, SETTINGS).waitP95Seconds).toBeGreaterThan(0);
  });
});

describe('rightSize', () => {
  it('advises the peak plus the headroom, rounded up, for compute and memory', () => {
    const advice = rightSize(inferenceHistory(3).jobs, { headroom: 0.2, gpuMemoryMiB: 81_920 });
    expect(advice.workloads).toHaveLength(1);
    const w = advice.workloads[0]!;
    expect(w).toMatchObject({ workload: 'team-a/infer', jobs: 3, measuredJobs: 3, gpuCount: 1 });
    // 10,240 MiB × 1.2 = 12,288 MiB (a multiple of 256); 20% × 1.2 = 240 milli-GPU.
    expect(w.gpuMemoryMiB).toEqual({ requested: 40_960, peak: 10_240, recommended: 12_288, basis: 'measured-peak' });
    expect(w.gpuMilli).toEqual({ requested: 500, peak: 200, recommended: 240, basis: 'measured-peak' });
    expect(w.jobsPerGpu).toEqual({ asked: 2, advised: 4, askedBinding: 'both', advisedBinding: 'compute' });
    expect(w.requestedGpuHours).toBeCloseTo(1.5, 10);
    expect(w.recommendedGpuHours).toBeCloseTo(0.72, 10);
    expect([...advice.sizes.values()]).toEqual([
      { gpuMilli: 240, gpuMemoryMiB: 12_288 },
      { gpuMilli: 240, gpuMemoryMiB: 12_288 },
      { gpuMilli: 240, gpuMemoryMiB: 12_288 },
    ]);
  });

  it('keeps what was not measured, raises what peaked above the request, and skips unmeasured workloads', () => {
    const h = historyJobs(
      [
        row('a-1', { gpuMemoryMiB: 0, measuredGpuMemoryMiB: 50_000 }),
        row('b-1', { measuredGpuMemoryMiB: null, measuredGpuUtilPct: null }),
      ],
      () => 500,
    );
    const advice = rightSize(h.jobs, { headroom: 0.1, gpuMemoryMiB: 81_920 });
    expect(advice.workloads.map((w) => w.workload)).toEqual(['team-a/a']);
    // No memory named: the request is the server's default, half of 81,920 MiB; 50,000 × 1.1 → 55,040.
    expect(advice.workloads[0]!.gpuMemoryMiB).toEqual({
      requested: 40_960,
      peak: 50_000,
      recommended: 55_040,
      basis: 'measured-peak',
    });
    expect(advice.workloads[0]!.gpuMilli).toEqual({
      requested: 500,
      peak: null,
      recommended: 500,
      basis: 'not-measured',
    });
    expect(() => rightSize(h.jobs, { headroom: -0.1, gpuMemoryMiB: 81_920 })).toThrow(RangeError);
  });
});

describe('runWhatIf', () => {
  const options: WhatIfOptions = {
    ...SETTINGS,
    waitTargetSeconds: null,
    policies: ['default', 'gpu-packing'],
    headroom: 0.2,
    autoscale: { bootSeconds: 300, intervalSeconds: 60 },
  };

  it('sizes the history with and without sharing and right-sized, and names the policy', () => {
    const report = runWhatIf(inferenceHistory(40), options);
    expect(report.observed).toMatchObject({ waitP95Seconds: 30, requestedGpuHours: 20, wholeGpuHours: 40 });
    expect(report.target).toEqual({ waitP95Seconds: 30, source: 'history' });
    expect(report.whole.gpus).toBe(38);
    expect(report.shared.map((s) => [s.policy, s.gpus])).toEqual([
      ['default', 19],
      ['gpu-packing', 19],
    ]);
    expect(report.recommendedPolicy).toBe('default');
    // 240 milli-GPU and 12 GiB: four jobs a GPU.
    expect(report.rightSizing.pool?.gpus).toBe(10);
    expect(report.autoscaled?.shared.peakGpus).toBe(24);
  });

  it('saves no GPU when only memory was measured and compute, kept, still binds', () => {
    const memoryOnly = historyJobs(
      inferenceHistory(40).jobs.map((h) =>
        row(h.job.name, {
          creationTimeSeconds: 1_000 + h.job.arrivalSeconds,
          scheduledTimeSeconds: 1_000 + h.job.arrivalSeconds + h.observedWaitSeconds,
          deletionTimeSeconds: 1_000 + h.job.arrivalSeconds + h.observedWaitSeconds + 3_600,
          measuredGpuMemoryMiB: 10_240,
        }),
      ),
      () => 500,
    );
    const report = runWhatIf(memoryOnly, { ...options, autoscale: null });
    const w = report.rightSizing.workloads[0]!;
    expect(w.gpuMilli.basis).toBe('not-measured');
    expect(w.gpuMemoryMiB.recommended).toBe(12_288);
    expect(w.jobsPerGpu).toEqual({ asked: 2, advised: 2, askedBinding: 'both', advisedBinding: 'compute' });
    expect([report.shared[0]!.gpus, report.rightSizing.pool?.gpus]).toEqual([19, 19]);
  });

  it('tells its progress as each search ends', () => {
    const told: string[] = [];
    runWhatIf(inferenceHistory(8), { ...options, autoscale: null, onProgress: (m) => told.push(m) });
    expect(told).toEqual([
      '1/4 whole GPUs: 8 GPUs',
      '2/4 sharing, default: 4 GPUs',
      '3/4 sharing, gpu-packing: 4 GPUs',
      '4/4 right-sized: 2 GPUs',
    ]);
  });

  it('gives the same figures for the same history', () => {
    const a = runWhatIf(inferenceHistory(25), options);
    const b = runWhatIf(inferenceHistory(25), options);
    expect(JSON.stringify({ ...b, rightSizing: { ...b.rightSizing, sizes: [...b.rightSizing.sizes] } })).toBe(
      JSON.stringify({ ...a, rightSizing: { ...a.rightSizing, sizes: [...a.rightSizing.sizes] } }),
    );
  });

  it('refuses a model without a known device memory and an empty history', () => {
    expect(() => runWhatIf(inferenceHistory(2), { ...options, shape: { ...SHAPE, gpuModel: 'G2' } })).toThrow(
      /not a catalog model with a known device memory/,
    );
    expect(() =>
      runWhatIf(
        historyJobs([], () => 0),
        options,
      ),
    ).toThrow(/no job that ran/);
  });
});
