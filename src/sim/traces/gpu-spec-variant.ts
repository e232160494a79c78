/**
 * The GPU-model-constrained variants of the openb pod list (`gpuspecNN` family of
 * cluster-trace-gpu-v2023): a copy of a base pod list where some GPU tasks get a `gpu_spec`.
 *
 * - `gpuspec`: each constrained task gets 1–3 models drawn in proportion to the models' GPU counts
 *   (mostly `G2`, which has 71% of the GPUs).
 * - `prodspec`: each constrained task gets one of the model sets the published `gpuspecNN` files
 *   use, in their proportions ({@link PRODUCTION_SPEC_MIX}): about half ask for `T4` alone, so the
 *   constraints crowd the scarce models, as in production.
 */
import { shuffleInPlace, type Rng } from '../../core/index.js';
import type { TraceNode, TracePod } from './trace-types.js';

/** Most models in one `gpuspec` constraint. */
const MAX_SPEC_MODELS = 3;

/**
 * Model sets of the constrained GPU tasks in the published `gpuspec05`…`gpuspec33` pod lists and
 * each set's share of those tasks in percent (the shares are stable across the five files: `T4`
 * alone 51–55%, `G2` 14%, `P100` 12%, `V100M16|V100M32` 6–7%, `P100|V100M16|V100M32` 4%, `G3` 3.5%;
 * the remaining 7% are wider sets, represented here by the widest one seen). Sums to 100.
 */
export const PRODUCTION_SPEC_MIX: readonly { readonly models: readonly string[]; readonly pct: number }[] = [
  { models: ['T4'], pct: 53 },
  { models: ['G2'], pct: 14 },
  { models: ['P100'], pct: 12 },
  { models: ['V100M16', 'V100M32'], pct: 6.5 },
  { models: ['P100', 'V100M16', 'V100M32'], pct: 4 },
  { models: ['G3'], pct: 3.5 },
  { models: ['G2', 'P100', 'T4', 'V100M16', 'V100M32'], pct: 7 },
];

/** Per model: its total GPU count and its nodes (models without GPUs are left out). */
function modelsOf(nodes: readonly TraceNode[]): Map<string, { gpus: number; nodes: TraceNode[] }> {
  const models = new Map<string, { gpus: number; nodes: TraceNode[] }>();
  for (const n of nodes) {
    if (n.gpuModel === null || n.gpuCount === 0) continue;
    const entry = models.get(n.gpuModel) ?? { gpus: 0, nodes: [] };
    entry.gpus += n.gpuCount;
    entry.nodes.push(n);
    models.set(n.gpuModel, entry);
  }
  return models;
}

function canHostWhenEmpty(n: TraceNode, p: TracePod): boolean {
  return n.gpuCount >= p.gpuCount && n.cpuMilli >= p.cpuMilli && n.hostMemoryMiB >= p.hostMemoryMiB;
}

/**
 * The models whose nodes could host `pod` when empty: a node of that model with at least
 * `num_gpu` GPUs, `cpu_milli` and `memory_mib`.
 */
export function feasibleGpuModels(pod: TracePod, nodes: readonly TraceNode[]): string[] {
  return [...modelsOf(nodes)]
    .filter(([, m]) => m.nodes.some((n) => canHostWhenEmpty(n, pod)))
    .map(([model]) => model)
    .sort();
}

/** Draws one of `candidates` with probability proportional to `weight`. */
function drawWeighted<T>(candidates: readonly T[], weight: (m: T) => number, rng: Rng): T {
  const total = candidates.reduce((s, m) => s + weight(m), 0);
  let x = rng.nextFloat() * total;
  for (const m of candidates) {
    x -= weight(m);
    if (x < 0) return m;
  }
  return candidates[candidates.length - 1]!;
}

/** How constrained tasks get their models: the list of GPU models a task could run on when alone → its spec. */
type SpecDrawer = (feasible: readonly string[], rng: Rng) => string[];

/** `gpuspec`: 1–3 distinct models by GPU count, the first one feasible. */
function proportionalDrawer(models: Map<string, { gpus: number }>): SpecDrawer {
  const allModels = [...models.keys()].sort();
  const gpusOf = (m: string): number => models.get(m)!.gpus;
  return (feasible, rng) => {
    const size = 1 + rng.intn(Math.min(MAX_SPEC_MODELS, allModels.length));
    const picked = [drawWeighted(feasible, gpusOf, rng)];
    while (picked.length < size)
      picked.push(
        drawWeighted(
          allModels.filter((m) => !picked.includes(m)),
          gpusOf,
          rng,
        ),
      );
    return picked.sort();
  };
}

/** `prodspec`: a set of {@link PRODUCTION_SPEC_MIX} by its share, among the sets with a feasible model. */
function productionDrawer(models: Map<string, unknown>): SpecDrawer {
  const present = PRODUCTION_SPEC_MIX.map((s) => ({ ...s, models: s.models.filter((m) => models.has(m)) })).filter(
    (s) => s.models.length > 0,
  );
  return (feasible, rng) => {
    const usable = present.filter((s) => s.models.some((m) => feasible.includes(m)));
    return [...drawWeighted(usable, (s) => s.pct, rng).models];
  };
}

/** Kinds of GPU-model-constrained variant. */
export type GpuSpecMix = 'gpuspec' | 'prodspec';

/**
 * A copy of `base` where exactly round(`constrainedPct`% × GPU tasks) GPU tasks, chosen at random
 * among those some model's node could host when empty (and, for `prodspec`, some set of
 * {@link PRODUCTION_SPEC_MIX} covers), get a `gpu_spec`; all other tasks get none (the base's are
 * dropped). Models are written in name order, e.g. `G2|T4`. Every constraint is satisfiable.
 * Pods are renamed with `name(i)` and keep every other field.
 * @throws Error when fewer GPU tasks than wanted can be constrained
 */
export function addGpuSpecs(
  base: readonly TracePod[],
  nodes: readonly TraceNode[],
  constrainedPct: number,
  mix: GpuSpecMix,
  rng: Rng,
  name: (i: number) => string,
): TracePod[] {
  const models = modelsOf(nodes);
  const allModels = [...models.keys()].sort();
  const draw = mix === 'gpuspec' ? proportionalDrawer(models) : productionDrawer(models);
  const covered = (feasible: readonly string[]): boolean =>
    mix === 'gpuspec'
      ? feasible.length > 0
      : PRODUCTION_SPEC_MIX.some((s) => s.models.some((m) => feasible.includes(m)));
  const feasibleCache = new Map<string, string[]>();
  const feasible = (p: TracePod): string[] => {
    const key = `${p.gpuCount}/${p.cpuMilli}/${p.hostMemoryMiB}`;
    let found = feasibleCache.get(key);
    if (found === undefined) {
      found = allModels.filter((m) => models.get(m)!.nodes.some((n) => canHostWhenEmpty(n, p)));
      feasibleCache.set(key, found);
    }
    return found;
  };

  const gpuTasks: number[] = [];
  base.forEach((p, i) => {
    if (p.gpuCount > 0) gpuTasks.push(i);
  });
  const want = Math.round((constrainedPct / 100) * gpuTasks.length);
  const eligible = gpuTasks.filter((i) => covered(feasible(base[i]!)));
  if (want > eligible.length) {
    throw new Error(
      `cannot constrain ${want} GPU tasks (${constrainedPct}% of ${gpuTasks.length}): only ` +
        `${eligible.length} fit on some node ` +
        `of the node list when it is empty`,
    );
  }
  const chosen = shuffleInPlace(eligible, rng)
    .slice(0, want)
    .sort((a, b) => a - b);
  const specs = new Map<number, string[]>();
  for (const i of chosen) specs.set(i, draw(feasible(base[i]!), rng));
  return base.map((p, i) => {
    const allowed = specs.get(i) ?? [];
    return { ...p, name: name(i), allowedGpuModels: allowed, gpuSpec: allowed.join('|') };
  });
}
