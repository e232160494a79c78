/**
 * The one place that maps errors to the CLI's exit codes and messages.
 *
 * - 0: success, or `--help` / `--version`.
 * - 1: the run failed: a trace file is missing or malformed, an output file cannot be written, or
 *   an internal error.
 * - 2: usage error: a bad flag value, an unknown option, an unknown policy, no server configured.
 * - 3: the gpushare server cannot be reached (client commands: submit, jobs, ...).
 * - 1 also when the server answers a client command with an error (ApiError: the message is
 *   printed), and for a malformed CLI config file.
 * - `submit --wait` exits with the job's own code instead: its exit code, 128+N for signal N,
 *   130 when cancelled, 1 when it failed without one ({@link ExitWithCode}).
 */
import { escapeControlCharacters } from '../lib/control-characters.js';
/**
 * Errors are recognised by name, not by class: the CLI bundle's first file (dist/main/gpushare.cjs),
 * each client command's file (dist/main/gpushare-chunks/) and the compiled server-side commands it
 * loads each have their own copy of these classes (and the latter of commander's CommanderError),
 * and a client command must not load the simulator or the server to map their errors
 * (UnknownPolicyError, TraceFormatError).
 */
const isNamed = (err: unknown, ...names: string[]): err is Error => err instanceof Error && names.includes(err.name);

/** Commander's own errors (help, version, bad usage): a `commander.*` code and an exit code. */
function commanderExitCode(err: unknown): number | null {
  const e = err as { code?: unknown; exitCode?: unknown } | null;
  return err instanceof Error &&
    typeof e?.code === 'string' &&
    e.code.startsWith('commander.') &&
    typeof e.exitCode === 'number'
    ? e.exitCode
    : null;
}

/** Exit status for a successful run. */
export const EXIT_OK = 0;
/** Exit status for a failed run (bad input file, I/O error, internal error). */
export const EXIT_FAILURE = 1;
/** Exit status for a usage error (bad option value, unknown policy). */
export const EXIT_USAGE = 2;

/** Exit status when the gpushare server cannot be reached (connection refused, no answer). */
export const EXIT_UNREACHABLE = 3;

/** Ends a command with a chosen exit status and no message (e.g. `submit --wait` passing on a job's exit code). */
export class ExitWithCode extends Error {
  constructor(readonly exitCode: number) {
    super(`exit ${exitCode}`);
    this.name = 'ExitWithCode';
  }
}

/** A bad option value detected outside commander's own parsing; the message names the flag. */
export class UsageError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'UsageError';
  }
}

/** An output file (`--json`, `--report`) that cannot be written. */
export class OutputFileError extends Error {
  constructor(
    readonly flag: string,
    readonly path: string,
    reason: string,
  ) {
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
 *   UnknownPolicyError), 3 for ApiUnreachableError, the code of {@link ExitWithCode} (nothing
 *   printed), 1 otherwise (TraceFormatError, {@link OutputFileError}, ApiError, ApiResponseError,
 *   CliConfigError, anything else).
 */
export function handleCliError(
  err: unknown,
  writeRaw: (text: string) => void = (t) => process.stderr.write(t),
): number {
  // Messages may quote what a server or a file said: shown with control characters escaped.
  const write = (text: string): void => writeRaw(`${escapeControlCharacters(text.replace(/\n$/, ''))}\n`);
  const commanderExit = commanderExitCode(err);
  if (commanderExit !== null) {
    // Commander has already written its message (e.g. "error: option '--seeds <list>' argument ...").
    // Help and version requests exit with 0; help shown for a missing command exits with 1 there.
    return commanderExit === 0 ? EXIT_OK : EXIT_USAGE;
  }
  if (isNamed(err, 'UsageError', 'UnknownPolicyError')) {
    write(`error: ${err.message}\n`);
    return EXIT_USAGE;
  }
  if (isNamed(err, 'ExitWithCode')) return (err as ExitWithCode).exitCode;
  if (isNamed(err, 'ApiUnreachableError')) {
    write(`error: ${err.message}\n`);
    return EXIT_UNREACHABLE;
  }
  if (isNamed(err, 'ApiError')) {
    const hint =
      (err as { status?: number }).status === 401
        ? ' (check --token, GPUSHARE_TOKEN or the token in the CLI config file)'
        : '';
    write(`error: ${err.message}${hint}\n`);
    return EXIT_FAILURE;
  }
  if (isNamed(err, 'TraceFormatError', 'OutputFileError', 'ApiResponseError', 'CliConfigError')) {
    write(`error: ${err.message}\n`);
    return EXIT_FAILURE;
  }
  const detail =
    err instanceof Error ? (process.env.GPUSHARE_DEBUG ? (err.stack ?? err.message) : err.message) : String(err);
  write(`error: ${detail}\n`);
  return EXIT_FAILURE;
}
