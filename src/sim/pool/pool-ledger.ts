/**
 * Cost accounting of the pool replay (docs/simulator.md "Pool replay", Figures): what a pool pays
 * for. A node is paid from the moment it is asked for (booting included) until it is removed or the
 * replay ends, for all its GPUs, at its hourly price. Plain bookkeeping: no clock, no I/O.
 */

/** A step function over simulated seconds (0 before the first record), with its integral. */
export class StepSeries {
  private readonly times: number[] = [];
  private readonly values: number[] = [];
  /** ∫ up to each change point. */
  private readonly cumulative: number[] = [];

  /**
   * From `timeSeconds` on, the value is `value`. Times must not decrease; a second record at the
   * same time replaces the first.
   * @throws RangeError for a time before the last one
   */
  record(timeSeconds: number, value: number): void {
    const last = this.times.length - 1;
    if (last >= 0 && timeSeconds < this.times[last]!)
      throw new RangeError(`StepSeries: time ${timeSeconds} before ${this.times[last]}`);
    if (last >= 0 && timeSeconds === this.times[last]) {
      this.values[last] = value;
      if (last > 0 && this.values[last - 1] === value) {
        this.times.pop();
        this.values.pop();
        this.cumulative.pop();
      }
      return;
    }
    if (last >= 0 && this.values[last] === value) return;
    const before = last < 0 ? 0 : this.cumulative[last]! + this.values[last]! * (timeSeconds - this.times[last]!);
    this.times.push(timeSeconds);
    this.values.push(value);
    this.cumulative.push(before);
  }

  /** The value at `t` (after the records at `t`). */
  valueAt(t: number): number {
    const i = this.lastAtOrBefore(t);
    return i < 0 ? 0 : this.values[i]!;
  }

  /** ∫ over [0, `t`]. */
  integralTo(t: number): number {
    const i = this.lastAtOrBefore(t);
    return i < 0 ? 0 : this.cumulative[i]! + this.values[i]! * (t - this.times[i]!);
  }

  /** The largest value at any time in [0, `t`]. */
  maxTo(t: number): number {
    let max = 0;
    for (let i = 0; i < this.times.length && this.times[i]! <= t; i++) max = Math.max(max, this.values[i]!);
    return max;
  }

  /** Time-weighted means over `count` equal intervals of [`from`, `to`] (the value at `from` for an empty range). */
  intervalMeans(from: number, to: number, count: number): number[] {
    const width = (to - from) / count;
    return Array.from({ length: count }, (_, k) => {
      const a = from + k * width;
      const b = a + width;
      return width > 0 ? (this.integralTo(b) - this.integralTo(a)) / width : this.valueAt(a);
    });
  }

  private lastAtOrBefore(t: number): number {
    let lo = 0;
    let hi = this.times.length;
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      if (this.times[mid]! <= t) lo = mid + 1;
      else hi = mid;
    }
    return lo - 1;
  }
}

/** A node the pool pays for. */
export interface PaidNode {
  readonly name: string;
  readonly template: string;
  readonly gpuCount: number;
  readonly pricePerHour: number;
  /** When it was asked for, seconds. */
  readonly fromSeconds: number;
}

/** What a pool paid, over [0, end]. */
export interface LedgerTotals {
  /** Σ GPUs × hours paid (booting included). */
  readonly gpuHours: number;
  /** Σ price × hours paid. */
  readonly cost: number;
  /** Nodes paid for at some time. */
  readonly nodes: number;
  /** Most GPUs paid for at once. */
  readonly peakGpus: number;
  /** GPU-hours by template. */
  readonly gpuHoursByTemplate: Readonly<Record<string, number>>;
}

/** The nodes a pool paid for, and the paid GPUs and price per hour over time. */
export class PoolLedger {
  private readonly open = new Map<string, PaidNode>();
  private readonly closed: { readonly node: PaidNode; readonly toSeconds: number }[] = [];
  private gpus = 0;
  private rate = 0;
  /** GPUs paid for over time. */
  readonly paidGpus = new StepSeries();
  /** Price per hour of the pool over time. */
  readonly costRate = new StepSeries();

  /**
   * The pool asked for `node` at `node.fromSeconds`.
   * @throws RangeError for a name already paid for
   */
  requested(node: PaidNode): void {
    if (this.open.has(node.name)) throw new RangeError(`PoolLedger: node ${node.name} is already paid for`);
    this.open.set(node.name, node);
    this.gpus += node.gpuCount;
    this.rate += node.pricePerHour;
    this.paidGpus.record(node.fromSeconds, this.gpus);
    this.costRate.record(node.fromSeconds, this.rate);
  }

  /**
   * Node `name` left the pool at `atSeconds`.
   * @throws RangeError for a node not paid for
   */
  removed(name: string, atSeconds: number): void {
    const node = this.open.get(name);
    if (node === undefined) throw new RangeError(`PoolLedger: node ${name} is not paid for`);
    this.open.delete(name);
    this.closed.push({ node, toSeconds: atSeconds });
    this.gpus -= node.gpuCount;
    this.rate -= node.pricePerHour;
    this.paidGpus.record(atSeconds, this.gpus);
    this.costRate.record(atSeconds, this.rate);
  }

  /** What was paid over [0, `endSeconds`] (nodes still there are paid until then). */
  totals(endSeconds: number): LedgerTotals {
    const byTemplate: Record<string, number> = {};
    let gpuHours = 0;
    let cost = 0;
    const add = (node: PaidNode, to: number): void => {
      const hours = Math.max(0, Math.min(to, endSeconds) - node.fromSeconds) / 3600;
      gpuHours += node.gpuCount * hours;
      cost += node.pricePerHour * hours;
      byTemplate[node.template] = (byTemplate[node.template] ?? 0) + node.gpuCount * hours;
    };
    for (const { node, toSeconds } of this.closed) add(node, toSeconds);
    for (const node of this.open.values()) add(node, endSeconds);
    return {
      gpuHours,
      cost,
      nodes: this.closed.length + this.open.size,
      peakGpus: this.paidGpus.maxTo(endSeconds),
      gpuHoursByTemplate: byTemplate,
    };
  }
}
