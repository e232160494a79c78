/**
 * Score of the BestFit baseline (docs/simulator.md "Policies"): raw = trunc((1 − r)·100) with
 * r = ((c_n − c_t)/128000)·0.5 + ((G_n − D_t)/8000)·0.5 — the least CPU and GPU left over wins —
 * then integer min–max normalised over the feasible nodes (all 0 when every raw score is equal).
 */
import { totalGpuMilli } from '../../framework/resource-demand.js';
import type { ScorePlugin } from '../../framework/extension-points.js';
import { MAX_NODE_CPU_MILLI, MAX_NODE_GPU_MILLI } from '../dot-product-score/dot-product-score.js';

/** Plugin name. */
export const NAME = 'best-fit-score';

/** Creates the score plugin. */
export function createBestFitScore(): ScorePlugin {
  return {
    name: NAME,
    cacheable: true,
    score({ pod }, node) {
      let r = 0;
      r += ((node.freeCpuMilli - pod.cpuMilli) / MAX_NODE_CPU_MILLI) * 0.5;
      r += ((node.idleGpuMilli() - totalGpuMilli(pod)) / MAX_NODE_GPU_MILLI) * 0.5;
      return Math.trunc((1 - r) * 100);
    },
    normalize(_ctx, _feasible, scores) {
      let lo = Infinity;
      let hi = -Infinity;
      for (const s of scores) {
        if (s < lo) lo = s;
        if (s > hi) hi = s;
      }
      for (let i = 0; i < scores.length; i++)
        scores[i] = hi === lo ? 0 : Math.floor(((scores[i]! - lo) * 100) / (hi - lo));
    },
  };
}
