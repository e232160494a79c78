/**
 * Output of `gpushare jobs`, written page by page as the pages arrive:
 * - a table: the server's job table (ID, NAME, TENANT, STATE, GPU, MODE, AGE/REASON:
 *   src/contract/job-table.ts), or one column per `--fields` field. A listing of one page is laid
 *   out like every CLI table (each column as wide as its widest cell). When more pages follow, the
 *   column widths are decided by the first page (at least: ID 7, NAME 16, TENANT 8, STATE and MODE
 *   9) and kept: a later cell that is wider is cut to the width, its last character replaced by `…`
 *   (ID is never cut, and the last column never is);
 * - JSON (`-o json`): exactly one JSON array of jobs, the same text as printing the whole array at
 *   once with two-space indentation.
 * Control characters in values are escaped (src/lib/control-characters.ts).
 */
import type { JobField } from '../contract/job-fields.js';
import type { ListedJob } from '../contract/job-list.js';
import { escapeControlCharacters, jsonForTerminal } from '../lib/control-characters.js';

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

/** Writes pages as they arrive; `end()` after the last page. */
export interface PageWriter<Item> {
  /** Writes one page; `more` says whether pages follow. */
  page(items: readonly Item[], more: boolean): void;
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

/** The `--fields` table's cells of one job, one per field. */
export function fieldCells(fields: readonly JobField[]): (job: ListedJob) => string[] {
  return (job) => fields.map((f) => fieldCell(job[f]));
}

/**
 * `row` as one line: each cell but the last padded to its column's width (cut to it, but the first),
 * two spaces apart.
 */
function layOut(row: readonly string[], widths: readonly number[]): string {
  const last = row.length - 1;
  let line = '';
  for (let i = 0; i < last; i++) {
    const width = widths[i]!;
    const cell = i === 0 ? row[i]! : cut(row[i]!, width);
    line += cell.length < width ? `${cell}${' '.repeat(width - cell.length)}  ` : `${cell}  `;
  }
  return `${line}${row[last] ?? ''}`.trimEnd();
}

/**
 * The table writer: rows of cells (text as received; control characters are escaped here).
 * @param columns the column titles, one per cell of each row (escaped here too)
 * @param write where the text goes (whole lines)
 */
export function tableWriter(columns: readonly string[], write: (text: string) => void): PageWriter<readonly string[]> {
  const header = columns.map(escapeControlCharacters);
  let widths: number[] | null = null;
  let rows = 0;
  return {
    page(received, more) {
      const body = received.map((row) => row.map(escapeControlCharacters));
      if (widths === null) {
        const w = header.map((title) => Math.max(title.length, more ? (MIN_WIDTHS[title] ?? 0) : 0));
        for (const row of body) for (let i = 0; i < w.length; i++) if (row[i]!.length > w[i]!) w[i] = row[i]!.length;
        widths = w;
        if (body.length === 0) return;
        write(`${layOut(header, w)}\n`);
      }
      rows += body.length;
      if (body.length === 0) return;
      let text = '';
      for (const row of body) text += `${layOut(row, widths)}\n`;
      write(text);
    },
    end() {
      if (rows === 0) write('no jobs\n');
    },
  };
}

/** The `-o json` writer: `[`, the jobs as they arrive, `]`. */
export function jsonWriter(write: (text: string) => void): PageWriter<ListedJob> {
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
