/**
 * The extender's memo of filter answers: per node, per request shape and tenant, whether the pod
 * fits and the policy's score (or why not). An answer stays valid while the node holds the same
 * pods (its generation, bumped by every hold and release on it) and the policy's learned workload is
 * the same (its epoch); after the workload is rebuilt, an answer is kept for 30 to 60 s (at random
 * per answer), so that the nodes are scored again spread over time instead of all in one filter call
 * (at 5,000 nodes that is a pause of about 100 ms). A node that changes is scored again at once.
 */

/** A memoised answer. */
export interface NodeAnswer {
  /** The policy's score when the pod fits; null when it does not. */
  readonly score: number | null;
  /** Why it does not fit; null when it fits. */
  readonly failed: { readonly reason: string; readonly resolvable: boolean } | null;
}

interface StoredAnswer extends NodeAnswer {
  readonly epoch: number;
  readonly generation: number;
  readonly staleUntilMs: number;
}

interface NodeSlot {
  generation: number;
  /** By shape id (`shapeId`). */
  readonly answers: Map<number, StoredAnswer>;
}

/** Kept after a rebuild of the learned workload: this to twice this, ms. */
const STALE_MS = 30_000;
/** Request shapes (with tenant) remembered per node; the oldest is forgotten first. */
const SHAPES_PER_NODE = 16;

/** The memo of one cluster view. */
export class NodeAnswerMemo {
  private readonly slots = new Map<string, NodeSlot>();
  private readonly shapeIds = new Map<string, number>();

  /** A small integer for a request key (shape and tenant), to look answers up by (once per filter call). */
  shapeId(key: string): number {
    let id = this.shapeIds.get(key);
    if (id === undefined) this.shapeIds.set(key, (id = this.shapeIds.size));
    return id;
  }

  /** Records that what node `name` holds changed: its answers are stale. */
  touch(name: string): void {
    const slot = this.slots.get(name);
    if (slot) slot.generation++;
    else this.slots.set(name, { generation: 1, answers: new Map() });
  }

  /** The answer for node `name` and request shape `key` (`shapeId`), when still valid. */
  get(name: string, key: number, epoch: number, nowMs: number): NodeAnswer | undefined {
    const slot = this.slots.get(name);
    const answer = slot?.answers.get(key);
    if (answer === undefined || answer.generation !== slot!.generation) return undefined;
    return answer.epoch === epoch || answer.staleUntilMs > nowMs ? answer : undefined;
  }

  /** Stores an answer computed now. */
  set(name: string, key: number, epoch: number, nowMs: number, answer: NodeAnswer): void {
    let slot = this.slots.get(name);
    if (slot === undefined) this.slots.set(name, (slot = { generation: 0, answers: new Map() }));
    else if (slot.answers.size >= SHAPES_PER_NODE && !slot.answers.has(key)) slot.answers.delete(slot.answers.keys().next().value!);
    slot.answers.set(key, { ...answer, epoch, generation: slot.generation, staleUntilMs: nowMs + STALE_MS * (1 + Math.random()) });
  }

  /** Forgets every answer (the nodes changed). */
  clear(): void {
    this.slots.clear();
  }
}
