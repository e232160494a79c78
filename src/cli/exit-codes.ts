/**
 * The one place that maps errors to the CLI's exit codes and messages.
 *
 * - 0: success, or `--help` / `--version`.
 * - 1: the run failed: a trace file is missing or malformed, an output file cannot be written, or
 *   an internal error.
 * - 2: usage error: a bad flag value, an unknown option, an unknown policy.
 */
import { CommanderError } from 'commander';
import { UnknownPolicyError } from '../sim/packing-replay.js';
import { TraceFormatError } from '../sim/traces/trace-types.js';

/** Exit status for a successful run. */
export const EXIT_OK = 0;
/** Exit status for a failed run (bad input file, I/O error, internal error). */
export const EXIT_FAILURE = 1;
/** Exit status for a usage error (bad option value, unknown policy). */
export const EXIT_USAGE = 2;

/** A bad option value detected outside commander's own parsing; the message names the flag. */
export class UsageError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'UsageError';
  }
}

/** An output file (`--json`, `--report`) that cannot be written. */
export class OutputFileError extends Error {
  constructor(readonly flag: string, readonly path: string, reason: string) {
    super(`cannot write ${flag} file '${path}': ${reason}`);
    this.name = 'OutputFileError';
  }
}

/**
 * Reports `err` on stderr (unless commander already printed it) and returns the exit code.
 *
 * @param err - Anything thrown while parsing or running a command.
 * @param write - Sink for the message (default: process.stderr); gets whole lines.
 * @returns 0 for help/version, 2 for usage errors (commander errors, {@link UsageError},
 *   UnknownPolicyError), 1 otherwise (TraceFormatError, {@link OutputFileError}, anything else).
 */
export function handleCliError(err: unknown, write: (text: string) => void = (t) => process.stderr.write(t)): number {
  if (err instanceof CommanderError) {
    // Commander has already written its message (e.g. "error: option '--seeds <list>' argument ...").
    // Help and version requests exit with 0; help shown for a missing command exits with 1 there.
    return err.exitCode === 0 ? EXIT_OK : EXIT_USAGE;
  }
  if (err instanceof UsageError || err instanceof UnknownPolicyError) {
    write(`error: ${err.message}\n`);
    return EXIT_USAGE;
  }
  if (err instanceof TraceFormatError || err instanceof OutputFileError) {
    write(`error: ${err.message}\n`);
    return EXIT_FAILURE;
  }
  const detail = err instanceof Error ? (process.env.GPUSHARE_DEBUG ? (err.stack ?? err.message) : err.message) : String(err);
  write(`error: ${detail}\n`);
  return EXIT_FAILURE;
}
