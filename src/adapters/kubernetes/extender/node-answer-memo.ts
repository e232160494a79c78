/**
 * The extender's memo of filter answers: per node, per request shape and tenant, whether the pod
 * fits and the policy's score (or why not). An answer stays valid while the node holds the same
 * pods (its generation, bumped by every hold and release on it) and the policy's learned workload is
 * the same (its epoch); after the workload is rebuilt, an answer is kept for 30 to 60 s (at random
 * per answer), so that the nodes are scored again spread over time instead of all in one filter call
 * (at 5,000 nodes that is a pause of about 100 ms). A node that changes is scored again at once.
 *
 * The whole answer of a filter is kept per request shape too: the next filter of that shape over
 * the same candidate list (the kube-scheduler sends the same list pod after pod) answers again only
 * for the nodes touched since, so its cost follows what changed, not the number of nodes.
 */

/** Why a node cannot take a pod; `resolvable` when the shortage could end. */
export interface Failure {
  readonly reason: string;
  readonly resolvable: boolean;
}

/** A memoised answer. */
export interface NodeAnswer {
  /** The policy's score when the pod fits; null when it does not. */
  readonly score: number | null;
  /** Why it does not fit; null when it fits. */
  readonly failed: Failure | null;
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
/**
 * Request keys (shape and tenant) given an id; past it, the least recently used key is forgotten
 * with its whole answer. Every distinct GPU part of a pod is a key: without a bound, a user creating
 * pods with ever different GPU memory values would grow the extender until it runs out of memory.
 * Ids are never reused, so an answer stored under a forgotten id is never read for another key.
 */
export const MAX_SHAPE_IDS = 4_096;
/**
 * Whole answers kept (one per request key, the least recently stored forgotten first). Each holds
 * an answer per candidate node (at 5,000 nodes, about 0.36 MB; 64 of them, about 23 MB), hence far
 * fewer than `MAX_SHAPE_IDS`: the kube-scheduler sends few shapes at a time, pod after pod, and a
 * shape whose whole answer was forgotten is still answered from the per-node memo.
 */
export const MAX_WHOLE_ANSWERS = 64;
/** Touches remembered for whole answers; beyond, they are dropped. */
const MAX_TOUCH_LOG = 65_536;

/** The memo of one cluster view. */
export class NodeAnswerMemo {
  private readonly slots = new Map<string, NodeSlot>();
  /** Ids by request key, least recently used first (at most `MAX_SHAPE_IDS`). */
  private readonly shapeIds = new Map<string, number>();
  /** The next id to hand out (ids are never reused). */
  private nextShapeId = 0;
  private lastNames: readonly string[] = [];
  private lastSlots: (NodeSlot | undefined)[] = [];
  /** Nodes touched, in order (since `touchBase` touches). */
  private readonly touched: string[] = [];
  private touchBase = 0;
  /** The last whole answer per request shape, least recently stored first (at most `MAX_WHOLE_ANSWERS`). */
  private readonly wholes = new Map<
    number,
    {
      names: readonly string[];
      epoch: number;
      scores: Map<string, number>;
      failed: Map<string, Failure>;
      touchedUpTo: number;
    }
  >();

  /** A small integer for a request key (shape and tenant), to look answers up by (once per filter call). */
  shapeId(key: string): number {
    let id = this.shapeIds.get(key);
    if (id !== undefined) {
      this.shapeIds.delete(key);
    } else {
      id = this.nextShapeId++;
      if (this.shapeIds.size >= MAX_SHAPE_IDS) {
        const [oldestKey, oldestId] = this.shapeIds.entries().next().value!;
        this.shapeIds.delete(oldestKey);
        this.wholes.delete(oldestId);
      }
    }
    this.shapeIds.set(key, id);
    return id;
  }

  /** How many request keys have an id and how many whole answers are kept (each bounded). */
  sizes(): { shapeIds: number; wholes: number } {
    return { shapeIds: this.shapeIds.size, wholes: this.wholes.size };
  }

  /** Records that what node `name` holds changed: its answers are stale. */
  touch(name: string): void {
    const slot = this.slots.get(name);
    if (slot) slot.generation++;
    this.touched.push(name);
    // A long log is dropped with every whole answer built on it.
    if (this.touched.length > MAX_TOUCH_LOG) this.clearWhole();
  }

  /**
   * The whole answer of the last filter for request shape `key`, when it was for the same candidate
   * list and policy epoch, with the names of the nodes touched since (to answer again); undefined
   * otherwise. The caller updates the answer's maps for those nodes and stores it back with `storeWhole`.
   */
  whole(
    key: number,
    candidates: readonly string[],
    epoch: number,
  ): { scores: Map<string, number>; failed: Map<string, Failure>; changed: Set<string> } | undefined {
    const cached = this.wholes.get(key);
    if (cached === undefined || cached.epoch !== epoch || cached.names.length !== candidates.length) return undefined;
    for (let i = 0; i < candidates.length; i++) if (cached.names[i] !== candidates[i]) return undefined;
    return {
      scores: cached.scores,
      failed: cached.failed,
      changed: new Set(this.touched.slice(cached.touchedUpTo - this.touchBase)),
    };
  }

  /** Stores the whole answer of a filter (the maps are kept and updated in place by later filters). */
  storeWhole(
    key: number,
    candidates: readonly string[],
    epoch: number,
    scores: Map<string, number>,
    failed: Map<string, Failure>,
  ): void {
    this.wholes.delete(key);
    if (this.wholes.size >= MAX_WHOLE_ANSWERS) this.wholes.delete(this.wholes.keys().next().value!);
    this.wholes.set(key, {
      names: candidates,
      epoch,
      scores,
      failed,
      touchedUpTo: this.touchBase + this.touched.length,
    });
  }

  private clearWhole(): void {
    this.wholes.clear();
    this.touchBase += this.touched.length;
    this.touched.length = 0;
  }

  /**
   * The memo slots of `names` (undefined for a node with none yet), in order. The kube-scheduler
   * sends the same candidate list pod after pod, as fresh strings: the slots of the last list are
   * reused where the names are equal, which saves hashing thousands of names per call.
   */
  slotsOf(names: readonly string[]): (NodeSlotRef | undefined)[] {
    const same = names.length === this.lastNames.length;
    const slots = new Array<NodeSlot | undefined>(names.length);
    for (let i = 0; i < names.length; i++) {
      const cached = same && this.lastNames[i] === names[i] ? this.lastSlots[i] : undefined;
      slots[i] = cached ?? this.slots.get(names[i]!);
    }
    this.lastNames = names;
    this.lastSlots = slots;
    return slots;
  }

  /** The answer in `slot` for request shape `key` (`shapeId`), when still valid. */
  get(slot: NodeSlotRef | undefined, key: number, epoch: number, nowMs: number): NodeAnswer | undefined {
    const answer = (slot as NodeSlot | undefined)?.answers.get(key);
    if (answer === undefined || answer.generation !== (slot as NodeSlot).generation) return undefined;
    return answer.epoch === epoch || answer.staleUntilMs > nowMs ? answer : undefined;
  }

  /** Stores an answer for node `name` computed now. */
  set(name: string, key: number, epoch: number, nowMs: number, answer: NodeAnswer): void {
    let slot = this.slots.get(name);
    if (slot === undefined) this.slots.set(name, (slot = { generation: 0, answers: new Map() }));
    else if (slot.answers.size >= SHAPES_PER_NODE && !slot.answers.has(key))
      slot.answers.delete(slot.answers.keys().next().value!);
    slot.answers.set(key, {
      ...answer,
      epoch,
      generation: slot.generation,
      staleUntilMs: nowMs + STALE_MS * (1 + Math.random()),
    });
  }

  /** Forgets every answer (the nodes changed). */
  clear(): void {
    this.slots.clear();
    this.lastNames = [];
    this.lastSlots = [];
    this.clearWhole();
  }
}

/** A node's memo slot, as `slotsOf` hands it out (opaque). */
export type NodeSlotRef = object;
