/**
 * Test support (not built into dist): the deadlines of the tests, in one place
 * (docs/decisions/0009-tests-that-do-not-flake.md). A deadline bounds a wait on a condition so
 * that a hang fails with a message instead of holding the run; it is never an expectation of
 * speed, so it is sized for the slowest machine the suite must pass on: the 2-core machine with
 * both cores busy, where a Node process takes seconds to start (seven runs of the stand-in
 * nvidia-smi held a MIG job `scheduled` for over 30 s). A wait ends as soon as its condition holds,
 * so a generous deadline costs a passing test nothing.
 *
 * `GPUSHARE_TEST_SLOWDOWN` (a number, default 1) multiplies every deadline, for a machine slower
 * still (an emulator, a sanitizer build).
 */

/**
 * The factor every deadline is multiplied by: `GPUSHARE_TEST_SLOWDOWN`, default 1.
 * @throws Error when it is set to something other than a number ≥ 1
 */
export function testSlowdown(value = process.env['GPUSHARE_TEST_SLOWDOWN']): number {
  if (value === undefined || value === '') return 1;
  const factor = Number(value);
  if (!Number.isFinite(factor) || factor < 1)
    throw new Error(`GPUSHARE_TEST_SLOWDOWN must be a number >= 1 (how much slower this machine is), got '${value}'`);
  return factor;
}

const SLOWDOWN = testSlowdown();

/**
 * How long a test waits for one condition: a job's state, a server or process to start, answer or
 * exit, a file to appear, a CLI run to finish. Two minutes (times the slowdown): a loaded machine
 * gets there in seconds, tens of seconds at worst.
 */
export const WAIT_MS = 120_000 * SLOWDOWN;

/**
 * Vitest's limit for one test or hook (testTimeout, hookTimeout): above every single wait of
 * {@link WAIT_MS}, so that a condition that never holds fails with the wait's own message.
 */
export const TEST_TIMEOUT_MS = 2.5 * WAIT_MS;
