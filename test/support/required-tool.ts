/**
 * Tool policy of tests that drive an external program (promtool, prometheus, chromium): when the
 * program is missing, the test is skipped with a message saying how to install it, unless the
 * environment sets `GPUSHARE_REQUIRE_TOOLS=1` (CI does, in `.ci/run`), where a missing program is a
 * failure.
 */
import { isExecutableFile } from '../../src/host/resolve-executable.js';

/** Environment variable that turns a missing tool into a failure. */
export const REQUIRE_TOOLS_ENV = 'GPUSHARE_REQUIRE_TOOLS';

/**
 * Whether the executable at `path` exists, so the tests that need it can run.
 *
 * Returns true when `path` is an executable file. When it is not: with `GPUSHARE_REQUIRE_TOOLS=1`
 * in `env`, throws an Error naming the path and `installHint` (so the suite fails at collection);
 * otherwise writes one line to stderr (`skipped: <path> not found; install it with: <installHint>`)
 * and returns false, for `describe.skipIf(!requireTool(...))`.
 *
 * @param path absolute path of the executable, e.g. `/usr/bin/promtool`
 * @param installHint the command that installs it, e.g. `apt-get install prometheus`
 * @param env the environment to read `GPUSHARE_REQUIRE_TOOLS` from (default `process.env`)
 */
export function requireTool(path: string, installHint: string, env: NodeJS.ProcessEnv = process.env): boolean {
  if (isExecutableFile(path)) return true;
  const message = `${path} not found; install it with: ${installHint}`;
  if (env[REQUIRE_TOOLS_ENV] === '1') {
    throw new Error(`${message} (required because ${REQUIRE_TOOLS_ENV}=1)`);
  }
  process.stderr.write(`skipped: ${message}\n`);
  return false;
}
