/**
 * The text `gpushare cancel` prints for a bulk cancel's answer (docs/cli.md "cancel"): the ids
 * cancelled and stopping as ranges, the skipped ids one per line with why, and the reason.
 */
import type { BulkCancelResult } from '../contract/bulk-cancel.js';
import { escapeControlCharacters } from '../lib/control-characters.js';
import { formatIdRanges } from '../lib/id-ranges.js';
import { formatTextTable } from './text-table.js';

/**
 * Lines such as:
 *
 * ```
 * cancelled 2000: 1-2000
 * stopping 1: 2001
 * skipped 1:
 *   ID    REASON     MESSAGE
 *   9000  not-found  job 9000 not found
 * reason: cancelled by an admin: maintenance
 * ```
 *
 * A dry run says `would cancel`, `would stop` and `would skip`. Every value from the server is
 * shown with its control characters escaped.
 */
export function formatBulkCancel(result: BulkCancelResult): string {
  const [cancel, stop, skip] = result.dryRun
    ? ['would cancel', 'would stop', 'would skip']
    : ['cancelled', 'stopping', 'skipped'];
  const list = (label: string, ids: readonly number[]): string =>
    `${label} ${ids.length}${ids.length === 0 ? '' : `: ${formatIdRanges(ids)}`}`;
  const lines = [
    list(cancel, result.cancelled),
    list(stop, result.stopping),
    `${skip} ${result.skipped.length}${result.skipped.length === 0 ? '' : ':'}`,
  ];
  if (result.skipped.length > 0) {
    const table = formatTextTable(
      ['ID', 'REASON', 'MESSAGE'],
      result.skipped.map((s) => [String(s.id), s.reason, escapeControlCharacters(s.message)]),
    );
    lines.push(...table.split('\n').map((line) => `  ${line}`));
  }
  lines.push(`reason: ${escapeControlCharacters(result.reason)}`);
  return lines.join('\n');
}
