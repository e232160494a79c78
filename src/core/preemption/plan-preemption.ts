/**
 * The preemption planner (docs/preemption.md): when a job cannot be placed now, finds the cheapest
 * set of running jobs to stop so that it fits, or says why there is none. Generic over a fit
 * oracle: the caller answers "would the job fit with these jobs removed?" with its real
 * device-level placement (per GPU compute, memory, mode and MIG slices; e.g.
 * `Statement.fitsWithout`), so the planner never trusts summed scalars.
 */
import {
  classifyCandidate,
  DEFAULT_PREEMPTION_OPTIONS,
  isEligible,
  type Eligibility,
  type PreemptionCandidate,
  type PreemptionOptions,
  type Preemptor,
} from './eligibility.js';
import { compareCandidates, compareVictimCost, victimCost } from './victim-cost.js';
import { PREEMPTION_CODES, status, type PreemptionCode, type Status, type StatusDetails } from '../model/status.js';

/** The exhaustive search looks at this many of the cheapest eligible candidates (sizes 2 and 3). */
export const EXHAUSTIVE_POOL_SIZE = 12;
/** The largest victim set the exhaustive search tries; larger sets come from the greedy search. */
export const EXHAUSTIVE_MAX_VICTIMS = 3;

/** What the planner needs. */
export interface PreemptionInput {
  readonly preemptor: Preemptor;
  /** The running jobs (any order; job ids unique). Ineligible ones are filtered out here. */
  readonly candidates: readonly PreemptionCandidate[];
  /**
   * The fit oracle: true when the preemptor could be placed now if the jobs `victimIds` (ascending
   * job ids, a fresh array) held nothing. Expected to be monotone (removing more jobs never breaks a
   * fit), as real placement is; the plan is minimal under that assumption.
   */
  readonly fitsWithout: (victimIds: readonly number[]) => boolean;
  /** Guards; missing fields take `DEFAULT_PREEMPTION_OPTIONS`. */
  readonly options?: Partial<PreemptionOptions>;
  /** Now, ms since the epoch (for `minRunSeconds`). */
  readonly nowMs: number;
}

/** The planner's answer: the victims (ascending job ids, never empty), or why there are none. */
export type PreemptionPlan =
  | { readonly kind: 'victims'; readonly victimIds: number[]; readonly lostWorkGpuSeconds: number }
  | { readonly kind: 'none'; readonly reason: Status<PreemptionCode> };

/**
 * The most oracle calls `planPreemption` makes for `eligibleCount` eligible candidates (n): 0 when
 * n = 0, else 2 (all eligible, none) + n (single victims) + C(k, 2) + C(k, 3) (pairs and triples of
 * the k = min(n, 12) cheapest) + max(0, n − 4) (greedy prefixes of 4 … n − 1 victims) + max(0, n − 1)
 * (minimality pass). That is 3n + 283 for n ≥ 12 (e.g. 343 for 20 candidates, 433 for 50).
 * Repeated questions are answered from a memo and not counted.
 */
export function maxPreemptionOracleCalls(eligibleCount: number): number {
  const n = eligibleCount;
  if (n <= 0) return 0;
  const k = Math.min(n, EXHAUSTIVE_POOL_SIZE);
  return 2 + n + choose(k, 2) + choose(k, 3) + Math.max(0, n - 4) + Math.max(0, n - 1);
}

/**
 * Plans a preemption for `input.preemptor`.
 *
 * Victims are candidates that `classifyCandidate` finds eligible. Search, oracle calls memoized:
 * 1. all eligible removed must fit, else `none` (never preempt for a job that would still not fit);
 *    no victims removed must not fit, else `none` (nothing to preempt for);
 * 2. one victim, every eligible candidate, cheapest first; then every pair, then every triple of
 *    the 12 cheapest, each size in cost order: the first set that fits is the plan;
 * 3. otherwise greedy: the cheapest candidates, one more at a time, until the set fits; then each
 *    victim, the most expensive first, is dropped when the rest still fits.
 * Every returned set is one the oracle said fits, and is minimal (no victim can be dropped) when the
 * oracle is monotone. Deterministic: the same input gives the same plan and the same oracle calls.
 * @returns `victims` with ascending job ids and their summed `lostWorkGpuSeconds`, or `none` with a reason
 * @throws RangeError for a non-finite `nowMs`, negative or NaN options, repeated candidate job ids,
 *   or a candidate with a non-finite priority or a negative or non-finite `lostWorkGpuSeconds`
 */
export function planPreemption(input: PreemptionInput): PreemptionPlan {
  const options: PreemptionOptions = { ...DEFAULT_PREEMPTION_OPTIONS, ...input.options };
  validate(input, options);
  const { preemptor } = input;
  const excluded = new Map<Eligibility, number>();
  const eligible: PreemptionCandidate[] = [];
  for (const candidate of input.candidates) {
    const eligibility = classifyCandidate(candidate, preemptor, options, input.nowMs);
    if (isEligible(eligibility)) eligible.push(candidate);
    else excluded.set(eligibility, (excluded.get(eligibility) ?? 0) + 1);
  }
  const refused = (code: PreemptionCode, details: StatusDetails = {}): PreemptionPlan => ({
    kind: 'none',
    reason: status(code, false, {
      preemptorJobId: preemptor.jobId,
      ...details,
      ...(excluded.size === 0 ? {} : excludedDetails(excluded, options)),
    }),
  });
  if (eligible.length === 0) return refused(PREEMPTION_CODES.noEligibleVictim);
  eligible.sort(compareCandidates);

  const memo = new Map<string, boolean>();
  const fits = (victims: readonly PreemptionCandidate[]): boolean => {
    const ids = victims.map((v) => v.jobId).sort((a, b) => a - b);
    const key = ids.join(',');
    let answer = memo.get(key);
    if (answer === undefined) {
      answer = input.fitsWithout(ids) === true;
      memo.set(key, answer);
    }
    return answer;
  };
  const plan = (victims: readonly PreemptionCandidate[]): PreemptionPlan => {
    const cost = victimCost(victims);
    return { kind: 'victims', victimIds: [...cost.jobIdsAsc], lostWorkGpuSeconds: cost.lostWorkGpuSeconds };
  };

  if (!fits(eligible)) return refused(PREEMPTION_CODES.noRoomWithVictims, { eligibleVictims: eligible.length });
  if (fits([]))
    return {
      kind: 'none',
      reason: status(PREEMPTION_CODES.fitsWithoutPreemption, false, { preemptorJobId: preemptor.jobId }),
    };

  for (const single of eligible) if (fits([single])) return plan([single]);
  const pool = eligible.slice(0, EXHAUSTIVE_POOL_SIZE);
  for (let size = 2; size <= Math.min(EXHAUSTIVE_MAX_VICTIMS, pool.length); size++) {
    const sets = combinations(pool, size).map((victims) => ({ victims, cost: victimCost(victims) }));
    sets.sort((a, b) => compareVictimCost(a.cost, b.cost));
    for (const { victims } of sets) if (fits(victims)) return plan(victims);
  }

  // Greedy: the shortest prefix of the cost order that fits (the whole list does), then minimality.
  let size = EXHAUSTIVE_MAX_VICTIMS + 1;
  while (size < eligible.length && !fits(eligible.slice(0, size))) size++;
  let victims = eligible.slice(0, size);
  for (let i = victims.length - 1; i >= 0; i--) {
    const without = [...victims.slice(0, i), ...victims.slice(i + 1)];
    if (without.length > 0 && fits(without)) victims = without;
  }
  return plan(victims);
}

/** All `size`-element subsets of `items`, each in the order of `items`. */
function combinations<T>(items: readonly T[], size: number): T[][] {
  const out: T[][] = [];
  const pick: T[] = [];
  const walk = (from: number): void => {
    if (pick.length === size) {
      out.push([...pick]);
      return;
    }
    for (let i = from; i <= items.length - (size - pick.length); i++) {
      pick.push(items[i]!);
      walk(i + 1);
      pick.pop();
    }
  };
  walk(0);
  return out;
}

function choose(n: number, k: number): number {
  if (k < 0 || k > n) return 0;
  let c = 1;
  for (let i = 0; i < k; i++) c = (c * (n - i)) / (i + 1);
  return c;
}

/** The details' names of the rules that exclude a candidate. */
const EXCLUDED_RULE: Readonly<Record<Exclude<Eligibility, 'priority' | 'reclaim'>, string>> = {
  self: 'self',
  'not-lower-priority': 'notLowerPriority',
  'not-preemptible': 'notPreemptible',
  'too-young': 'tooYoung',
  'preempted-too-often': 'preemptedTooOften',
};

/** How many candidates each rule excludes, and the limits behind two rules (preemption-message.ts writes the line). */
function excludedDetails(excluded: ReadonlyMap<Eligibility, number>, options: PreemptionOptions): StatusDetails {
  const ineligible: Record<string, number> = {};
  for (const [eligibility, count] of excluded)
    if (eligibility !== 'priority' && eligibility !== 'reclaim') ineligible[EXCLUDED_RULE[eligibility]] = count;
  return {
    ineligible,
    minRunSeconds: options.minRunSeconds,
    maxPreemptionsPerJob: options.maxPreemptionsPerJob,
  };
}

function validate(input: PreemptionInput, options: PreemptionOptions): void {
  if (!Number.isFinite(input.nowMs)) throw new RangeError(`nowMs must be finite, got ${input.nowMs}`);
  if (!(options.minRunSeconds >= 0)) throw new RangeError(`minRunSeconds must be ≥ 0, got ${options.minRunSeconds}`);
  if (!(options.maxPreemptionsPerJob >= 0))
    throw new RangeError(`maxPreemptionsPerJob must be ≥ 0, got ${options.maxPreemptionsPerJob}`);
  const seen = new Set<number>();
  for (const c of input.candidates) {
    if (seen.has(c.jobId)) throw new RangeError(`candidate job ${c.jobId} listed twice`);
    seen.add(c.jobId);
    if (!Number.isFinite(c.priority))
      throw new RangeError(`candidate job ${c.jobId}: priority must be finite, got ${c.priority}`);
    if (!(c.lostWorkGpuSeconds >= 0) || !Number.isFinite(c.lostWorkGpuSeconds))
      throw new RangeError(
        `candidate job ${c.jobId}: lostWorkGpuSeconds must be finite and ≥ 0, got ${c.lostWorkGpuSeconds}`,
      );
  }
}
