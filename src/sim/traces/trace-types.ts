/**
 * Rows of the Alibaba cluster-trace-gpu-v2023 ("openb") CSV files, after parsing and validation.
 * Source of the format: alibaba/clusterdata cluster-trace-gpu-v2023 README (see data/README.md).
 */

/** One row of an `openb_node_list_*.csv` file (`sn,cpu_milli,memory_mib,gpu,model`). */
export interface TraceNode {
  /** Node name (`sn`), e.g. `openb-node-0042`. */
  readonly name: string;
  /** CPU capacity in milli-cores (`cpu_milli`). */
  readonly cpuMilli: number;
  /** Host (main) memory in MiB (`memory_mib`); not GPU memory. */
  readonly hostMemoryMiB: number;
  /** Number of GPUs on the node (`gpu`). */
  readonly gpuCount: number;
  /** GPU model code (`model`), e.g. `G2`, `T4`; null for a CPU-only node. */
  readonly gpuModel: string | null;
}

/** One row of an `openb_pod_list_*.csv` file (11-column or 5-column `multigpu` form). */
export interface TracePod {
  /** Pod name (`name`), unique within a file. */
  readonly name: string;
  /** CPU request in milli-cores (`cpu_milli`). */
  readonly cpuMilli: number;
  /** Host memory request in MiB (`memory_mib`). */
  readonly hostMemoryMiB: number;
  /** Number of GPUs (`num_gpu`): 0 for a CPU-only pod. */
  readonly gpuCount: number;
  /** Per-GPU request in milli-GPU (`gpu_milli`), 0..1000; 0 when `gpuCount` is 0. */
  readonly gpuMilli: number;
  /** Allowed GPU models from `gpu_spec` (split on `|`, empty pieces dropped); empty = any model. */
  readonly allowedGpuModels: readonly string[];
  /** `gpu_spec` exactly as written (part of the FGD task-type key); '' when absent. */
  readonly gpuSpec: string;
  /** `qos` column (LS, BE, Burstable, Guaranteed) or null when the file has no such column. */
  readonly qos: string | null;
  /** `creation_time` in seconds from trace start, or null when absent. */
  readonly creationTimeSeconds: number | null;
  /** `deletion_time` in seconds from trace start, or null when absent. */
  readonly deletionTimeSeconds: number | null;
  // The columns of a gpushare history export (docs/server.md, "History as a trace"); there its times
  // above are seconds since the Unix epoch with up to 3 decimals. Each field is absent when the file
  // has no such column (the Alibaba files) and null when its cell is empty.
  /** `tenant`: the tenant the job ran for. */
  readonly tenant?: string | null;
  /** `priority`: gpushare's integer priority, 0..1000000 (higher is more important; 500 is `normal`). */
  readonly priority?: number | null;
  /** `sharing_mode`: the mode the job ran in (its placement's effective mode). */
  readonly sharingMode?: TraceSharingMode | null;
  /** `gpu_memory_mib`: device memory requested per GPU, MiB; 0 when the request named none. */
  readonly gpuMemoryMiB?: number | null;
  /** `measured_gpu_memory_mib`: peak device memory the job used on any one of its GPUs, MiB; null when unknown. */
  readonly measuredGpuMemoryMiB?: number | null;
  /** `measured_gpu_util_pct`: peak GPU utilization measured for the job, percent 0..100; null when unknown. */
  readonly measuredGpuUtilPct?: number | null;
}

/** The `sharing_mode` values of a history export (gpushare's effective sharing modes). */
export const SHARING_MODE_VALUES = ['exclusive', 'mps', 'timeslice', 'mig'] as const;
/** One of {@link SHARING_MODE_VALUES}. */
export type TraceSharingMode = (typeof SHARING_MODE_VALUES)[number];

/**
 * A problem in a trace file. The message names the file, the 1-based line and the field;
 * `fileName`, `line` and `field` carry the same facts for programs.
 */
export class TraceFormatError extends Error {
  constructor(
    readonly fileName: string,
    readonly line: number | null,
    readonly field: string | null,
    detail: string,
  ) {
    super(`${fileName}${line === null ? '' : `:${line}`}${field === null ? '' : ` field '${field}'`}: ${detail}`);
    this.name = 'TraceFormatError';
  }
}
