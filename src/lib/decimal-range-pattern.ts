/**
 * A regular expression source that matches exactly the decimal integers from `min` to `max`, written
 * without sign, spaces or leading zeros (`decimalRangePattern(1, 500)` matches `1` … `500`, never
 * `0`, `01` or `501`), so that an OpenAPI `pattern` states a numeric range as precisely as the check
 * behind it.
 */

/** Alternatives matching the digit strings of one length from `low` to `high` (same length, low ≤ high). */
function sameLength(low: string, high: string): string[] {
  if (low === high) return [low];
  const rest = low.length - 1;
  const a = Number(low[0]);
  const b = Number(high[0]);
  if (rest === 0) return [`[${a}-${b}]`];
  const tail = (digits: number): string => (digits === 1 ? '[0-9]' : `[0-9]{${digits}}`);
  const lowRest = low.slice(1);
  const highRest = high.slice(1);
  if (/^0*$/.test(lowRest) && /^9*$/.test(highRest)) return [`${a === b ? a : `[${a}-${b}]`}${tail(rest)}`];
  if (a === b) return sameLength(lowRest, highRest).map((alternative) => `${a}(?:${alternative})`);
  const parts = [`${a}(?:${sameLength(lowRest, '9'.repeat(rest)).join('|')})`];
  if (b - a > 1) parts.push(`${b - a === 2 ? a + 1 : `[${a + 1}-${b - 1}]`}${tail(rest)}`);
  parts.push(`${b}(?:${sameLength('0'.repeat(rest), highRest).join('|')})`);
  return parts;
}

/**
 * The pattern (anchored, `^…$`) of the whole numbers `min`…`max` in decimal.
 * @throws RangeError unless 0 ≤ min ≤ max ≤ Number.MAX_SAFE_INTEGER, both integers
 */
export function decimalRangePattern(min: number, max: number): string {
  if (!Number.isSafeInteger(min) || !Number.isSafeInteger(max) || min < 0 || min > max)
    throw new RangeError(`decimalRangePattern: need integers 0 <= min <= max, got ${min} and ${max}`);
  const alternatives: string[] = [];
  const low = String(min);
  const high = String(max);
  for (let length = low.length; length <= high.length; length++) {
    const from = length === low.length ? low : `1${'0'.repeat(length - 1)}`;
    const to = length === high.length ? high : '9'.repeat(length);
    alternatives.push(...sameLength(from, to));
  }
  return `^(?:${alternatives.join('|')})$`;
}
