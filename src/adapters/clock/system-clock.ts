/**
 * The system clock (app/ports/clock.ts): `Date.now`, `performance.now`, `setInterval`,
 * `setTimeout`, and `setImmediate` for tasks due at once.
 */
import type { Clock, Timer } from '../../app/ports/clock.js';

/** A clock on the process's real time. */
export function createSystemClock(): Clock {
  return {
    nowMs: () => Date.now(),
    monotonicMs: () => performance.now(),
    every(intervalMs, task): Timer {
      const handle = setInterval(task, intervalMs);
      return { cancel: () => clearInterval(handle) };
    },
    after(delayMs, task): Timer {
      if (delayMs <= 0) {
        const handle = setImmediate(task);
        return { cancel: () => clearImmediate(handle) };
      }
      const handle = setTimeout(task, delayMs);
      return { cancel: () => clearTimeout(handle) };
    },
  };
}
