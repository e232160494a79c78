/**
 * What a job asks for, as every part of gpushare sees it: the sharing modes, isolation levels, the
 * GPU part of a request, and the request of a job waiting to be placed. The server, the simulator
 * and the Kubernetes extender all describe their work with these types.
 */

/** Sharing modes a job may ask for (API, CLI and code use these names). */
export const SHARING_MODES = ['auto', 'exclusive', 'mig', 'mps', 'timeslice'] as const;
/** One of `SHARING_MODES`. */
export type SharingMode = (typeof SHARING_MODES)[number];
/** A mode a placement actually uses (`auto` resolved). */
export type EffectiveMode = Exclude<SharingMode, 'auto'>;

/** Isolation levels a job may ask for (docs/sharing-modes.md). */
export const ISOLATION_LEVELS = ['strict', 'standard', 'none'] as const;
/** One of `ISOLATION_LEVELS`. */
export type IsolationLevel = (typeof ISOLATION_LEVELS)[number];
/** Isolation of a job that names none. */
export const DEFAULT_ISOLATION: IsolationLevel = 'standard';

/**
 * The GPU part of a job's request, per GPU. `gpuMemoryMiB` null means "in proportion to
 * `gpuMilli` of the GPU the job lands on" (resolved at placement).
 */
export interface GpuRequest {
  /** Number of distinct GPUs, ≥ 1 (0 only for the simulator's CPU-only pods). */
  readonly gpuCount: number;
  /** Compute share of each GPU in milli-GPU, 1..1000 (0 when `gpuCount` is 0). */
  readonly gpuMilli: number;
  /** Device memory of each GPU in MiB, or null for the proportional default. */
  readonly gpuMemoryMiB: number | null;
  /** Requested sharing mode. */
  readonly mode: SharingMode;
  /**
   * Isolation for `mode: auto` (sharing/select-mode.ts): `strict` (MIG, else whole GPUs),
   * `standard` (MPS, the default when absent), `none` (time-slicing). Ignored for other modes.
   */
  readonly isolation?: IsolationLevel;
  /** GPU models the job may run on (catalog names or trace codes); absent or empty = any model. */
  readonly allowedGpuModels?: readonly string[];
}

/** What the scheduler needs to know about a job waiting to be placed. */
export interface JobRequest {
  readonly id: number;
  readonly tenant: string;
  /** Higher is more important (model/priority.ts). */
  readonly priority: number;
  /** Submit time, ms since the epoch; earlier goes first among equal priorities. */
  readonly submittedAtMs: number;
  /** Host CPU in milli-cores (0 = none reserved). */
  readonly cpuMilli: number;
  /** Host memory in MiB (0 = none reserved). */
  readonly hostMemoryMiB: number;
  readonly gpu: GpuRequest;
  /** Wall-clock limit of one attempt, seconds; null or absent = none (then it never backfills). */
  readonly timeLimitSeconds?: number | null;
}
