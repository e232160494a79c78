/**
 * The MIG layout planner: given the GPUs of a server in MIG mode, with their GPU instances (GIs)
 * and whether each is in use, and a queue of requests for GIs, decides which idle GIs to destroy,
 * which GIs to create where, and which GI each request gets.
 *
 * GIs persist: a GI created for a job stays after the job, idle, so the next job of that profile
 * can use it at once; when the queue needs other shapes, idle GIs are destroyed and new ones
 * created. A GI in use is never touched.
 *
 * The search (docs/mig.md, "Planning reconfigurations"), a heuristic with a stated bound:
 * - Per GPU (plan-gpu-search.ts), every subset of its idle GIs is tried as the set to destroy (≤ 7
 *   idle GIs on a GPU, so ≤ 128 subsets). For each, the remaining queue is packed onto the GPU: a
 *   request takes an idle GI of its profile if one survives (reuse, no change), else a new GI at
 *   `choosePlacement`'s start (mig-allocator.ts) in free slices, else it is skipped. The packing runs in queue order
 *   and, when that leaves
 *   a request out, also largest profile first (the order in which a batch of GIs fits best); the
 *   better one counts. Destroys the packing did not need (the GI can be put back and the layout
 *   stays valid) are dropped. The GPU's best subset places the most GPU-equivalents (GE), then
 *   destroys fewest GIs, then creates fewest, then places the earliest requests.
 * - Across GPUs (plan-greedy.ts), greedily: the GPU whose best subset gains the most GE per destroyed GI (none
 *   destroyed = infinitely good), then the most GE per created GI (pure reuse first), then the most
 *   GE, then the lowest GPU index, is applied; the placed requests leave the queue; repeat until no
 *   GPU can place anything.
 * - Which idle GI of a profile a reusing request gets is decided last (lowest start first), so the
 *   subset search may destroy any idle GI of that profile as long as enough stay for the requests
 *   that reuse them.
 * - The search runs twice — as above, and after first reserving, in queue order, an idle GI of the
 *   right profile for every request that has one (lowest GPU index first) — and the better plan wins:
 *   most GE, then fewest destroys, then fewest creates, then the earliest requests placed.
 * Cost: per round ≤ GPUs × 128 subsets × 2 packings of ≤ (queue length) steps, each with at most 7
 * successful `choosePlacement` calls (memoized per layout within a plan); rounds ≤ requests
 * placed. Packings are shared by GPUs in the same state and kept across rounds while still exact.
 * Measured (warm, CPU time): 50 requests on 8 H100s with 7 idle GIs each ≈ 25 ms; on 8 GPUs with a
 * few idle GIs ≈ 5 ms; on 8 empty GPUs ≈ 1 ms.
 *
 * Guarantees (checked by the property tests): no GI in use is destroyed or assigned; every layout
 * met when applying the plan's destroys then creates, in order, is valid ({@link isValidLayout});
 * every destroy is needed (putting any destroyed GI back into the final layout makes it invalid);
 * every created GI is assigned; each request is either assigned to one GI of its profile that
 * exists in the final layout, and no GI is assigned twice, or listed as unplaced with a reason; an
 * unplaced request fits on no usable GPU even with every idle GI the plan does not use destroyed; a
 * lone request reuses an idle GI when there is one, else destroys the fewest idle GIs any GPU needs.
 * Not guaranteed: that no other plan places more GE or destroys fewer GIs for several requests —
 * the packing is greedy in its order and the choice across GPUs is greedy.
 *
 * Files: the public types are in plan-types.ts, applying a plan to a layout in plan-apply.ts, the
 * search state and its orders in plan-search-state.ts, the per-GPU search in plan-gpu-search.ts, the
 * cross-GPU greedy in plan-greedy.ts and building the plan in plan-output.ts; this file validates the
 * input, runs the search and re-exports the public API.
 */
import { isValidLayout } from './mig-allocator.js';
import { migGeometry, migProfilesFor, type MigProfile } from './mig-profiles.js';
import { compareResults, search } from './plan-greedy.js';
import { toPlan } from './plan-output.js';
import { memoizedPlace, type Req } from './plan-search-state.js';
import type { MigPlanGpu, MigReconfigurationInput, MigReconfigurationPlan } from './plan-types.js';

export type { MigPlanGpu, MigPlanRequest, MigReconfigurationInput, MigReconfigurationPlan } from './plan-types.js';
export { applyMigPlan, applyMigPlanSteps, migPlanForGpu } from './plan-apply.js';

/**
 * Plans the MIG layout changes that let the queue run: which idle GIs to destroy, which GIs to
 * create where, and which GI each request gets. See the module comment for the search, its bound and
 * its guarantees, and docs/mig.md ("Planning reconfigurations") for worked examples.
 *
 * GPUs not schedulable, of a model without MIG profiles, or whose layout is invalid
 * ({@link isValidLayout}) are left as they are and get nothing. A request whose profile is a
 * `MigProfile` can go only to GPUs of that profile's model.
 *
 * Example (H100-80GB, idle `1g.10gb` GIs at 0, 1 and 5; queue: one `3g.40gb`): destroy the 1g at 5,
 * create the 3g at 4 (start 0 would need two destroys).
 *
 * @throws RangeError on two GPUs with one index, two requests with one job ID, a request's
 *   gpuEquivalents not positive and finite, or a per-model choice returning a profile of another model.
 */
export function planMigReconfiguration(input: MigReconfigurationInput): MigReconfigurationPlan {
  const indices = new Set<number>();
  for (const gpu of input.gpus) {
    if (indices.has(gpu.gpuIndex)) throw new RangeError(`GPU index ${gpu.gpuIndex} appears twice`);
    indices.add(gpu.gpuIndex);
  }
  const jobIds = new Set<number>();
  for (const r of input.queue) {
    if (jobIds.has(r.jobId)) throw new RangeError(`job ${r.jobId} appears twice in the queue`);
    jobIds.add(r.jobId);
    if (!Number.isFinite(r.gpuEquivalents) || r.gpuEquivalents <= 0) {
      throw new RangeError(`job ${r.jobId}: gpuEquivalents must be positive and finite, got ${r.gpuEquivalents}`);
    }
  }

  const explanation: string[] = [];
  const usable: MigPlanGpu[] = [];
  for (const gpu of [...input.gpus].sort((a, b) => a.gpuIndex - b.gpuIndex)) {
    if (!gpu.schedulable) explanation.push(`GPU ${gpu.gpuIndex}: not schedulable, left as it is`);
    else if (migGeometry(gpu.model) === undefined)
      explanation.push(`GPU ${gpu.gpuIndex}: ${gpu.model} has no MIG profiles, left as it is`);
    else if (!isValidLayout(gpu.model, gpu.gis))
      explanation.push(`GPU ${gpu.gpuIndex}: its GI layout is not valid for ${gpu.model}, left as it is`);
    else usable.push(gpu);
  }

  // A request's profile per model, asked once per model (catalog name), so GPUs of one model agree.
  const requests: Req[] = input.queue.map((r, pos) => {
    const byModel = new Map<string, MigProfile | undefined>();
    const profileOn = (model: string): MigProfile | undefined => {
      const canonical = migProfilesFor(model)[0]?.gpuModel ?? model;
      if (byModel.has(canonical)) return byModel.get(canonical);
      const profile = typeof r.profile === 'function' ? r.profile(canonical) : r.profile;
      const ofModel = profile !== undefined && migProfilesFor(canonical).includes(profile);
      if (typeof r.profile === 'function' && profile !== undefined && !ofModel) {
        throw new RangeError(
          `job ${r.jobId}: the profile chosen for ${canonical} (${profile.name} of ${profile.gpuModel}) ` +
            `is not a profile of that model`,
        );
      }
      byModel.set(canonical, ofModel ? profile : undefined);
      return byModel.get(canonical);
    };
    const profiles = usable.map((gpu) => profileOn(gpu.model));
    return {
      pos,
      jobId: r.jobId,
      ge: r.gpuEquivalents,
      profiles,
      profileIndexes: profiles.map((p, i) =>
        p === undefined ? -1 : migProfilesFor(usable[i]?.model ?? '').indexOf(p),
      ),
    };
  });

  const place = memoizedPlace();
  let result = search(usable, requests, false, place);
  const anyIdleReuse = requests.some((r) =>
    usable.some((gpu, i) => {
      const profile = r.profiles[i];
      return (
        profile !== undefined &&
        gpu.gis.some((gi) => !gi.inUse && gi.profileId === profile.profileId && gi.size === profile.memorySlices)
      );
    }),
  );
  if (anyIdleReuse) {
    const reuseFirst = search(usable, requests, true, place);
    if (compareResults(reuseFirst, result) < 0) result = reuseFirst;
  }
  return toPlan(input, requests, result, explanation);
}
