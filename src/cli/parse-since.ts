/**
 * `--since` of the client commands (`gpushare audit list --since`, `gpushare cancel --since`): an
 * ISO 8601 time or a duration back from now.
 */
import { InvalidArgumentError } from 'commander';

const UNITS_MS: Readonly<Record<string, number>> = { s: 1000, m: 60_000, h: 3_600_000, d: 86_400_000 };

/**
 * `--since`: an ISO 8601 time (`2025-01-31T12:00:00Z`) or a duration back from now (`90s`, `30m`, `1h`, `7d`).
 * @returns the ISO 8601 time
 * @throws InvalidArgumentError naming the accepted forms
 */
export function parseSince(text: string, nowMs: number): string {
  const duration = /^(\d{1,9})([smhd])$/.exec(text.trim());
  if (duration) return new Date(nowMs - Number(duration[1]) * UNITS_MS[duration[2]!]!).toISOString();
  if (/^\d{4}-\d\d-\d\dT/.test(text) && !Number.isNaN(Date.parse(text))) return new Date(Date.parse(text)).toISOString();
  throw new InvalidArgumentError(`'${text}' is neither an ISO 8601 time (e.g. 2025-01-31T12:00:00Z) nor a duration (e.g. 90s, 30m, 1h, 7d)`);
}
