/**
 * The order in which queued jobs are considered, with aging and fair share (docs/fair-share.md):
 *
 * 1. effective priority, highest first: the job's priority plus `agingStep` for every whole
 *    `agingIntervalMs` it has waited, capped at the value of the next priority class above its own
 *    (PRIORITY_CLASSES: a `low` job rises up to `normal` (500), never above; `high` up to
 *    `critical`; `critical` or above does not age);
 * 2. its tenant's weighted dominant share, lowest first (the tenant using least goes first);
 * 3. submit time, earliest first;
 * 4. id, lowest first;
 * 5. (only for entries that agree on all of the above, i.e. duplicate ids) base priority, highest
 *    first, then tenant name by UTF-16 code units.
 *
 * A total order on entries, for a fixed context: every pass over the same queue is deterministic.
 * Shares are compared exactly (an epsilon would break transitivity). Aging only orders the queue;
 * preemption should compare base priorities.
 */
import { PRIORITY_CLASSES } from '../model/priority.js';

/** What the order needs to know about a queued job. `JobRequest` fits. */
export interface QueueEntry {
  readonly id: number;
  readonly tenant: string;
  /** Base priority; higher is more important (PRIORITY_CLASSES). */
  readonly priority: number;
  /** Submit time, ms since the epoch. */
  readonly submittedAtMs: number;
}

/** How waiting raises a job's effective priority. */
export interface AgingSettings {
  /** Wait, ms, that earns one step; > 0. */
  readonly agingIntervalMs: number;
  /** Priority added per whole interval waited; ≥ 0 (0 turns aging off). */
  readonly agingStep: number;
}

/**
 * Defaults: +400 per 30 minutes waited, capped at the next class, so a job that has waited 30
 * minutes ranks with the class above its own (`low` with `normal`, `normal` with `high`, `high`
 * with `critical`). Coarse steps keep the order within a class to fair share and submit time
 * (fine steps, e.g. +10 per 5 minutes, would let wait time outrank fair share inside a class),
 * while nothing starves behind a stream of newer jobs of its own class.
 */
export const DEFAULT_AGING: AgingSettings = { agingIntervalMs: 1_800_000, agingStep: 400 };

/** Everything the order depends on besides the entries themselves. */
export interface QueueOrderContext {
  /** Current time, ms since the epoch. */
  readonly nowMs: number;
  /** Weighted dominant share per tenant (src/core/fairness/dominant-share.ts); a missing tenant counts as 0. */
  readonly dominantShareByTenant: ReadonlyMap<string, number>;
  /** Aging; default {@link DEFAULT_AGING}. */
  readonly aging?: AgingSettings;
}

const CLASS_VALUES: readonly number[] = Object.values(PRIORITY_CLASSES).sort((x, y) => x - y);

/**
 * The highest priority a job of base `priority` may age to: the value of the lowest priority class
 * strictly above it (`low` 100 → 500, 300 → 500, `normal` 500 → 900, `high` → 1000), or `priority`
 * itself when no class is above it (`critical` and higher never age).
 */
export function agingCap(priority: number): number {
  return CLASS_VALUES.find((value) => value > priority) ?? priority;
}

/**
 * A job's priority for ordering at `nowMs`: min(agingCap(priority), priority + agingStep ×
 * floor(waitedMs / agingIntervalMs)), where waitedMs = max(0, nowMs − submittedAtMs) (a submit
 * time in the future counts as no wait).
 *
 * @throws RangeError naming the field when `priority`, `submittedAtMs` or `nowMs` is not finite,
 * `agingIntervalMs` is not a positive finite number, or `agingStep` is negative or not finite
 */
export function effectivePriority(entry: QueueEntry, nowMs: number, aging: AgingSettings = DEFAULT_AGING): number {
  checkFinite('priority', entry.priority);
  checkFinite('submittedAtMs', entry.submittedAtMs);
  checkFinite('nowMs', nowMs);
  checkAging(aging);
  const steps = Math.floor(Math.max(0, nowMs - entry.submittedAtMs) / aging.agingIntervalMs);
  if (steps === 0 || aging.agingStep === 0) return entry.priority;
  return Math.min(agingCap(entry.priority), entry.priority + steps * aging.agingStep);
}

/**
 * Comparator for `Array.prototype.sort`: negative when `a` goes before `b`, by the order in the
 * file comment. compare(a, b) = −compare(b, a), and 0 only for entries equal in all four fields.
 *
 * @throws RangeError as {@link effectivePriority}, or when an `id` is not finite or a tenant's
 * dominant share is negative or not finite
 */
export function compareQueueEntries(a: QueueEntry, b: QueueEntry, ctx: QueueOrderContext): number {
  return compareKeys(keyOf(a, ctx), keyOf(b, ctx));
}

/**
 * A sorted copy of `jobs` (the input is not changed), by {@link compareQueueEntries}. The result
 * does not depend on the order of `jobs`.
 *
 * @throws RangeError as {@link compareQueueEntries}
 */
export function orderQueue<T extends QueueEntry>(jobs: readonly T[], ctx: QueueOrderContext): T[] {
  return jobs
    .map((job) => ({ job, key: keyOf(job, ctx) }))
    .sort((x, y) => compareKeys(x.key, y.key))
    .map(({ job }) => job);
}

/** A queue-order comparator that can also sort a whole queue computing each entry's key once. */
export interface QueueComparator<T> {
  (a: T, b: T): number;
  /** Sorts `entries` in place by this order (each key computed once, no lookups while sorting). */
  sortInPlace(entries: T[]): T[];
}

/**
 * A comparator equal to {@link compareQueueEntries} for one context that computes each entry's key
 * once (keyed by entry object): for sorting large queues, where every entry is compared many times.
 * Use a fresh one per context (per pass); it keeps every key it computed. Its `sortInPlace` sorts a
 * whole queue on precomputed keys, without a lookup per comparison.
 */
export function createQueueComparator<T extends QueueEntry>(ctx: QueueOrderContext): QueueComparator<T> {
  const keys = new Map<T, SortKey>();
  const key = (entry: T): SortKey => {
    let k = keys.get(entry);
    if (k === undefined) keys.set(entry, (k = keyOf(entry, ctx)));
    return k;
  };
  const compare = ((a: T, b: T) => compareKeys(key(a), key(b))) as QueueComparator<T>;
  compare.sortInPlace = (entries) => {
    const sorted = entries.map((entry) => keyOf(entry, ctx)).sort(compareKeys);
    for (let i = 0; i < sorted.length; i++) entries[i] = sorted[i]!.entry as T;
    return entries;
  };
  return compare;
}

/** An entry with what the order compares, computed once (see {@link queueSortKey}). */
export interface SortKey {
  readonly entry: QueueEntry;
  readonly effective: number;
  readonly share: number;
}

/** The sort key of `entry` in context `ctx`. @throws RangeError as {@link compareQueueEntries} */
export function queueSortKey(entry: QueueEntry, ctx: QueueOrderContext): SortKey {
  return keyOf(entry, ctx);
}

/** Negative when the entry of `x` goes before that of `y` (the order in the file comment). */
export function compareSortKeys(x: SortKey, y: SortKey): number {
  return compareKeys(x, y);
}

function keyOf(entry: QueueEntry, ctx: QueueOrderContext): SortKey {
  checkFinite('id', entry.id);
  const share = ctx.dominantShareByTenant.get(entry.tenant) ?? 0;
  if (!Number.isFinite(share) || share < 0)
    throw new RangeError(`dominant share of tenant ${entry.tenant} must be a non-negative number, got ${share}`);
  return { entry, effective: effectivePriority(entry, ctx.nowMs, ctx.aging), share };
}

function compareKeys(x: SortKey, y: SortKey): number {
  const a = x.entry;
  const b = y.entry;
  return (
    sign(y.effective, x.effective) ||
    sign(x.share, y.share) ||
    sign(a.submittedAtMs, b.submittedAtMs) ||
    sign(a.id, b.id) ||
    sign(b.priority, a.priority) ||
    sign(a.tenant, b.tenant)
  );
}

/** −1, 0 or 1 as `x` is below, equal to or above `y` (strings by UTF-16 code units). */
function sign<V extends number | string>(x: V, y: V): number {
  return x < y ? -1 : x > y ? 1 : 0;
}

function checkFinite(field: string, value: number): void {
  if (!Number.isFinite(value)) throw new RangeError(`${field} must be a finite number, got ${value}`);
}

function checkAging(aging: AgingSettings): void {
  if (!Number.isFinite(aging.agingIntervalMs) || aging.agingIntervalMs <= 0) {
    throw new RangeError(`agingIntervalMs must be a positive number, got ${aging.agingIntervalMs}`);
  }
  if (!Number.isFinite(aging.agingStep) || aging.agingStep < 0) {
    throw new RangeError(`agingStep must be a non-negative number, got ${aging.agingStep}`);
  }
}

/**
 * The order without aging or fair share (a pass given no comparator): priority, highest first,
 * then submit time, then id. A total order for distinct ids; negative when `a` goes before `b`.
 */
export function compareQueueOrder(a: QueueEntry, b: QueueEntry): number {
  return b.priority - a.priority || a.submittedAtMs - b.submittedAtMs || a.id - b.id;
}
