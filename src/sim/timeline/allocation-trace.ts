/**
 * Allocated GPU over simulated time, as a step function recorded at every event time, and its
 * time-weighted means over equal intervals (the "GPU allocation over time" output).
 */

/** Step function of allocated milli-GPU over simulated seconds (0 before the first record). */
export class AllocationTrace {
  private readonly times: number[] = [];
  private readonly values: number[] = [];

  /**
   * Records that from `timeSeconds` on, `allocatedMilli` milli-GPU are allocated. Times must not
   * decrease; a second record at the same time replaces the first.
   * @throws RangeError when `timeSeconds` is earlier than the last record
   */
  record(timeSeconds: number, allocatedMilli: number): void {
    const last = this.times.length - 1;
    if (last >= 0 && timeSeconds < this.times[last]!)
      throw new RangeError(`AllocationTrace: time ${timeSeconds} before ${this.times[last]}`);
    if (last >= 0 && timeSeconds === this.times[last]) {
      this.values[last] = allocatedMilli;
    } else if (last < 0 || this.values[last] !== allocatedMilli) {
      this.times.push(timeSeconds);
      this.values.push(allocatedMilli);
    }
  }

  /** ∫ allocated milli-GPU dt over [0, `t`], milli-GPU·seconds. */
  private integralTo(t: number, cumulative: readonly number[]): number {
    let lo = 0;
    let hi = this.times.length;
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      if (this.times[mid]! <= t) lo = mid + 1;
      else hi = mid;
    }
    const i = lo - 1; // last change point at or before t
    return i < 0 ? 0 : cumulative[i]! + this.values[i]! * (t - this.times[i]!);
  }

  /** Integral up to each change point. */
  private cumulative(): number[] {
    const out: number[] = [];
    let sum = 0;
    for (let i = 0; i < this.times.length; i++) {
      if (i > 0) sum += this.values[i - 1]! * (this.times[i]! - this.times[i - 1]!);
      out.push(sum);
    }
    return out;
  }

  /**
   * Time-weighted mean allocation in % of `capacityMilli` over each of `count` equal intervals of
   * [`fromSeconds`, `toSeconds`]. With an empty range every interval takes the value at `fromSeconds`.
   * @returns `count` percentages, interval i covering [from + i·w, from + (i+1)·w), w = (to − from)/count
   */
  intervalMeansPct(capacityMilli: number, fromSeconds: number, toSeconds: number, count: number): number[] {
    const cumulative = this.cumulative();
    const width = (toSeconds - fromSeconds) / count;
    return Array.from({ length: count }, (_, i) =>
      this.meanPctOver(capacityMilli, fromSeconds + i * width, fromSeconds + (i + 1) * width, cumulative),
    );
  }

  /** Time-weighted mean allocation in % of `capacityMilli` over [`fromSeconds`, `toSeconds`]. */
  meanPct(capacityMilli: number, fromSeconds: number, toSeconds: number): number {
    return this.meanPctOver(capacityMilli, fromSeconds, toSeconds, this.cumulative());
  }

  private meanPctOver(capacityMilli: number, from: number, to: number, cumulative: readonly number[]): number {
    if (capacityMilli <= 0) return 0;
    if (!(to > from)) return (100 * this.valueAt(from)) / capacityMilli;
    return (100 * (this.integralTo(to, cumulative) - this.integralTo(from, cumulative))) / (to - from) / capacityMilli;
  }

  /** Allocated milli-GPU at `t` (after the records at `t`). */
  valueAt(t: number): number {
    let v = 0;
    for (let i = 0; i < this.times.length && this.times[i]! <= t; i++) v = this.values[i]!;
    return v;
  }
}
