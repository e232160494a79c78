/**
 * Sets of whole numbers (job ids) written as ranges, so that a record of many ids stays short:
 * `[1, 2, 3, 7, 9, 10]` is `1-3,7,9-10`. A text that would pass a length bound ends with how many
 * ids it leaves out: `1-3,7,…(+120 more)`.
 */

/**
 * The ids as ascending ranges `a-b` (or `a` alone), comma-separated; '' for none. Duplicates count
 * once. When the text would be longer than `maxLength` characters, as many whole ranges as fit are
 * kept and `…(+N more)` is added (N ids left out), so the result has at most `maxLength` + 20
 * characters.
 * @param ids - whole numbers, in any order
 * @param maxLength - the most characters of ranges kept (default: no bound)
 */
export function formatIdRanges(ids: Iterable<number>, maxLength = Number.POSITIVE_INFINITY): string {
  const sorted = [...new Set(ids)].sort((a, b) => a - b);
  const ranges: { text: string; count: number }[] = [];
  for (let i = 0; i < sorted.length;) {
    let j = i;
    while (j + 1 < sorted.length && sorted[j + 1] === sorted[j]! + 1) j++;
    ranges.push({ text: i === j ? String(sorted[i]) : `${sorted[i]}-${sorted[j]}`, count: j - i + 1 });
    i = j + 1;
  }
  let text = '';
  let kept = 0;
  for (const range of ranges) {
    const next = text === '' ? range.text : `${text},${range.text}`;
    if (next.length > maxLength) return `${text}${text === '' ? '' : ','}…(+${sorted.length - kept} more)`;
    text = next;
    kept += range.count;
  }
  return text;
}
