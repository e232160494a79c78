/**
 * Bounded polling: the process adapter waits for files and kernel states that have no event to
 * wait on (a freeze taking effect, a supervisor writing its pid file).
 */
import { setTimeout as sleep } from 'node:timers/promises';

/**
 * Calls `check` every `intervalMs` milliseconds until it returns true or `timeoutMs`
 * milliseconds have passed. Resolves to true when `check` succeeded, false on timeout. An
 * exception thrown by `check` propagates.
 */
export async function waitUntil(check: () => boolean, timeoutMs: number, intervalMs = 5): Promise<boolean> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    if (check()) return true;
    if (Date.now() >= deadline) return false;
    await sleep(Math.max(1, Math.min(intervalMs, deadline - Date.now())));
  }
}
