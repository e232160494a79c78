/**
 * Bins per-arrival samples into the curves A(x) and R(x), x = 0..130, exactly as the FGD authors'
 * merge scripts do (docs/simulator.md "Metric"): each sample's arrived % is rounded half-to-even; a
 * bin's value is the mean of its samples, or, when it has none, of the samples in x−1..x+1.
 */
import { CURVE_POINTS } from './simulation-types.js';

const BINS = CURVE_POINTS + 1; // one extra so that bin 130 can fall back to 131

/** Round half to even (Python's round()), for non-negative values. */
export function roundHalfEven(value: number): number {
  const floor = Math.floor(value);
  const diff = value - floor;
  if (diff > 0.5) return floor + 1;
  if (diff < 0.5) return floor;
  return floor % 2 === 0 ? floor : floor + 1;
}

/** Rounds to 2 decimals. */
export function round2(value: number): number {
  return Math.round(value * 100) / 100;
}

/** Accumulates samples; call `add` after every arrival, then `curves`. */
export class CurveBinner {
  private readonly count = new Float64Array(BINS);
  private readonly sumAllocation = new Float64Array(BINS);
  private readonly sumFragmentRatio = new Float64Array(BINS);

  /** @param capacityGpus cluster GPUs (e.g. 6212) */
  constructor(private readonly capacityGpus: number) {}

  /**
   * Adds one sample.
   * @param arrivedGpuMilli Σ GPU request of all arrivals so far (failed ones included)
   * @param usedGpuMilli Σ allocated milli-GPU
   * @param fragmentRatioPct 100·F/idle at this point
   */
  add(arrivedGpuMilli: number, usedGpuMilli: number, fragmentRatioPct: number): void {
    const x = roundHalfEven(arrivedGpuMilli / this.capacityGpus / 10);
    if (x < 0 || x >= BINS) return;
    this.count[x]!++;
    this.sumAllocation[x]! += round2(usedGpuMilli / this.capacityGpus / 10);
    this.sumFragmentRatio[x]! += round2(fragmentRatioPct);
  }

  /** A(x) (rounded to 2 decimals) and R(x) for x = 0..130; null where no sample is near. */
  curves(): { allocationPct: (number | null)[]; fragmentRatioPct: (number | null)[] } {
    const allocationPct: (number | null)[] = [];
    const fragmentRatioPct: (number | null)[] = [];
    for (let x = 0; x < CURVE_POINTS; x++) {
      let n = this.count[x]!;
      let a = this.sumAllocation[x]!;
      let r = this.sumFragmentRatio[x]!;
      if (n === 0) {
        for (const y of [x - 1, x + 1]) {
          if (y < 0 || y >= BINS) continue;
          n += this.count[y]!;
          a += this.sumAllocation[y]!;
          r += this.sumFragmentRatio[y]!;
        }
      }
      allocationPct.push(n === 0 ? null : round2(a / n));
      fragmentRatioPct.push(n === 0 ? null : r / n);
    }
    return { allocationPct, fragmentRatioPct };
  }
}
