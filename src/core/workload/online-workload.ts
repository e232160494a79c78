/**
 * Learns the target workload M online from the requests seen recently, for policies that need one
 * when no trace is known in advance (a live cluster).
 *
 * Model: the last `windowSize` request shapes, plus a Dirichlet-style prior of `priorWeight`
 * pseudo-tasks spread over `DEFAULT_PRIOR_SHAPES`. With few observations the prior dominates; it
 * fades as real requests arrive (after 10× priorWeight requests it is under 10% of M). M is rebuilt
 * after 16, 32, 64, … requests, then every `refreshEvery`; `epoch` changes each time so score
 * caches can be dropped.
 */
import { buildTargetWorkload, type TargetWorkload, type TaskShape } from '../fragmentation/target-workload.js';

/**
 * Shapes assumed before any request is seen: whole 1-GPU tasks, common fractional shares, a
 * 2-, 4- and 8-GPU task, and a CPU-only task, each with 8 vCPU per GPU (the median CPU:GPU
 * ratio of the Alibaba openb trace's GPU tasks is 6–12 vCPU per GPU).
 */
export const DEFAULT_PRIOR_SHAPES: readonly TaskShape[] = [
  { cpuMilli: 8000, gpuMilli: 1000, gpuCount: 1, allowedGpuModels: [] },
  { cpuMilli: 8000, gpuMilli: 1000, gpuCount: 1, allowedGpuModels: [] },
  { cpuMilli: 4000, gpuMilli: 500, gpuCount: 1, allowedGpuModels: [] },
  { cpuMilli: 2000, gpuMilli: 250, gpuCount: 1, allowedGpuModels: [] },
  { cpuMilli: 6000, gpuMilli: 750, gpuCount: 1, allowedGpuModels: [] },
  { cpuMilli: 16000, gpuMilli: 1000, gpuCount: 2, allowedGpuModels: [] },
  { cpuMilli: 32000, gpuMilli: 1000, gpuCount: 4, allowedGpuModels: [] },
  { cpuMilli: 64000, gpuMilli: 1000, gpuCount: 8, allowedGpuModels: [] },
  { cpuMilli: 8000, gpuMilli: 0, gpuCount: 0, allowedGpuModels: [] },
];

/** Settings of the learner. */
export interface OnlineWorkloadOptions {
  /** Requests remembered. @defaultValue 4096 */
  readonly windowSize?: number;
  /** Pseudo-tasks of prior. @defaultValue 64 */
  readonly priorWeight?: number;
  /** Rebuild M after this many new requests. @defaultValue 256 */
  readonly refreshEvery?: number;
  /** Type coverage kept in M, in % (as FGD's `podPopularityThreshold`). @defaultValue 95 */
  readonly coveragePct?: number;
  /** Prior shapes. @defaultValue DEFAULT_PRIOR_SHAPES */
  readonly priorShapes?: readonly TaskShape[];
}

/** The learner. Not thread-safe; one per scheduler. */
export class OnlineWorkload {
  private readonly window: TaskShape[] = [];
  private next = 0;
  private sinceRefresh = 0;
  private seen = 0;
  private seenAtRefresh = 0;
  private current: TargetWorkload;
  private epochValue = 0;
  private readonly windowSize: number;
  private readonly priorWeight: number;
  private readonly refreshEvery: number;
  private readonly coveragePct: number;
  private readonly priorShapes: readonly TaskShape[];

  constructor(options: OnlineWorkloadOptions = {}) {
    this.windowSize = options.windowSize ?? 4096;
    this.priorWeight = options.priorWeight ?? 64;
    this.refreshEvery = options.refreshEvery ?? 256;
    this.coveragePct = options.coveragePct ?? 95;
    this.priorShapes = options.priorShapes ?? DEFAULT_PRIOR_SHAPES;
    this.current = this.rebuild();
  }

  /** Records one arriving request; may rebuild M (then `epoch` changes). */
  observe(shape: TaskShape): void {
    const copy = {
      cpuMilli: shape.cpuMilli,
      gpuMilli: shape.gpuMilli,
      gpuCount: shape.gpuCount,
      allowedGpuModels: shape.allowedGpuModels,
    };
    if (this.window.length < this.windowSize) this.window.push(copy);
    else this.window[this.next] = copy;
    this.next = (this.next + 1) % this.windowSize;
    // Refresh quickly while learning — after 16, 32, 64, … requests (the interval doubles with the
    // requests seen at the last rebuild) — then every `refreshEvery` requests.
    this.sinceRefresh++;
    this.seen++;
    const interval = Math.min(this.refreshEvery, Math.max(16, Math.min(this.seenAtRefresh, this.windowSize)));
    if (this.sinceRefresh >= interval) {
      this.sinceRefresh = 0;
      this.seenAtRefresh = this.seen;
      this.current = this.rebuild();
      this.epochValue++;
    }
  }

  /** The current M. */
  workload(): TargetWorkload {
    return this.current;
  }

  /** Changes whenever `workload()` does. */
  epoch(): number {
    return this.epochValue;
  }

  /** Number of real requests in the window. */
  observedCount(): number {
    return this.window.length;
  }

  private rebuild(): TargetWorkload {
    const tasks: TaskShape[] = [...this.window];
    const perShape = this.priorShapes.length === 0 ? 0 : Math.round(this.priorWeight / this.priorShapes.length);
    for (const shape of this.priorShapes) for (let i = 0; i < perShape; i++) tasks.push(shape);
    return buildTargetWorkload(tasks, this.coveragePct);
  }
}
