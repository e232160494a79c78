/**
 * The FGD authors' published headline figures (data/fgd-expected-results/DERIVED_headline_summary.csv),
 * looked up by trace and mapped onto gpushare's policy names, for side-by-side display.
 */
import { readFileSync } from 'node:fs';
import { basename } from 'node:path';
import { fileURLToPath } from 'node:url';
import { POLICIES } from '../core/index.js';
import type { PublishedFigure } from './simulation-types.js';

/**
 * The shipped summary file. src/sim and dist/sim are both two levels below the repository root,
 * so the same relative URL works under vitest and after `npm run build`.
 */
export const DEFAULT_PUBLISHED_CSV: string = fileURLToPath(
  new URL('../../data/fgd-expected-results/DERIVED_headline_summary.csv', import.meta.url),
);

const REQUIRED_COLUMNS = [
  'workload',
  'sc_policy',
  'unalloc_pct_at_arrive100_mean',
  'alloc_pct_at_arrive100_sd',
  'unalloc_pct_at_arrive130_mean',
  'alloc_pct_at_arrive130_sd',
] as const;

/** Workload key of a pod file: its basename without a trailing `.csv`, e.g. `openb_pod_list_default`. */
function workloadOf(podsFile: string): string {
  return basename(podsFile).replace(/\.csv$/i, '');
}

/** Parses a finite number or throws naming the CSV line and column. */
function numberCell(text: string | undefined, csvPath: string, line: number, column: string): number {
  const value = text === undefined || text.trim() === '' ? Number.NaN : Number(text);
  if (!Number.isFinite(value))
    throw new Error(`${csvPath}:${line} field '${column}': expected a number, found '${text ?? ''}'`);
  return value;
}

/**
 * Loads the FGD authors' figures for the trace `podsFile`.
 *
 * Rows are matched on `workload` = basename of `podsFile` without `.csv`; `sc_policy` (e.g.
 * `06-FGD`) is mapped to our policy through `PolicyDefinition.publishedName`, and rows of
 * policies we do not have are skipped. Means are `unalloc_pct_at_arrive{100,130}_mean` (unallocated
 * GPU %, in percentage points); the SD is `alloc_pct_at_arrive{100,130}_sd` (allocated and
 * unallocated % have the same SD, as one is 100 minus the other).
 *
 * @param podsFile - Path (or name) of the pod-list file that was replayed.
 * @param csvPath - Summary CSV to read; defaults to {@link DEFAULT_PUBLISHED_CSV}.
 * @returns Map from our policy name to its figure; empty for a trace the CSV does not cover.
 * @throws Error when the CSV cannot be read, lacks a required column, or has a non-numeric figure.
 */
export function loadPublishedFigures(
  podsFile: string,
  csvPath: string = DEFAULT_PUBLISHED_CSV,
): Map<string, PublishedFigure> {
  const text = readFileSync(csvPath, 'utf8');
  const lines = (text.startsWith('\uFEFF') ? text.slice(1) : text).split(/\r?\n/).filter((l) => l.trim() !== '');
  const header = (lines[0] ?? '').split(',').map((c) => c.trim());
  const col = new Map(header.map((c, i) => [c, i]));
  const missing = REQUIRED_COLUMNS.filter((c) => !col.has(c));
  if (missing.length > 0) throw new Error(`${csvPath}:1: missing column(s) ${missing.join(', ')}`);

  const ourName = new Map<string, string>();
  for (const p of POLICIES) if (p.publishedName !== null) ourName.set(p.publishedName, p.name);
  const workload = workloadOf(podsFile);
  const figures = new Map<string, PublishedFigure>();
  lines.slice(1).forEach((raw, i) => {
    const line = i + 2;
    const cells = raw.split(',').map((c) => c.trim());
    const cell = (c: (typeof REQUIRED_COLUMNS)[number]): string | undefined => cells[col.get(c) ?? -1];
    if (cell('workload') !== workload) return;
    const policy = ourName.get(cell('sc_policy') ?? '');
    if (policy === undefined) return;
    const num = (c: (typeof REQUIRED_COLUMNS)[number]): number => numberCell(cell(c), csvPath, line, c);
    figures.set(policy, {
      unallocatedPctAt100: { mean: num('unalloc_pct_at_arrive100_mean'), sd: num('alloc_pct_at_arrive100_sd') },
      unallocatedPctAt130: { mean: num('unalloc_pct_at_arrive130_mean'), sd: num('alloc_pct_at_arrive130_sd') },
    });
  });
  return figures;
}
