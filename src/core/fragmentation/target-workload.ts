/**
 * The target workload M of the FGD fragmentation measure: the popular task types and their shares.
 * Definition from Weng et al., "Beware of Fragmentation" (USENIX ATC'23) §3 and the authors'
 * simulator (`pkg/utils/frag.go`, `podPopularityThreshold: 95`), as restated in
 * docs/simulator.md: types keyed by (CPU, per-GPU milli, GPU count, gpu_spec as written), memory
 * ignored, CPU-only types included, the most popular types covering 95% of tasks kept.
 */

/** The shape of one task, as far as the fragmentation measure cares. */
export interface TaskShape {
  readonly cpuMilli: number;
  /** Per-GPU milli-GPU, 0 for CPU-only. */
  readonly gpuMilli: number;
  readonly gpuCount: number;
  /** Allowed models; empty = any. */
  readonly allowedGpuModels: readonly string[];
}

/** One task type of M with its popularity. */
export interface TaskType extends TaskShape {
  /** Number of tasks of this type in the source list. */
  readonly count: number;
  /** Popularity p_m, renormalised over the kept types (Σ p_m = 1 up to rounding). */
  readonly weight: number;
  /** Allowed models as a set, or null for any model (precomputed for the hot path). */
  readonly allowedSet: ReadonlySet<string> | null;
}

/** M = {(m, p_m)}, in the canonical order (count descending, then CPU, milli, count, spec descending). */
export interface TargetWorkload {
  readonly types: readonly TaskType[];
  /** Σ p_m over `types`. */
  readonly weightSum: number;
  /** Tasks counted in the source list. */
  readonly sourceTaskCount: number;
}

/**
 * Builds M from a list of task shapes (e.g. a trace's original pod list, or recent arrivals).
 * @param tasks the source tasks, each counted once
 * @param coveragePct keep the most popular types until their cumulative count reaches this % of tasks (FGD: 95)
 * @returns M; an empty workload when `tasks` is empty
 */
export function buildTargetWorkload(tasks: readonly TaskShape[], coveragePct = 95): TargetWorkload {
  const counts = new Map<string, { shape: TaskShape; spec: string; count: number }>();
  for (const t of tasks) {
    const spec = t.allowedGpuModels.join('|');
    const key = `${t.cpuMilli}/${t.gpuMilli}/${t.gpuCount}/${spec}`;
    const entry = counts.get(key);
    if (entry) entry.count++;
    else counts.set(key, { shape: t, spec, count: 1 });
  }
  const sorted = [...counts.values()].sort(
    (a, b) =>
      b.count - a.count ||
      b.shape.cpuMilli - a.shape.cpuMilli ||
      b.shape.gpuMilli - a.shape.gpuMilli ||
      b.shape.gpuCount - a.shape.gpuCount ||
      (a.spec < b.spec ? 1 : a.spec > b.spec ? -1 : 0),
  );
  const total = tasks.length;
  const kept: typeof sorted = [];
  let cumulative = 0;
  for (const entry of sorted) {
    if (cumulative >= (total * coveragePct) / 100) break;
    kept.push(entry);
    cumulative += entry.count;
  }
  const keptShare = cumulative / total;
  let weightSum = 0;
  const types = kept.map(({ shape, count }) => {
    const weight = count / total / keptShare;
    weightSum += weight;
    return {
      cpuMilli: shape.cpuMilli,
      gpuMilli: shape.gpuMilli,
      gpuCount: shape.gpuCount,
      allowedGpuModels: shape.allowedGpuModels,
      count,
      weight,
      allowedSet: shape.allowedGpuModels.length === 0 ? null : new Set(shape.allowedGpuModels),
    };
  });
  return { types, weightSum, sourceTaskCount: total };
}
