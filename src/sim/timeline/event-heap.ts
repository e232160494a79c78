/**
 * A binary min-heap of timed events, for the timeline replay's completions: earliest time first,
 * ties in insertion order (so equal-time events pop deterministically).
 */

interface Entry<T> {
  readonly time: number;
  readonly seq: number;
  readonly value: T;
}

/** Min-heap keyed by time (any unit; the replay uses simulated seconds). */
export class EventHeap<T> {
  private readonly items: Entry<T>[] = [];
  private seq = 0;

  /** Number of events held. */
  get size(): number {
    return this.items.length;
  }

  /** Adds `value` at `time`. */
  push(time: number, value: T): void {
    const items = this.items;
    items.push({ time, seq: this.seq++, value });
    let i = items.length - 1;
    while (i > 0) {
      const parent = (i - 1) >> 1;
      if (!before(items[i]!, items[parent]!)) break;
      [items[i], items[parent]] = [items[parent]!, items[i]!];
      i = parent;
    }
  }

  /** Time of the earliest event, or Infinity when empty. */
  peekTime(): number {
    return this.items[0]?.time ?? Number.POSITIVE_INFINITY;
  }

  /** Removes and returns the earliest event's value. @throws RangeError when empty */
  pop(): T {
    const items = this.items;
    const top = items[0];
    if (top === undefined) throw new RangeError('pop from an empty EventHeap');
    const last = items.pop()!;
    if (items.length > 0) {
      items[0] = last;
      let i = 0;
      for (;;) {
        const l = 2 * i + 1;
        const r = l + 1;
        let m = i;
        if (l < items.length && before(items[l]!, items[m]!)) m = l;
        if (r < items.length && before(items[r]!, items[m]!)) m = r;
        if (m === i) break;
        [items[i], items[m]] = [items[m]!, items[i]!];
        i = m;
      }
    }
    return top.value;
  }
}

function before<T>(a: Entry<T>, b: Entry<T>): boolean {
  return a.time < b.time || (a.time === b.time && a.seq < b.seq);
}
