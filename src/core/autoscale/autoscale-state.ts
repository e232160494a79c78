/**
 * The autoscaler's memory between decisions, kept by its owner (a store, a Kubernetes object, a
 * replay): the start state, and what a provider's answer changes (failures in a row, for back-off).
 */
import type { AutoscalePolicy, AutoscaleState } from './autoscale-types.js';

/** The state of an autoscaler that has decided nothing yet. */
export const INITIAL_AUTOSCALE_STATE: AutoscaleState = { lastScaleUpMs: null, lowUseSinceMs: {}, failures: {} };

/** `state` after the provider failed for `template` at `nowMs`. */
export function recordProviderFailure(state: AutoscaleState, template: string, nowMs: number): AutoscaleState {
  const count = (state.failures[template]?.count ?? 0) + 1;
  return { ...state, failures: { ...state.failures, [template]: { count, lastMs: nowMs } } };
}

/** `state` after the provider carried out a call for `template`: its failures are forgotten. */
export function recordProviderSuccess(state: AutoscaleState, template: string): AutoscaleState {
  if (state.failures[template] === undefined) return state;
  const failures = { ...state.failures };
  delete failures[template];
  return { ...state, failures };
}

/** Seconds until `template` may be asked for again after its failures; 0 when it may now. */
export function backoffSecondsLeft(
  state: AutoscaleState,
  template: string,
  policy: AutoscalePolicy,
  nowMs: number,
): number {
  const failed = state.failures[template];
  if (failed === undefined) return 0;
  const wait = Math.min(policy.maxBackoffSeconds, policy.backoffSeconds * 2 ** (failed.count - 1));
  return Math.max(0, Math.ceil(wait - (nowMs - failed.lastMs) / 1000));
}
