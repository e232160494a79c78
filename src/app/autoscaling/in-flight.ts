/**
 * A decision of the core turned into the record the autoscaler writes before it acts
 * (docs/decisions/0027): the nodes to cordon, and per template one provider call with the count the
 * group should have and the nodes that leave. A template whose provider is backing off after
 * failures keeps its nodes this time (the core backs off scale-ups itself; removals are held here).
 * Pure.
 */
import {
  AUTOSCALE_CODES,
  backoffSecondsLeft,
  status,
  type AutoscaleDecision,
  type AutoscalePolicy,
  type AutoscaleState,
  type Status,
} from '../../core/index.js';
import type { InFlightDecision, InFlightStep } from '../ports/autoscaler-store.js';

/** The record of one decision, and the reasons a removal was held back. */
export interface PlannedDecision {
  /** Null when the decision changes nothing. */
  readonly inFlight: InFlightDecision | null;
  /** `provider-backoff` for each template whose removals wait. */
  readonly held: readonly Status[];
  /**
   * The count of each template without a provider call: the decision's (more nodes than asked for
   * are there: the count is adopted), or the count before it for a template held back.
   */
  readonly counts: Readonly<Record<string, number>>;
}

/**
 * Plans the record of `decision`.
 * @param desiredNow each template's count before the decision
 * @param state the state the decision was made from (its failures decide the back-off)
 */
export function planInFlight(
  decision: AutoscaleDecision,
  desiredNow: Readonly<Record<string, number>>,
  state: AutoscaleState,
  policy: AutoscalePolicy,
  id: string,
  nowMs: number,
): PlannedDecision {
  const steps: InFlightStep[] = [];
  const held: Status[] = [];
  const heldTemplates = new Set<string>();
  const counts: Record<string, number> = {};
  for (const [template, count] of Object.entries(decision.desiredCount)) {
    const fromCount = desiredNow[template] ?? 0;
    const scaleUp = decision.scaleUp.find((s) => s.template === template) ?? null;
    const remove = decision.remove.filter((r) => r.template === template);
    if (scaleUp === null && remove.length === 0) {
      counts[template] = count;
      continue;
    }
    const secondsLeft = backoffSecondsLeft(state, template, policy, nowMs);
    if (scaleUp === null && secondsLeft > 0) {
      heldTemplates.add(template);
      counts[template] = fromCount;
      held.push(
        status(AUTOSCALE_CODES.providerBackoff, false, {
          template,
          failures: state.failures[template]?.count ?? 0,
          secondsLeft,
        }),
      );
      continue;
    }
    steps.push({ template, fromCount, desiredCount: count, scaleUp, remove, done: false });
  }
  const cordon = decision.cordon.filter((c) => !heldTemplates.has(c.template));
  if (steps.length === 0 && cordon.length === 0) return { inFlight: null, held, counts };
  return { inFlight: { id, decidedAtMs: nowMs, cordon, cordonsDone: false, steps }, held, counts };
}
