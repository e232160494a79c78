/**
 * Building the MIG planner's result (internal to src/core/mig/plan-reconfiguration.ts): the plan's
 * destroys, creates and assignments from a search result, reasons for unplaced requests, and the
 * explanation lines.
 *
 * @internal Not re-exported from plan-reconfiguration.ts.
 */
import type { MigGpuInstance } from './mig-allocator.js';
import { describeMigGi, explainMigFit } from './explain-fit.js';
import { largestFirst, type GpuState, type Req } from './plan-search-state.js';
import type { SearchResult } from './plan-greedy.js';
import type {
  MigPlanAssignment,
  MigPlanCreate,
  MigPlanDestroy,
  MigPlanUnplaced,
  MigReconfigurationInput,
  MigReconfigurationPlan,
} from './plan-types.js';

/** A GE figure for the explanation, to three decimals. */
export function formatGe(ge: number): string {
  return (Math.round(ge * 1000) / 1000).toString();
}

/**
 * Turns a search result into the plan: destroys, creates, assignments in queue order, unplaced
 * requests with their reasons, and the explanation (summary, `notes`, per-GPU actions, unplaced).
 */
export function toPlan(
  input: MigReconfigurationInput,
  requests: readonly Req[],
  result: SearchResult,
  notes: readonly string[],
): MigReconfigurationPlan {
  const destroy: MigPlanDestroy[] = [];
  const create: MigPlanCreate[] = [];
  const assignmentByPos = new Map<number, MigPlanAssignment>();
  const jobOf = (pos: number): number => requests[pos]?.jobId ?? -1;
  const perGpuLines: string[] = [];
  /** Per state: the GIs taken after the plan (in use, created, reused), all marked in use. */
  const taken = new Map<GpuState, MigGpuInstance[]>();

  for (const state of result.states) {
    const gpuIndex = state.gpu.gpuIndex;
    const model = state.gpu.model;
    const destroyed = [...state.destroyed].sort((a, b) => a.gi.start - b.gi.start);
    for (const d of destroyed) destroy.push({ gpuIndex, start: d.gi.start, profileId: d.gi.profileId });
    const created = [...state.created].sort(
      (a, b) => largestFirst(a.profile, b.profile) || (a.start ?? 0) - (b.start ?? 0),
    );
    for (const c of created) {
      const start = c.start ?? 0;
      create.push({ gpuIndex, profileId: c.profile.profileId, start, size: c.profile.memorySlices });
      assignmentByPos.set(c.pos, {
        jobId: jobOf(c.pos),
        gpuIndex,
        start,
        profileId: c.profile.profileId,
        reused: false,
      });
    }
    const bound = [...state.bound].sort((a, b) => a[0] - b[0]);
    for (const [pos, gi] of bound) {
      assignmentByPos.set(pos, { jobId: jobOf(pos), gpuIndex, start: gi.start, profileId: gi.profileId, reused: true });
    }
    taken.set(
      state,
      [...state.fixed, ...bound.map(([, gi]) => gi)]
        .map((gi) => ({ ...gi, inUse: true }))
        .sort((a, b) => a.start - b.start),
    );

    const actions = [
      ...destroyed.map((d) => `destroy ${describeMigGi(model, d.gi)}`),
      ...created.map(
        (c) => `create ${c.profile.name} at ${c.start ?? 0}:${c.profile.memorySlices} for job ${jobOf(c.pos)}`,
      ),
    ];
    const reuses = bound.map(([pos, gi]) => `job ${jobOf(pos)} reuses ${describeMigGi(model, gi)}`);
    if (actions.length > 0 || reuses.length > 0)
      perGpuLines.push(`GPU ${gpuIndex} (${model}): ${[...actions, ...reuses].join('; ')}`);
  }

  const assignments: MigPlanAssignment[] = [];
  const unplaced: MigPlanUnplaced[] = [];
  const unplacedLines: string[] = [];
  const whyNot = new Map<string, string>();
  for (const req of requests) {
    const a = assignmentByPos.get(req.pos);
    if (a !== undefined) {
      assignments.push(a);
      continue;
    }
    const reasons: string[] = [];
    result.states.forEach((state, i) => {
      const profile = req.profiles[i];
      if (profile === undefined) return;
      const key = `${state.gpu.gpuIndex}/${profile.profileId}`;
      let text = whyNot.get(key);
      if (text === undefined) {
        const fit = explainMigFit(state.gpu.model, taken.get(state) ?? [], profile);
        text = fit.fits
          ? `GPU ${state.gpu.gpuIndex}: ${profile.name} would need idle GIs the plan keeps for other requests`
          : `GPU ${state.gpu.gpuIndex}: ${fit.reason}`;
        whyNot.set(key, text);
      }
      reasons.push(text);
    });
    const reason =
      reasons.length === 0
        ? 'no schedulable MIG GPU with a valid layout offers a profile for it'
        : `does not fit even with every idle GI destroyed — ${reasons.join(' | ')}`;
    unplaced.push({ jobId: req.jobId, reason });
    unplacedLines.push(`job ${req.jobId} not placed: ${reason}`);
  }

  const totalGe = requests.reduce((sum, r) => sum + r.ge, 0);
  const summary =
    `places ${assignments.length} of ${input.queue.length} request${input.queue.length === 1 ? '' : 's'} ` +
    (`(${formatGe(result.ge)} of ${formatGe(totalGe)} GPU-equivalents), destroying ${destroy.length} idle ` +
      `GI${destroy.length === 1 ? '' : 's'} `) +
    (`and creating ${create.length}; ${assignments.filter((a) => a.reused).length} reuse` +
      `${assignments.filter((a) => a.reused).length === 1 ? 's' : ''} an idle GI`);
  return {
    destroy,
    create,
    assignments,
    unplaced,
    explanation: [summary, ...notes, ...perGpuLines, ...unplacedLines],
    placedGpuEquivalents: result.ge,
  };
}
