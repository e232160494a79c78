/**
 * Port: time for the control plane. Everything that waits or repeats (scheduling passes, job
 * monitoring, QoS checks, retention sweeps) goes through it, so tests drive the control plane with
 * a manual clock (adapters/memory/manual-clock.ts) instead of sleeping; `gpushare serve` uses the
 * system clock (adapters/clock/system-clock.ts).
 */

/** A scheduled task; `cancel` stops it (idempotent). */
export interface Timer {
  cancel(): void;
}

/** Now, and tasks later or repeatedly. */
export interface Clock {
  /** Current time, ms since the epoch. */
  nowMs(): number;
  /** A monotonic time for measuring durations, ms (fractional), from an arbitrary origin. */
  monotonicMs(): number;
  /** Runs `task` every `intervalMs` ms (> 0) until cancelled. */
  every(intervalMs: number, task: () => void): Timer;
  /** Runs `task` once after `delayMs` ms; 0 = as soon as the current work is done (before any timer). */
  after(delayMs: number, task: () => void): Timer;
}
