/**
 * The rows of the before/after report (before-after.ts): per figure, the median of each build's
 * rounds, the ratio after ÷ before, and every round's value. A round without the figure (its probe
 * was skipped: a baseline without that benchmark, no Kubernetes components) counts as missing; a
 * build with no value at all shows `n/a`, and so does the ratio. Pure: no I/O.
 */
import { median } from '../lib/statistics.js';
import { num, times } from './format.js';

/** Shown for a median or ratio that cannot be worked out. */
export const NOT_AVAILABLE = 'n/a';

/** The column titles of the report's table, in the order `compareRow` fills them. */
export const COMPARE_HEADER: readonly string[] = [
  'figure',
  'before',
  'after',
  'after ÷ before',
  'before, each round',
  'after, each round',
];

/** The median of the finite values of `values` (a missing round is null); null when there are none. */
export function medianOrNull(values: readonly (number | null)[]): number | null {
  const present = values.filter((v): v is number => v !== null && Number.isFinite(v));
  return present.length === 0 ? null : median(present);
}

/** `after ÷ before`; null when either is missing or `before` is 0. */
export function ratioOrNull(after: number | null, before: number | null): number | null {
  return after === null || before === null || before === 0 ? null : after / before;
}

/**
 * One row of the table (`COMPARE_HEADER`): `name`, the medians of `before` and `after` with
 * `digits` decimals, their ratio with 3, and each round's value (`n/a` for a missing one).
 */
export function compareRow(
  name: string,
  before: readonly (number | null)[],
  after: readonly (number | null)[],
  digits: number,
): string[] {
  const b = medianOrNull(before);
  const a = medianOrNull(after);
  const ratio = ratioOrNull(a, b);
  const value = (v: number | null): string => (v === null ? NOT_AVAILABLE : num(v, digits));
  return [
    name,
    value(b),
    value(a),
    ratio === null ? NOT_AVAILABLE : times(ratio, 3),
    before.map(value).join(', '),
    after.map(value).join(', '),
  ];
}
