import { describe, it, expect } from 'vitest';
import { createRandomScore } from './random-score.js';
import { SeededRng } from '../../random/rng.js';
import { aCluster, aCycleContext, aNode, aPod } from '../../testing/builders.js';

const cluster = aCluster(Array.from({ length: 8 }, () => aNode()));

/** The indices of the node scoring 100 in each of `cycles` cycles with one rng of `seed`. */
function picks(seed: number, cycles: number): number[] {
  const plugin = createRandomScore();
  const rng = new SeededRng(seed);
  const out: number[] = [];
  for (let c = 0; c < cycles; c++) {
    const ctx = aCycleContext(cluster, aPod(), rng);
    plugin.preScore!(ctx, cluster.nodes);
    const scores = cluster.nodes.map((n) => plugin.score(ctx, n));
    expect(scores.filter((s) => s === 100)).toHaveLength(1);
    expect(scores.filter((s) => s === 0)).toHaveLength(cluster.nodes.length - 1);
    out.push(scores.indexOf(100));
  }
  return out;
}

describe('random-score', () => {
  it('scores one feasible node 100 and the rest 0; same seed → same choices', () => {
    const a = picks(42, 20);
    expect(a).toEqual(picks(42, 20));
    expect(new Set(a).size).toBeGreaterThan(1);
    expect(a).not.toEqual(picks(43, 20));
  });

  it('draws only among the feasible nodes it is given', () => {
    const plugin = createRandomScore();
    const rng = new SeededRng(7);
    const feasible = [cluster.nodes[2]!, cluster.nodes[5]!];
    for (let c = 0; c < 20; c++) {
      const ctx = aCycleContext(cluster, aPod(), rng);
      plugin.preScore!(ctx, feasible);
      expect(feasible.map((n) => plugin.score(ctx, n)).sort()).toEqual([0, 100]);
      expect(plugin.score(ctx, cluster.nodes[0]!)).toBe(0);
    }
  });

  it('is not cacheable', () => {
    expect(createRandomScore().cacheable).toBe(false);
  });
});
