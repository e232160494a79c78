// GpuInventory made up from `--simulate-gpus SPEC`, for running the server without GPUs. The GPUs
// are marked `simulated: true` everywhere; facts (memory, MIG support) come from the catalog.
import { createHash } from 'node:crypto';
import { GPU_MODELS, findGpuModel } from '../../core/index.js';
import type { GpuInventory, InventoryGpu } from '../../app/ports/gpu-inventory.js';

/**
 * A bad `--simulate-gpus` value. The message names the flag, the bad item, and the allowed
 * syntax and model names.
 */
export class SimulatedGpuSpecError extends Error {
  override readonly name = 'SimulatedGpuSpecError';
}

/** One item of the spec: `count` GPUs of catalog model `model`, in MIG mode when `mig`. */
export interface SimulatedGpuItem {
  count: number;
  /** Canonical catalog name (an alias in the spec is resolved to it). */
  model: string;
  mig: boolean;
}

/** Most GPUs one spec item may ask for. */
export const MAX_SIMULATED_GPUS_PER_ITEM = 64;

const SYNTAX =
  'COUNTxMODEL[:mig], comma-separated, e.g. 2xA100-80GB,1xA100-80GB:mig,1xT4 ' +
  `(COUNT 1-${MAX_SIMULATED_GPUS_PER_ITEM}; :mig only on MIG-capable models)`;

/** Catalog models a simulated GPU may be: those whose memory is known. */
function allowedModels(): string[] {
  return GPU_MODELS.filter((m) => m.gpuMemoryMiB !== null).map((m) => m.name);
}

function specError(item: string, problem: string): SimulatedGpuSpecError {
  return new SimulatedGpuSpecError(
    `--simulate-gpus: ${problem} in "${item}". Expected ${SYNTAX}. ` +
      `Models: ${allowedModels().join(', ')}. MIG-capable: ` +
      `${GPU_MODELS.filter((m) => m.migCapable && m.gpuMemoryMiB !== null)
        .map((m) => m.name)
        .join(', ')}.`,
  );
}

/**
 * Parses a `--simulate-gpus` SPEC: a comma list of `COUNTxMODEL[:mig]`, e.g.
 * `2xA100-80GB,1xA100-80GB:mig,1xT4`. MODEL is a catalog name or alias (src/core/model/
 * gpu-models.ts) with known memory; `:mig` starts those GPUs in MIG mode and is allowed only on
 * MIG-capable models. Throws {@link SimulatedGpuSpecError} for an empty spec or item, bad syntax,
 * COUNT outside 1..64, an unknown model, a model with unknown memory (G1-G3), or `:mig` on a
 * model without MIG.
 */
export function parseSimulatedGpuSpec(spec: string): SimulatedGpuItem[] {
  if (spec.trim() === '') throw specError(spec, 'empty value');
  return spec.split(',').map((raw) => {
    const item = raw.trim();
    if (item === '') throw specError(spec, 'empty item');
    const m = /^(\d+)x([^:\s]+)(?::(\w+))?$/.exec(item);
    if (!m) throw specError(item, 'bad syntax');
    const count = Number(m[1]);
    if (count < 1 || count > MAX_SIMULATED_GPUS_PER_ITEM) {
      throw specError(item, `COUNT must be 1-${MAX_SIMULATED_GPUS_PER_ITEM}, got ${m[1]}`);
    }
    const found = findGpuModel(m[2] ?? '');
    if (!found) throw specError(item, `unknown model "${m[2]}"`);
    if (found.gpuMemoryMiB === null) throw specError(item, `model "${found.name}" has unknown memory`);
    if (m[3] !== undefined && m[3] !== 'mig') throw specError(item, `unknown suffix ":${m[3]}" (only :mig)`);
    const mig = m[3] === 'mig';
    if (mig && !found.migCapable) throw specError(item, `model "${found.name}" does not support MIG`);
    return { count, model: found.name, mig };
  });
}

/**
 * Stable GPU UUID in nvidia-smi's format (`GPU-xxxxxxxx-xxxx-xxxx-xxxx-xxxxxxxxxxxx`) from the
 * SHA-256 of (seed, index, model), so a restart with the same spec and seed gives the same UUIDs.
 */
export function simulatedGpuUuid(seed: string, index: number, model: string): string {
  const h = createHash('sha256').update(`${seed}\u0000${index}\u0000${model}`).digest('hex');
  return `GPU-${h.slice(0, 8)}-${h.slice(8, 12)}-${h.slice(12, 16)}-${h.slice(16, 20)}-${h.slice(20, 32)}`;
}

/** A simulated inventory, with controls for tests of health handling. */
export interface SimulatedInventory extends GpuInventory {
  readonly source: 'simulated';
  /** Marks GPU `index` healthy or not (reason is kept only when unhealthy). Throws RangeError for an unknown index. */
  setHealth(index: number, healthy: boolean, reason?: string | null): void;
  /** Removes GPU `index` from later lists (it "vanishes"). Throws RangeError for an unknown or removed index. */
  remove(index: number): void;
  /** Sets simulated measurements (null clears them). Throws RangeError for an unknown index. */
  setUsage(index: number, usage: { utilizationGpuPct: number | null; memoryUsedMiB: number | null }): void;
}

/** Default seed of {@link createSimulatedInventory}. */
export const DEFAULT_SIMULATION_SEED = 'gpushare-simulated';

/**
 * GpuInventory over the GPUs of a parsed `--simulate-gpus` spec: indices 0..n-1 in spec order,
 * name `Simulated <model>`, catalog memory, `simulated: true`, healthy, no measurements (null),
 * MIG GPUs with MIG enabled and no MIG devices. UUIDs from {@link simulatedGpuUuid} with `seed`
 * ({@link DEFAULT_SIMULATION_SEED} by default). Throws {@link SimulatedGpuSpecError} for a model
 * not in the catalog or with unknown memory.
 */
export function createSimulatedInventory(
  items: readonly SimulatedGpuItem[],
  options: { seed?: string } = {},
): SimulatedInventory {
  const seed = options.seed ?? DEFAULT_SIMULATION_SEED;
  const gpus: InventoryGpu[] = items
    .flatMap((it) => Array.from({ length: it.count }, () => it))
    .map((it, index) => {
      const spec = findGpuModel(it.model);
      if (!spec || spec.gpuMemoryMiB === null) throw specError(it.model, 'model not in the catalog with known memory');
      return {
        index,
        uuid: simulatedGpuUuid(seed, index, spec.name),
        name: `Simulated ${spec.name}`,
        model: spec.name,
        gpuMemoryMiB: spec.gpuMemoryMiB,
        migEnabled: it.mig,
        migDevices: [],
        simulated: true,
        deviceMinor: index,
        healthy: true,
        healthReason: null,
        utilizationGpuPct: null,
        memoryUsedMiB: null,
      };
    });
  const removed = new Set<number>();
  const gpu = (index: number): InventoryGpu => {
    const g = gpus[index];
    if (!g || removed.has(index)) throw new RangeError(`no simulated GPU with index ${index}`);
    return g;
  };
  return {
    source: 'simulated',
    list: () =>
      Promise.resolve(gpus.filter((g) => !removed.has(g.index)).map((g) => ({ ...g, migDevices: [...g.migDevices] }))),
    setHealth(index, healthy, reason = null) {
      const g = gpu(index);
      g.healthy = healthy;
      g.healthReason = healthy ? null : (reason ?? 'marked unhealthy');
    },
    remove(index) {
      gpu(index);
      removed.add(index);
    },
    setUsage(index, usage) {
      const g = gpu(index);
      g.utilizationGpuPct = usage.utilizationGpuPct;
      g.memoryUsedMiB = usage.memoryUsedMiB;
    },
  };
}
