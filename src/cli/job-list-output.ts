/**
 * Output of `gpushare jobs`, written page by page as the pages arrive:
 * - the table: ID, NAME, TENANT, STATE, GPU, MODE, AGE/REASON (or one column per `--fields` field).
 *   A listing of one page is laid out like every CLI table (each column as wide as its widest
 *   cell). When more pages follow, the column widths are decided by the first page (at least: ID 7,
 *   NAME 16, TENANT 8, STATE and MODE 9) and kept: a later cell that is wider is cut to the width, its last
 *   character replaced by `…` (ID is never cut, and the last column never is);
 * - JSON (`-o json`): exactly one JSON array of jobs, the same text as printing the whole array at
 *   once with two-space indentation.
 * Control characters in values are escaped (src/lib/control-characters.ts).
 */
import type { JobView } from '../contract/api.js';
import type { JobField } from '../contract/job-fields.js';
import type { ListedJob } from '../contract/job-list.js';
import { escapeControlCharacters, jsonForTerminal } from '../lib/control-characters.js';
import { formatGpuRequest, jobAge, jobMode, jobNote } from './format-jobs.js';

/** The fields the default table shows. */
export const TABLE_FIELDS: readonly JobField[] = [
  'id',
  'name',
  'tenant',
  'state',
  'gpu',
  'placement',
  'submittedAt',
  'reason',
  'attempt',
];

/** A job with the fields of the default table. */
export type TableJob = Pick<
  JobView,
  'id' | 'name' | 'tenant' | 'state' | 'gpu' | 'placement' | 'submittedAt' | 'reason' | 'attempt'
>;

/** Widths columns get at least in a listing of several pages (by header). */
const MIN_WIDTHS: Readonly<Record<string, number>> = {
  ID: 7,
  NAME: 16,
  TENANT: 8,
  STATE: 9,
  MODE: 9,
  id: 7,
  name: 16,
  tenant: 8,
  state: 9,
};

/** The mark that ends a cut cell. */
export const CUT_MARK = '…';

/** Writes pages of jobs as they arrive; `end()` after the last page. */
export interface JobListWriter {
  /** Writes one page; `more` says whether pages follow. */
  page(jobs: readonly ListedJob[], more: boolean): void;
  end(): void;
}

/** `text` cut to `width` characters, the last one replaced by {@link CUT_MARK} when it was longer. */
function cut(text: string, width: number): string {
  return text.length <= width ? text : `${text.slice(0, Math.max(0, width - 1))}${CUT_MARK}`;
}

/** A cell of a `--fields` column: text as is, null `-`, a list of strings joined by spaces, other values as JSON. */
function fieldCell(value: unknown): string {
  if (value === null || value === undefined) return '-';
  if (typeof value === 'string') return value;
  if (typeof value === 'number' || typeof value === 'boolean') return String(value);
  if (Array.isArray(value) && value.every((v) => typeof v === 'string')) return value.join(' ');
  return JSON.stringify(value);
}

/** The default table's cells of one job, control characters escaped (the id and the GPU share are numbers). */
function tableRow(job: TableJob, nowMs: number): string[] {
  const note = jobNote(job);
  const age = jobAge(job, nowMs);
  return [
    String(job.id),
    escapeControlCharacters(job.name),
    escapeControlCharacters(job.tenant),
    escapeControlCharacters(job.state),
    formatGpuRequest(job.gpu),
    escapeControlCharacters(jobMode(job)),
    escapeControlCharacters(note ? `${age}  ${note}` : age),
  ];
}

/**
 * The table writer.
 * @param fields `--fields` (one column each, `id` first), or undefined for the default table
 * @param write where the text goes (whole lines)
 */
export function tableWriter(
  fields: readonly JobField[] | undefined,
  nowMs: number,
  write: (text: string) => void,
): JobListWriter {
  const header =
    fields === undefined ? ['ID', 'NAME', 'TENANT', 'STATE', 'GPU', 'MODE', 'AGE/REASON'] : fields.map((f) => f);
  const cells = (job: ListedJob): string[] =>
    fields === undefined
      ? tableRow(job as TableJob, nowMs)
      : fields.map((f) => escapeControlCharacters(fieldCell(job[f])));
  let widths: number[] | null = null;
  let rows = 0;
  const line = (row: readonly string[]): string =>
    row
      .map((cell, i) => {
        if (i === row.length - 1) return cell;
        const width = widths![i]!;
        return (i === 0 ? cell : cut(cell, width)).padEnd(width);
      })
      .join('  ')
      .trimEnd();
  return {
    page(jobs, more) {
      const body = jobs.map(cells);
      if (widths === null) {
        widths = header.map((title, i) =>
          Math.max(title.length, more ? (MIN_WIDTHS[title] ?? 0) : 0, ...body.map((row) => row[i]!.length)),
        );
        if (body.length === 0) return;
        write(`${line(header)}\n`);
      }
      rows += body.length;
      if (body.length > 0) write(`${body.map(line).join('\n')}\n`);
    },
    end() {
      if (rows === 0) write('no jobs\n');
    },
  };
}

/** The `-o json` writer: `[`, the jobs as they arrive, `]`. */
export function jsonWriter(write: (text: string) => void): JobListWriter {
  let count = 0;
  return {
    page(jobs) {
      if (jobs.length === 0) return;
      const text = jobs.map((job) => `  ${jsonForTerminal(job).replaceAll('\n', '\n  ')}`).join(',\n');
      write(`${count === 0 ? '[\n' : ',\n'}${text}`);
      count += jobs.length;
    },
    end() {
      write(count === 0 ? '[]\n' : '\n]\n');
    },
  };
}
