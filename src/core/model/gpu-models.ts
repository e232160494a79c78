/**
 * GPU model catalog: every model of the Alibaba cluster-trace-gpu-v2023 node list plus the current
 * data-centre models gpushare targets.
 *
 * Sources: memory sizes from NVIDIA's product data sheets, except H100-80GB and H200-141GB, whose
 * `memory.total` is what `nvidia-smi --query-gpu` reports (driver 590.48.01: 81559 and 143771 MiB);
 * MIG support from the NVIDIA MIG User Guide "Supported GPUs" page (A100, H100, H200, A30). `G1`, `G2`, `G3` are
 * undisclosed codes in
 * the Alibaba trace (alibaba/clusterdata cluster-trace-gpu-v2023 README): their memory is unknown.
 */

/** One entry of the catalog. */
export interface GpuModelSpec {
  /** Canonical model name, e.g. `A100-80GB` or the trace code `G2`. */
  readonly name: string;
  /** Device memory in MiB; null when it is not disclosed (trace codes G1–G3). */
  readonly gpuMemoryMiB: number | null;
  /** Whether the model supports MIG (Multi-Instance GPU) partitioning. */
  readonly migCapable: boolean;
  /** Other spellings accepted as input (e.g. `V100M16` in the trace). */
  readonly aliases: readonly string[];
  /** Free-text description for display. */
  readonly description: string;
}

const GIB = 1024;

/** The catalog, in display order. */
export const GPU_MODELS: readonly GpuModelSpec[] = [
  {
    name: 'G1',
    gpuMemoryMiB: null,
    migCapable: false,
    aliases: [],
    description: 'undisclosed model code in the Alibaba trace',
  },
  {
    name: 'G2',
    gpuMemoryMiB: null,
    migCapable: false,
    aliases: [],
    description: 'undisclosed model code in the Alibaba trace',
  },
  {
    name: 'G3',
    gpuMemoryMiB: null,
    migCapable: false,
    aliases: [],
    description: 'undisclosed model code in the Alibaba trace',
  },
  { name: 'P100', gpuMemoryMiB: 16 * GIB, migCapable: false, aliases: [], description: 'NVIDIA Tesla P100 16 GB' },
  { name: 'T4', gpuMemoryMiB: 16 * GIB, migCapable: false, aliases: [], description: 'NVIDIA T4 16 GB' },
  {
    name: 'V100M16',
    gpuMemoryMiB: 16 * GIB,
    migCapable: false,
    aliases: ['V100-16GB'],
    description: 'NVIDIA V100 16 GB',
  },
  {
    name: 'V100M32',
    gpuMemoryMiB: 32 * GIB,
    migCapable: false,
    aliases: ['V100-32GB', 'V100'],
    description: 'NVIDIA V100 32 GB',
  },
  { name: 'A10', gpuMemoryMiB: 24 * GIB, migCapable: false, aliases: [], description: 'NVIDIA A10 24 GB' },
  { name: 'L4', gpuMemoryMiB: 24 * GIB, migCapable: false, aliases: [], description: 'NVIDIA L4 24 GB' },
  {
    name: 'A30-24GB',
    gpuMemoryMiB: 24 * GIB,
    migCapable: true,
    aliases: ['A30'],
    description: 'NVIDIA A30 24 GB (MIG: 4 slices)',
  },
  {
    name: 'A100-40GB',
    gpuMemoryMiB: 40 * GIB,
    migCapable: true,
    aliases: [],
    description: 'NVIDIA A100 40 GB (MIG: 7 slices)',
  },
  {
    name: 'A100-80GB',
    gpuMemoryMiB: 80 * GIB,
    migCapable: true,
    aliases: [],
    description: 'NVIDIA A100 80 GB (MIG: 7 slices)',
  },
  {
    name: 'H100-80GB',
    gpuMemoryMiB: 81559,
    migCapable: true,
    aliases: ['H100'],
    description: 'NVIDIA H100 80 GB HBM3 (MIG: 7 slices)',
  },
  {
    name: 'H200-141GB',
    gpuMemoryMiB: 143771,
    migCapable: true,
    aliases: ['H200'],
    description: 'NVIDIA H200 141 GB HBM3e (MIG: 7 slices)',
  },
];

/**
 * Looks a model up by canonical name or alias (exact, case-sensitive, as the trace's `gpu_spec`
 * match is). Returns undefined for an unknown name; callers decide whether that is an error.
 */
export function findGpuModel(name: string): GpuModelSpec | undefined {
  return GPU_MODELS.find((m) => m.name === name || m.aliases.includes(name));
}

/** Canonical names of all catalog models, for error messages listing the allowed values. */
export function gpuModelNames(): string[] {
  return GPU_MODELS.map((m) => m.name);
}
