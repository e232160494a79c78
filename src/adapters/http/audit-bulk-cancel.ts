/**
 * How `POST /api/v1/jobs/cancel` (cancel many jobs) is recorded in the audit log: ONE entry per
 * call, whatever the number of jobs (docs/security.md "Audit log"):
 *
 * - action `job.cancel-bulk`, target `jobs` followed by how many were acted on (`jobs (2000
 *   cancelled, 0 stopping)`), tenant: the caller's, or for an admin the `tenant` selector (null
 *   without one);
 * - the summary holds the selector as sent, `ids` written as ranges (`1-2000,2005`, see
 *   src/lib/id-ranges.ts), cut at {@link SUMMARY_IDS_LENGTH} characters;
 * - the outcome's message of a call that succeeded says what it did, e.g.
 *   `cancelled 2000 (1-2000); stopping 1 (2001); skipped 2 (not-found: 9000-9001)`: each count,
 *   then its ids as ranges (skipped ones grouped by reason), each list cut at
 *   {@link OUTCOME_IDS_LENGTH} characters, saying how many ids it leaves out, so that an entry
 *   stays bounded in size;
 * - a dry run (`dryRun: true`) changes nothing and is not recorded.
 *
 * The row itself, which uses these, is in audit-routes.ts.
 */
import { formatIdRanges } from '../../lib/id-ranges.js';

/** Most characters of the ranges of `ids` in the summary (the summary cuts strings at 256). */
export const SUMMARY_IDS_LENGTH = 200;
/** Most characters of each list of ranges in the outcome's message. */
export const OUTCOME_IDS_LENGTH = 1000;

const isIdList = (value: unknown): value is number[] =>
  Array.isArray(value) && value.every((v) => typeof v === 'number' && Number.isSafeInteger(v));
const ids = (value: unknown): number[] => (isIdList(value) ? value : []);

/** The outcome's message of a bulk cancel that answered `answer` (see the module comment). */
export function bulkCancelDoneMessage(answer: Readonly<Record<string, unknown>>): string {
  const list = (label: string, values: number[]): string =>
    `${label} ${values.length}${values.length === 0 ? '' : ` (${formatIdRanges(values, OUTCOME_IDS_LENGTH)})`}`;
  const skipped = Array.isArray(answer.skipped) ? (answer.skipped as { id?: unknown; reason?: unknown }[]) : [];
  const byReason = new Map<string, number[]>();
  for (const s of skipped)
    if (typeof s.id === 'number' && typeof s.reason === 'string')
      byReason.set(s.reason, [...(byReason.get(s.reason) ?? []), s.id]);
  const skippedText =
    byReason.size === 0
      ? 'skipped 0'
      : `skipped ${skipped.length} (` +
        `${[...byReason].map(([reason, of]) => `${reason}: ${formatIdRanges(of, OUTCOME_IDS_LENGTH)}`).join(', ')}` +
        `)`;
  return [list('cancelled', ids(answer.cancelled)), list('stopping', ids(answer.stopping)), skippedText].join('; ');
}

/**
 * The target: `jobs (N cancelled, M stopping)` for the answer of a call that succeeded, else `jobs (none cancelled)`.
 */
export function bulkCancelTarget(answer: Readonly<Record<string, unknown>> | null): string {
  if (answer === null) return 'jobs (none cancelled)';
  return `jobs (${ids(answer.cancelled).length} cancelled, ${ids(answer.stopping).length} stopping)`;
}

/** The body as the summary records it: `ids` as ranges when it is a list of ids, else as sent. */
export function bulkCancelSummaryBody(body: Readonly<Record<string, unknown>>): Record<string, unknown> {
  return isIdList(body.ids) ? { ...body, ids: formatIdRanges(body.ids, SUMMARY_IDS_LENGTH) } : { ...body };
}
