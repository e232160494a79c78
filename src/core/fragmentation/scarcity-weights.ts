/**
 * Scarcity weighting of a target workload for clusters whose tasks carry GPU-model constraints.
 *
 * FGD's popularity p_m counts how often a task type occurs, whatever it may run on. A type that
 * may run only on `T4` (842 of the Alibaba cluster's 6212 GPUs) competes for far fewer GPUs than an
 * unconstrained one, so each idle GPU it can use is worth more to it. The default policy weighs
 * each constrained type by C / C_A (all GPUs over the GPUs of its allowed models A), so that an
 * unconstrained task taking a GPU of a scarce model pays for what the constrained types lose, and
 * such tasks go to the plentiful models first (docs/default-policy.md, "Scarce models").
 */
import type { NodeState } from '../framework/node-state.js';
import type { TargetWorkload } from './target-workload.js';

/**
 * GPUs per model over `nodes` (their specs' `gpuCount`, whatever is allocated); nodes without a
 * GPU model are left out.
 */
export function gpuCountByModel(nodes: readonly NodeState[]): Map<string, number> {
  const counts = new Map<string, number>();
  for (const n of nodes) {
    const model = n.spec.gpuModel;
    if (model === null || n.spec.gpuCount === 0) continue;
    counts.set(model, (counts.get(model) ?? 0) + n.spec.gpuCount);
  }
  return counts;
}

/**
 * `workload` with each type allowed on a set A of models reweighted p_m · C / C_A, where C is the
 * cluster's GPU count and C_A that of the models in A (from `gpusByModel`). Unconstrained types,
 * and types none of whose models the cluster has (C_A = 0), keep their weight. Returns `workload`
 * itself when no type is reweighted, so a trace without constraints is scored exactly as before.
 * `weightSum` is the new Σ p_m.
 */
export function weightByScarcity(workload: TargetWorkload, gpusByModel: ReadonlyMap<string, number>): TargetWorkload {
  let total = 0;
  for (const c of gpusByModel.values()) total += c;
  const factors = workload.types.map((t) => {
    if (t.allowedSet === null) return 1;
    let allowed = 0;
    for (const m of t.allowedSet) allowed += gpusByModel.get(m) ?? 0;
    return allowed === 0 || allowed === total ? 1 : total / allowed;
  });
  if (factors.every((f) => f === 1)) return workload;
  // Every type from this one literal, so the scoring loop sees objects of one shape.
  const types = workload.types.map((t, i) => ({
    cpuMilli: t.cpuMilli,
    gpuMilli: t.gpuMilli,
    gpuCount: t.gpuCount,
    allowedGpuModels: t.allowedGpuModels,
    count: t.count,
    weight: t.weight * factors[i]!,
    allowedSet: t.allowedSet,
  }));
  return { ...workload, types, weightSum: types.reduce((s, t) => s + t.weight, 0) };
}
