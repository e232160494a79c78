/**
 * How a trace pod becomes a job of the core's sharing modes under `--sharing`
 * (docs/simulator.md "Hybrid sharing"): its isolation from `qos`, its GPU memory in proportion to
 * its compute, and the mode (and MIG profile) it runs in.
 */
import {
  DEFAULT_ISOLATION,
  findGpuModel,
  GPU_MODELS,
  migGeometry,
  migProfilesFor,
  selectMode,
  smallestProfileFor,
  type EffectiveMode,
  type GpuModelSpec,
  type IsolationLevel,
  type MigProfile,
} from '../../core/index.js';

/** Values of `--sharing`. */
export const SHARING_SETTINGS = ['auto', 'mig', 'mps', 'timeslice'] as const;
/** One of `SHARING_SETTINGS`. */
export type SharingSetting = (typeof SHARING_SETTINGS)[number];

/**
 * Isolation of each `qos` value of the Alibaba trace: latency-sensitive services (`LS`) ask for
 * hardware isolation, pods with a firm or burstable reservation (`Guaranteed`, `Burstable`) for the
 * driver-enforced kind, best-effort batch (`BE`) for none.
 */
export const QOS_ISOLATION: ReadonlyMap<string, IsolationLevel> = new Map<string, IsolationLevel>([
  ['LS', 'strict'],
  ['Guaranteed', 'standard'],
  ['Burstable', 'standard'],
  ['BE', 'none'],
]);

/** Isolation of a pod with this `qos`; the core's default (`standard`) for a missing or other value. */
export function isolationOfQos(qos: string | null): IsolationLevel {
  return (qos === null ? undefined : QOS_ISOLATION.get(qos)) ?? DEFAULT_ISOLATION;
}

/** A GPU model usable with `--sharing`: in the catalog, with its memory known. */
export interface SharingGpuModel {
  readonly name: string;
  readonly gpuMemoryMiB: number;
  readonly migCapable: boolean;
}

/**
 * The catalog model for `--gpu-model`, or undefined when it is unknown or its memory is not
 * disclosed (the trace codes G1–G3).
 */
export function sharingGpuModel(name: string): SharingGpuModel | undefined {
  const spec: GpuModelSpec | undefined = findGpuModel(name);
  if (spec === undefined || spec.gpuMemoryMiB === null) return undefined;
  return { name: spec.name, gpuMemoryMiB: spec.gpuMemoryMiB, migCapable: migGeometry(spec.name) !== undefined };
}

/** The GPU part of a pod as the hybrid replay sees it. */
export interface HybridGpuShape {
  /** GPUs, ≥ 1. */
  readonly gpuCount: number;
  /** Per-GPU milli-GPU, 1..1000. */
  readonly gpuMilli: number;
  readonly isolation: IsolationLevel;
}

/** The mode a GPU pod runs in, and what it asks of each GPU. */
export interface ModeDecision {
  readonly mode: EffectiveMode;
  /** The MIG profile of each of its GPUs for `mig`; null otherwise. */
  readonly migProfile: MigProfile | null;
  /**
   * Device memory the job names per GPU (the core's `GpuRequest.gpuMemoryMiB`): the proportional
   * figure, or null for `exclusive` (the whole GPU) and for a MIG pod served by compute alone.
   */
  readonly gpuMemoryMiB: number | null;
}

/** GPU memory of a share of `gpuMilli` of a GPU with `modelMemoryMiB`: ⌊gpuMilli × memory / 1000⌋. */
export function proportionalMemoryMiB(gpuMilli: number, modelMemoryMiB: number): number {
  return Math.floor((gpuMilli * modelMemoryMiB) / 1000);
}

/**
 * Decides the mode of a GPU pod on GPUs of `model`:
 * - `auto`: the core's `selectMode` from the pod's isolation (whole GPUs → exclusive; strict →
 *   the smallest MIG profile covering memory and compute, else exclusive; standard → mps; none →
 *   timeslice);
 * - `mig`: every pod gets the smallest MIG profile covering its memory and compute; when its
 *   proportional memory exceeds every profile's usable memory (whole GPUs, and shares above ≈ 987
 *   milli on an A100-80GB) the profile its compute needs, i.e. the full-GPU profile (7g);
 * - `mps` / `timeslice`: sharing pods in that mode, whole-GPU pods exclusive.
 * @throws RangeError for `mig` on a model without MIG
 */
export function decideMode(shape: HybridGpuShape, sharing: SharingSetting, model: SharingGpuModel): ModeDecision {
  const { gpuMilli } = shape;
  const memory = proportionalMemoryMiB(gpuMilli, model.gpuMemoryMiB);
  switch (sharing) {
    case 'auto': {
      const selection = selectMode(
        { gpuMilli, gpuMemoryMiB: memory, isolation: shape.isolation },
        model.name,
        model.gpuMemoryMiB,
      );
      return {
        mode: selection.mode,
        migProfile: selection.migProfile,
        gpuMemoryMiB: selection.mode === 'exclusive' ? null : memory,
      };
    }
    case 'mig': {
      const byMemory = smallestProfileFor(model.name, { gpuMilli, gpuMemoryMiB: memory });
      if (byMemory) return { mode: 'mig', migProfile: byMemory, gpuMemoryMiB: memory };
      const byCompute = smallestProfileFor(model.name, { gpuMilli, gpuMemoryMiB: 0 });
      if (!byCompute)
        throw new RangeError(`--sharing mig needs a MIG-capable GPU model; ${model.name} has no MIG profiles`);
      return { mode: 'mig', migProfile: byCompute, gpuMemoryMiB: null };
    }
    case 'mps':
    case 'timeslice':
      return gpuMilli >= 1000
        ? { mode: 'exclusive', migProfile: null, gpuMemoryMiB: null }
        : { mode: sharing, migProfile: null, gpuMemoryMiB: memory };
  }
}

/** Names of the catalog models with known memory (allowed for `--gpu-model`), in catalog order. */
export function sharingGpuModelNames(): string[] {
  return GPU_MODELS.filter((m) => m.gpuMemoryMiB !== null).map((m) => m.name);
}

/** Names of the MIG-capable catalog models (allowed for `--gpu-model` with `--sharing mig`). */
export function migCapableModelNames(): string[] {
  return GPU_MODELS.filter((m) => m.gpuMemoryMiB !== null && migProfilesFor(m.name).length > 0).map((m) => m.name);
}
