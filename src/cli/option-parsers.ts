/**
 * Commander argument parsers of the client commands: each wraps a parser of parse-quantities.ts so
 * that a bad value becomes commander's InvalidArgumentError (exit 2, message naming the flag).
 */
import { InvalidArgumentError, type Command } from 'commander';
import { QuantityError } from './parse-quantities.js';
import { MAX_SEED } from './parse-seeds.js';

/**
 * Turns `parse` into a commander argParser: a {@link QuantityError} becomes an InvalidArgumentError
 * whose text is the full message (flag, value and allowed values).
 */
export function asArgParser<T>(parse: (text: string) => T): (text: string) => T {
  return (text) => {
    try {
      return parse(text);
    } catch (err) {
      if (err instanceof QuantityError) throw new InvalidArgumentError(err.message);
      throw err;
    }
  };
}

/**
 * Parses a job id: a whole number ≥ 1 in decimal digits, no sign, spaces or leading zero (an empty
 * shell variable gives '' and is refused, never some job).
 * @throws InvalidArgumentError otherwise.
 */
export function parseJobId(text: string): number {
  const value = /^[1-9]\d*$/.test(text) ? Number(text) : Number.NaN;
  if (!Number.isSafeInteger(value))
    throw new InvalidArgumentError(
      `'${text}' is not a job id; expected a whole number >= 1 in decimal digits (see \`gpushare jobs\`)`,
    );
  return value;
}

/** A decimal number ≥ 0 (digits, optional fraction; no sign or exponent), else NaN. */
export function decimal(text: string): number {
  return /^(\d+(\.\d*)?|\.\d+)$/.test(text.trim()) ? Number(text) : Number.NaN;
}

/** A decimal number > 0 (digits, optional fraction; no sign or exponent), else NaN. */
export function positiveDecimal(text: string): number {
  const value = decimal(text);
  return value > 0 && Number.isFinite(value) ? value : Number.NaN;
}

/** Whether option `key` of `command` was given (on the command line or from the environment), not defaulted. */
export function optionGiven(command: Command, key: string): boolean {
  const source = command.getOptionValueSource(key);
  return source !== undefined && source !== 'default';
}

/** Appends one repeated option value to the list so far (commander's collector for `--env`). */
export function collect(value: string, previous: string[] | undefined): string[] {
  return [...(previous ?? []), value];
}

/**
 * Sets commander's exit override on `command` and all its subcommands, so that usage errors are
 * thrown (and mapped by handleCliError) instead of exiting the process.
 * @returns `command`, for chaining.
 */
export function throwOnExit<C extends Command>(command: C): C {
  command.exitOverride();
  for (const sub of command.commands) throwOnExit(sub);
  return command;
}

const UNITS_MS: Readonly<Record<string, number>> = { s: 1000, m: 60_000, h: 3_600_000, d: 86_400_000 };

/**
 * `--since`: an ISO 8601 time (`2025-01-31T12:00:00Z`) or a duration back from now (`90s`, `30m`, `1h`, `7d`).
 * @returns the ISO 8601 time
 * @throws InvalidArgumentError naming the accepted forms, or for a duration past the earliest date
 */
export function parseSince(text: string, nowMs: number): string {
  const duration = /^(\d{1,9})([smhd])$/.exec(text.trim());
  if (duration) {
    const at = new Date(nowMs - Number(duration[1]) * UNITS_MS[duration[2]!]!);
    // A duration back past the earliest date JavaScript has (`999999999d`) is no time at all.
    if (Number.isNaN(at.getTime()))
      throw new InvalidArgumentError(
        `'${text}' reaches back past the earliest time there is; expected a shorter duration`,
      );
    return at.toISOString();
  }
  if (/^\d{4}-\d\d-\d\dT/.test(text) && !Number.isNaN(Date.parse(text)))
    return new Date(Date.parse(text)).toISOString();
  throw new InvalidArgumentError(
    `'${text}' is neither an ISO 8601 time (e.g. 2025-01-31T12:00:00Z) nor a duration (e.g. 90s, 30m, 1h, 7d)`,
  );
}

/**
 * `--seed`: one seed, an integer in 0..MAX_SEED.
 * @throws InvalidArgumentError naming the range
 */
export function parseSeed(text: string): number {
  const value = /^\d+$/.test(text.trim()) ? Number(text) : Number.NaN;
  if (!(Number.isSafeInteger(value) && value <= MAX_SEED))
    throw new InvalidArgumentError(`expected an integer in 0..${MAX_SEED}`);
  return value;
}

/** Seconds, a decimal number > 0 (`--wait-target`, `--autoscale-interval`, …). */
export function parsePositiveSeconds(text: string): number {
  const value = decimal(text);
  if (!(value > 0 && Number.isFinite(value))) throw new InvalidArgumentError('expected a number of seconds > 0');
  return value;
}

/** Seconds, a decimal number ≥ 0 (`--boot-seconds`, `--scale-up-wait`, …). */
export function parseSeconds(text: string): number {
  const value = decimal(text);
  if (!(value >= 0 && Number.isFinite(value))) throw new InvalidArgumentError('expected a number of seconds ≥ 0');
  return value;
}
