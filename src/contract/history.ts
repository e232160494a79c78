/**
 * The history export (`GET /api/v1/history`, docs/server.md "History as a trace"): its query, and its
 * file format: one header line and one
 * row per job that ran, in the simulator's pod-list format (src/sim/traces/alibaba-csv.ts reads it),
 * written by `GET /api/v1/history` and by the Kubernetes extender for the pods it placed.
 *
 * Columns, in this order: `name` (unique in the file), `cpu_milli`, `memory_mib` (host memory),
 * `num_gpu`, `gpu_milli` (per GPU, 1..1000; 0 when num_gpu is 0), `gpu_spec` (allowed GPU models
 * joined by `|`, '' = any), `qos` ('': gpushare jobs carry a priority instead), `creation_time`
 * (submit), `scheduled_time` (first attempt's start), `deletion_time` (scheduled_time + the run time
 * of all attempts), all three in seconds since the Unix epoch with up to 3 decimals, `tenant`,
 * `priority` (integer), `sharing_mode` (the placement's effective mode), `gpu_memory_mib` (requested
 * per GPU, 0 = none named), `measured_gpu_memory_mib` (peak on any one GPU, integer; empty when
 * unknown), `measured_gpu_util_pct` (peak, percent; empty when unknown).
 *
 * The format has no quoting: a comma, quote, `|` or any character outside `[A-Za-z0-9._-]` in a
 * name or model is written as `_` ({@link csvWord}).
 */
import { z } from 'zod';
import { decimalParameter } from './api.js';

/** `GET /api/v1/history` query: jobs submitted in [since, until), ms since the epoch. */
export const HistoryQuerySchema = z
  .object({
    since: decimalParameter(
      0,
      Number.MAX_SAFE_INTEGER,
      'only jobs submitted at or after this time, ms since the epoch',
    ).optional(),
    until: decimalParameter(
      0,
      Number.MAX_SAFE_INTEGER,
      'only jobs submitted before this time, ms since the epoch',
    ).optional(),
  })
  .strict();

/** The answer of `GET /api/v1/history` as the OpenAPI document describes it: CSV text. */
export const HistoryCsvSchema = z
  .string()
  .describe(
    "one header line, then one row per job that ran and ended, in the simulator's pod-list format " +
      '(docs/server.md "History as a trace")',
  );

/** The columns of a history export, in order. */
export const HISTORY_COLUMNS = [
  'name',
  'cpu_milli',
  'memory_mib',
  'num_gpu',
  'gpu_milli',
  'gpu_spec',
  'qos',
  'creation_time',
  'scheduled_time',
  'deletion_time',
  'tenant',
  'priority',
  'sharing_mode',
  'gpu_memory_mib',
  'measured_gpu_memory_mib',
  'measured_gpu_util_pct',
] as const;

/** Content type of a history export. */
export const HISTORY_CONTENT_TYPE = 'text/csv; charset=utf-8';

/** One job that ran, as a row of the export. Times are ms since the epoch. */
export interface HistoryRow {
  /** The job's name and its unique id (the row's name is `<name>-<id>`). */
  readonly name: string;
  readonly id: number | string;
  readonly cpuMilli: number;
  readonly hostMemoryMiB: number;
  readonly gpuCount: number;
  /** Per GPU, 1..1000 (written as 0 when `gpuCount` is 0). */
  readonly gpuMilli: number;
  /** Allowed GPU models; empty = any. */
  readonly allowedGpuModels: readonly string[];
  readonly submittedAtMs: number;
  /** Start of the first attempt. */
  readonly firstStartedAtMs: number;
  /** Run time of all attempts together, ms. */
  readonly runMs: number;
  readonly tenant: string;
  readonly priority: number;
  /** The mode it ran in (exclusive, mps, timeslice, mig); '' when unknown. */
  readonly sharingMode: string;
  /** Device memory requested per GPU, MiB; null when none was named. */
  readonly gpuMemoryMiB: number | null;
  /** Peak device memory used on any one of its GPUs, MiB; null when unknown. */
  readonly measuredGpuMemoryMiB: number | null;
  /** Peak utilization, percent; null when unknown. */
  readonly measuredGpuUtilPct: number | null;
}

/**
 * `text` as one cell of the format: every character outside `[A-Za-z0-9._-]` becomes `_`, and so does a
 * leading `-` ('' stays '').
 */
export function csvWord(text: string): string {
  // A leading `-` too: a spreadsheet reads `-1-42` as a formula.
  return text.replace(/[^A-Za-z0-9._-]/g, '_').replace(/^-/, '_');
}

/**
 * Milliseconds since the epoch as seconds with up to 3 decimals, no trailing zeros (`1712345678125` →
 * `1712345678.125`).
 */
export function epochSeconds(ms: number): string {
  const whole = Math.round(ms);
  const fraction = String(whole % 1000)
    .padStart(3, '0')
    .replace(/0+$/, '');
  return `${Math.floor(whole / 1000)}${fraction === '' ? '' : `.${fraction}`}`;
}

/** A percentage with at most 2 decimals (`72.5`, `33.33`). */
function percentText(value: number): string {
  return String(Math.round(value * 100) / 100);
}

/** The header line, with its newline. */
export function historyCsvHeader(): string {
  return `${HISTORY_COLUMNS.join(',')}\n`;
}

/** The `name` cell of a row: `<name>-<id>`, each made a {@link csvWord}. */
export function historyRowName(row: Pick<HistoryRow, 'name' | 'id'>): string {
  return `${csvWord(row.name)}-${csvWord(String(row.id))}`;
}

/** One row of the export, with its newline. */
export function historyCsvLine(row: HistoryRow): string {
  const cells = [
    historyRowName(row),
    String(row.cpuMilli),
    String(row.hostMemoryMiB),
    String(row.gpuCount),
    String(row.gpuCount === 0 ? 0 : row.gpuMilli),
    row.allowedGpuModels.map(csvWord).join('|'),
    '',
    epochSeconds(row.submittedAtMs),
    epochSeconds(row.firstStartedAtMs),
    epochSeconds(row.firstStartedAtMs + row.runMs),
    csvWord(row.tenant),
    String(row.priority),
    csvWord(row.sharingMode),
    String(row.gpuMemoryMiB ?? 0),
    row.measuredGpuMemoryMiB === null ? '' : String(Math.round(row.measuredGpuMemoryMiB)),
    row.measuredGpuUtilPct === null ? '' : percentText(row.measuredGpuUtilPct),
  ];
  return `${cells.join(',')}\n`;
}
