import { describe, expect, it } from 'vitest';
import { PRIORITY_CLASSES } from '../../core/index.js';
import { sharingGpuModel } from '../hybrid/pod-mode.js';
import type { TimelineJob } from '../timeline/timeline-jobs.js';
import { hybridRequestOf, isolationOfPriority, sharingCeiling, wholeGpuJob } from './pool-jobs.js';

function job(id: number, gpuCount: number, gpuMilli: number, durationSeconds: number, priority: number): TimelineJob {
  return {
    id,
    name: `j${id}`,
    request: { cpuMilli: 6000, hostMemoryMiB: 1024, gpuCount, gpuMilli, gpuMemoryMiB: 0, allowedGpuModels: [] },
    priority,
    arrivalSeconds: 60 * id,
    durationSeconds,
  };
}

const { critical, normal, low } = PRIORITY_CLASSES;

describe('the jobs of each scenario', () => {
  it('rounds shares up to whole GPUs and leaves whole-GPU and CPU-only jobs as they are', () => {
    expect(wholeGpuJob(job(1, 1, 460, 10, low)).request.gpuMilli).toBe(1000);
    const whole = job(2, 2, 1000, 10, low);
    expect(wholeGpuJob(whole)).toBe(whole);
    const cpu = job(3, 0, 0, 10, low);
    expect(wholeGpuJob(cpu)).toBe(cpu);
  });

  it('gives each job of the hybrid scenario the mode of its isolation on an A100-80GB', () => {
    expect([critical, PRIORITY_CLASSES.high, normal, low].map(isolationOfPriority)).toEqual([
      'strict',
      'standard',
      'standard',
      'none',
    ]);
    const requestOf = hybridRequestOf(sharingGpuModel('A100-80GB')!);
    const strict = requestOf(job(1, 1, 460, 10, critical), 'trace');
    expect(strict).toMatchObject({ id: 1, priority: critical, submittedAtMs: 60_000, cpuMilli: 6000 });
    expect(strict.gpu).toEqual({ gpuCount: 1, gpuMilli: 460, gpuMemoryMiB: 37_683, mode: 'mig' });
    expect(requestOf(job(2, 1, 460, 10, normal), 'trace').gpu.mode).toBe('mps');
    expect(requestOf(job(3, 1, 460, 10, low), 'trace').gpu.mode).toBe('timeslice');
    expect(requestOf(job(4, 2, 1000, 10, low), 'trace').gpu).toEqual({
      gpuCount: 2,
      gpuMilli: 1000,
      gpuMemoryMiB: null,
      mode: 'exclusive',
    });
  });
});

describe('sharingCeiling', () => {
  it('is 1 − GPU-hours asked ÷ GPU-hours rounded up to whole GPUs', () => {
    const ceiling = sharingCeiling([job(1, 1, 460, 3600, low), job(2, 2, 1000, 1800, low), job(3, 0, 0, 3600, low)]);
    // asked: 0.46 + 1 GPU-h; rounded: 1 + 1 GPU-h.
    expect(ceiling.fractionalGpuHours).toBeCloseTo(1.46, 10);
    expect(ceiling.wholeGpuHours).toBeCloseTo(2, 10);
    expect(ceiling.ceiling).toBeCloseTo(0.27, 10);
    expect(sharingCeiling([]).ceiling).toBe(0);
    // Job 1 runs alone and job 2 holds whole GPUs: nothing packs, so the packing bound saves nothing.
    expect(ceiling.packedGpuHours).toBeCloseTo(2, 10);
    expect(ceiling.packingBound).toBeCloseTo(0, 10);
  });

  it('packs only the shares of jobs that run at the same time', () => {
    const at = (j: TimelineJob, arrivalSeconds: number): TimelineJob => ({ ...j, arrivalSeconds });
    const ceiling = sharingCeiling([
      at(job(1, 1, 460, 7200, low), 0),
      at(job(2, 1, 460, 7200, low), 3600),
      at(job(3, 1, 810, 3600, low), 0),
      at(job(4, 1, 300, 3600, low), 0),
    ]);
    // [0, 1 h): 0.46 + 0.81 + 0.30 → 2 GPUs; [1 h, 2 h): 0.46 + 0.46 → 1; [2 h, 3 h): 0.46 → 1.
    expect(ceiling.packedGpuHours).toBeCloseTo(4, 10);
    expect(ceiling.wholeGpuHours).toBeCloseTo(6, 10);
    expect(ceiling.packingBound).toBeCloseTo(1 / 3, 10);
    expect(ceiling.ceiling).toBeCloseTo(1 - 2.95 / 6, 10);
  });

  it('gives every share above half a GPU a GPU of its own', () => {
    const three = [1, 2, 3].map((id) => ({ ...job(id, 1, 600, 3600, low), arrivalSeconds: 0 }));
    const ceiling = sharingCeiling(three);
    // Σ shares is 1.8 GPUs, but no two of them fit one GPU.
    expect(ceiling.packedGpuHours).toBeCloseTo(3, 10);
    expect(ceiling.packingBound).toBeCloseTo(0, 10);
    expect(ceiling.ceiling).toBeCloseTo(0.4, 10);
  });
});
