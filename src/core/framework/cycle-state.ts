/**
 * Per-cycle scratch state shared by the plugins of one scheduling cycle (one pod), with typed
 * keys, as Kubernetes' CycleState. A plugin computes something once (e.g. in PreScore) and reads
 * it back in Score.
 */

/** A typed key; create one per datum, named after the owning plugin. */
export class StateKey<T> {
  declare private readonly phantom: T;
  constructor(readonly name: string) {}
}

/** Mutable key/value store for one cycle. */
export class CycleState {
  private readonly values = new Map<StateKey<unknown>, unknown>();

  get<T>(key: StateKey<T>): T | undefined {
    return this.values.get(key) as T | undefined;
  }

  set<T>(key: StateKey<T>, value: T): void {
    this.values.set(key, value);
  }

  /** A shallow copy (values are shared), for what-if evaluation. */
  clone(): CycleState {
    const copy = new CycleState();
    for (const [k, v] of this.values) copy.values.set(k, v);
    return copy;
  }
}
