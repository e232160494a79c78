/**
 * What a fake server answers to `GET /api/v1/jobs`, as the real one pages and shows a listing: the
 * jobs above `after`, at most `limit` of them, `nextAfter` when more follow; with `view=table` the
 * job table's rows (ages from `nowMs`), else the jobs with only the `fields` asked for (and `id`).
 */
import type { JobView } from '../../../contract/api.js';
import { JOB_FIELDS } from '../../../contract/job-fields.js';
import { JOB_TABLE_COLUMNS, jobTableRow } from '../../../contract/job-table.js';
import type { FakeResponse, RecordedRequest } from './fake-api-server.js';

/** The clock of run-client-cli.ts: five minutes after sampleJob's submit time. */
export const LISTING_NOW_MS = Date.parse('2025-01-01T00:05:00.000Z');

/** The answer of a server holding `jobs` (by ascending id) to the listing `request`. */
export function jobListingAnswer(
  jobs: readonly JobView[],
  request: RecordedRequest,
  nowMs: number = LISTING_NOW_MS,
): FakeResponse {
  const after = Number(request.query.get('after') ?? 0);
  const limit = Number(request.query.get('limit') ?? jobs.length);
  const left = jobs.filter((j) => j.id > after);
  const page = left.slice(0, limit);
  const nextAfter = left.length > limit ? page[page.length - 1]!.id : null;
  if (request.query.get('view') === 'table')
    return {
      status: 200,
      body: { columns: [...JOB_TABLE_COLUMNS], rows: page.map((job) => jobTableRow(job, nowMs)), nextAfter },
    };
  const fields = request.query.get('fields')?.split(',');
  const pick = (job: JobView): Partial<JobView> =>
    fields === undefined
      ? job
      : Object.fromEntries(JOB_FIELDS.filter((f) => f === 'id' || fields.includes(f)).map((f) => [f, job[f]]));
  return { status: 200, body: { jobs: page.map(pick), nextAfter } };
}
