/**
 * Deep freezing of the records the state stores hand out: a record read from a store is an
 * immutable snapshot (as its `readonly` type says), so a store can hand the same object to many
 * callers — and keep it in a cache — without anyone being able to change what is stored.
 */

/**
 * Freezes `value` and every object and array reachable from it, in place.
 * @returns `value` itself
 */
export function deepFreeze<T>(value: T): T {
  if (typeof value === 'object' && value !== null && !Object.isFrozen(value)) {
    Object.freeze(value);
    for (const child of Object.values(value)) deepFreeze(child);
  }
  return value;
}
