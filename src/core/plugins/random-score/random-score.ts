/**
 * Score of the Random baseline (docs/simulator.md "Policies"): PreScore draws one feasible node uniformly; it
 * scores 100 and every other node 0.
 */
import { StateKey } from '../../framework/cycle-state.js';
import type { NodeState } from '../../framework/node-state.js';
import type { ScorePlugin } from '../../framework/extension-points.js';

/** Plugin name. */
export const NAME = 'random-score';

const chosenKey = new StateKey<NodeState>(NAME);

/** Creates the score plugin; draws from the cycle's rng. */
export function createRandomScore(): ScorePlugin {
  return {
    name: NAME,
    cacheable: false,
    preScore({ state, rng }, feasible) {
      state.set(chosenKey, feasible[rng.intn(feasible.length)]!);
    },
    score: ({ state }, node) => (state.get(chosenKey) === node ? 100 : 0),
  };
}
