/**
 * Right-sizing advice for GPU requests (docs/what-if.md "Right-sizing"): for each workload of a
 * history whose use was measured, the request that would have held its observed peak with a stated
 * headroom — as Kubernetes' Vertical Pod Autoscaler recommends CPU and memory from observed use, for
 * GPU compute shares and device memory. Advice only: pure, nothing here changes a job.
 *
 * Per GPU of a job: device memory = ⌈peak memory × (1 + headroom)⌉ to the next `memoryStepMiB`, at
 * most the GPU's memory; compute = ⌈peak utilization % × 10 × (1 + headroom)⌉ milli-GPU to the next
 * `milliStep`, from one step to 1000. A quantity that was not measured keeps its request. The peak of
 * a workload is the largest peak of its jobs.
 */
import type { GpuSize } from './what-if-replay.js';
import type { HistoryJob } from './history-jobs.js';

/** How advice is made. */
export interface RightSizeOptions {
  /** Added to the observed peak, a fraction ≥ 0 (0.2: 20% above the peak). */
  readonly headroom: number;
  /** Device memory of the GPU model the history is sized for, MiB (the most a request can name). */
  readonly gpuMemoryMiB: number;
  /** Memory requests are rounded up to a multiple of this, MiB. @defaultValue 256 */
  readonly memoryStepMiB?: number;
  /** Compute requests are rounded up to a multiple of this, milli-GPU. @defaultValue 10 */
  readonly milliStep?: number;
}

/** What advice rests on for one quantity: a measured peak, or nothing measured (the request is kept). */
export type AdviceBasis = 'measured-peak' | 'not-measured';

/** Which quantity of a request limits how many jobs a GPU holds. */
export type Binding = 'compute' | 'memory' | 'both';

/** The advice for one quantity of a request (per GPU). */
export interface QuantityAdvice {
  /** As asked (memory: a request that named none gets the server's default, its compute share of the device). */
  readonly requested: number;
  /** The largest peak measured, in the quantity's unit (MiB, or milli-GPU from %); null: not measured. */
  readonly peak: number | null;
  readonly recommended: number;
  readonly basis: AdviceBasis;
}

/** The advice for one workload (jobs of one tenant and name, docs/what-if.md). */
export interface WorkloadAdvice {
  readonly workload: string;
  readonly jobs: number;
  /** Jobs with a measured memory or utilization peak. */
  readonly measuredJobs: number;
  readonly gpuCount: number;
  /** Per GPU, MiB. */
  readonly gpuMemoryMiB: QuantityAdvice;
  /** Per GPU, milli-GPU. */
  readonly gpuMilli: QuantityAdvice;
  /**
   * Jobs of the workload one GPU holds (single-GPU view): as asked and as advised, and which
   * quantity binds (`compute`: 1000 ÷ milli-GPU; `memory`: the GPU's memory ÷ the request's; `both`).
   */
  readonly jobsPerGpu: {
    readonly asked: number;
    readonly advised: number;
    readonly askedBinding: Binding;
    readonly advisedBinding: Binding;
  };
  /** GPU-hours its jobs asked for (compute shares × run time) as asked and as advised. */
  readonly requestedGpuHours: number;
  readonly recommendedGpuHours: number;
}

/** Advice for every workload with a measured job, and the sizes the replay gives each job. */
export interface RightSizing {
  readonly headroom: number;
  readonly workloads: readonly WorkloadAdvice[];
  /** The advised size of every job of an advised workload, by job id. */
  readonly sizes: ReadonlyMap<number, GpuSize>;
}

function roundUp(value: number, step: number): number {
  return Math.ceil(value / step - 1e-9) * step;
}

/**
 * Advice for the GPU jobs of `jobs` whose workload has at least one measured job.
 * @throws RangeError for a headroom not ≥ 0, a GPU memory not > 0 or a step not > 0
 */
export function rightSize(jobs: readonly HistoryJob[], options: RightSizeOptions): RightSizing {
  const { headroom, gpuMemoryMiB: deviceMiB } = options;
  const memoryStep = options.memoryStepMiB ?? 256;
  const milliStep = options.milliStep ?? 10;
  if (!(headroom >= 0 && Number.isFinite(headroom))) throw new RangeError(`headroom must be ≥ 0, got ${headroom}`);
  if (!(deviceMiB > 0)) throw new RangeError(`gpuMemoryMiB must be > 0, got ${deviceMiB}`);
  if (!(memoryStep > 0 && milliStep > 0)) throw new RangeError('memoryStepMiB and milliStep must be > 0');

  const groups = new Map<string, HistoryJob[]>();
  for (const h of jobs) {
    if (h.job.request.gpuCount === 0) continue;
    const list = groups.get(h.workload) ?? [];
    list.push(h);
    groups.set(h.workload, list);
  }
  const workloads: WorkloadAdvice[] = [];
  const sizes = new Map<number, GpuSize>();
  for (const [workload, list] of groups) {
    const measured = list.filter((h) => h.measuredGpuMemoryMiB !== null || h.measuredGpuUtilPct !== null);
    if (measured.length === 0) continue;
    const last = list[list.length - 1]!.job.request;
    const requestedMilli = Math.max(...list.map((h) => h.job.request.gpuMilli));
    const requestedMiB = Math.max(
      ...list.map((h) =>
        h.job.request.gpuMemoryMiB > 0
          ? h.job.request.gpuMemoryMiB
          : Math.floor((deviceMiB * h.job.request.gpuMilli) / 1000),
      ),
    );
    const peaks = (pick: (h: HistoryJob) => number | null): number | null => {
      const values = list.map(pick).filter((v): v is number => v !== null);
      return values.length === 0 ? null : Math.max(...values);
    };
    const peakMiB = peaks((h) => h.measuredGpuMemoryMiB);
    const peakPct = peaks((h) => h.measuredGpuUtilPct);
    const memory: QuantityAdvice =
      peakMiB === null
        ? { requested: requestedMiB, peak: null, recommended: requestedMiB, basis: 'not-measured' }
        : {
            requested: requestedMiB,
            peak: peakMiB,
            recommended: Math.min(deviceMiB, Math.max(memoryStep, roundUp(peakMiB * (1 + headroom), memoryStep))),
            basis: 'measured-peak',
          };
    const peakMilli = peakPct === null ? null : peakPct * 10;
    const compute: QuantityAdvice =
      peakMilli === null
        ? { requested: requestedMilli, peak: null, recommended: requestedMilli, basis: 'not-measured' }
        : {
            requested: requestedMilli,
            peak: peakMilli,
            recommended: Math.min(1000, Math.max(milliStep, roundUp(peakMilli * (1 + headroom), milliStep))),
            basis: 'measured-peak',
          };
    let requestedSeconds = 0;
    let recommendedSeconds = 0;
    for (const h of list) {
      const { gpuCount, gpuMilli } = h.job.request;
      requestedSeconds += ((gpuCount * gpuMilli) / 1000) * h.job.durationSeconds;
      recommendedSeconds += ((gpuCount * compute.recommended) / 1000) * h.job.durationSeconds;
      sizes.set(h.job.id, { gpuMilli: compute.recommended, gpuMemoryMiB: memory.recommended });
    }
    const perGpu = (milli: number, mib: number): [number, Binding] => {
      const byCompute = Math.floor(1000 / milli);
      const byMemory = Math.floor(deviceMiB / Math.max(1, mib));
      return [
        Math.min(byCompute, byMemory),
        byMemory === byCompute ? 'both' : byMemory < byCompute ? 'memory' : 'compute',
      ];
    };
    const [asked, askedBinding] = perGpu(compute.requested, memory.requested);
    const [advised, advisedBinding] = perGpu(compute.recommended, memory.recommended);
    workloads.push({
      workload,
      jobs: list.length,
      measuredJobs: measured.length,
      gpuCount: last.gpuCount,
      gpuMemoryMiB: memory,
      gpuMilli: compute,
      jobsPerGpu: { asked, advised, askedBinding, advisedBinding },
      requestedGpuHours: requestedSeconds / 3600,
      recommendedGpuHours: recommendedSeconds / 3600,
    });
  }
  workloads.sort((a, b) => b.requestedGpuHours - a.requestedGpuHours || (a.workload < b.workload ? -1 : 1));
  return { headroom, workloads, sizes };
}
