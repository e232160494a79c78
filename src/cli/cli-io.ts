/**
 * What the client commands (`submit`, `jobs`, ...) touch outside themselves: output streams, the
 * environment, the working folder, fetch and the clock. Passed in so that tests run the commands
 * in-process against a fake server.
 */
import { setTimeout as delay } from 'node:timers/promises';
import type { HttpFetch } from '../adapters/http-client/node-http-fetch.js';

/** The outside world of a client command. */
export interface CliIo {
  /** Writes text (whole lines) to standard output. */
  readonly stdout: (text: string) => void;
  /** Writes text (whole lines) to standard error. */
  readonly stderr: (text: string) => void;
  /** Environment variables (GPUSHARE_URL, GPUSHARE_TOKEN, XDG_CONFIG_HOME, HOME). */
  readonly env: Readonly<Record<string, string | undefined>>;
  /** The working folder relative paths are resolved against (absolute). */
  readonly cwd: () => string;
  /** fetch for API calls (default: node:http requests; the global fetch also fits). */
  readonly fetch?: HttpFetch;
  /** Waits `ms` milliseconds (polling loops). */
  readonly sleep: (ms: number) => Promise<void>;
  /** Current time in epoch milliseconds (job ages). */
  readonly nowMs: () => number;
}

/** The real process: its stdout/stderr, environment, working folder and clock. */
export function processIo(): CliIo {
  return {
    stdout: (text) => process.stdout.write(text),
    stderr: (text) => process.stderr.write(text),
    env: process.env,
    cwd: () => process.cwd(),
    sleep: (ms) => delay(ms),
    nowMs: () => Date.now(),
  };
}
