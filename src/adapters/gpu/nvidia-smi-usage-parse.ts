/**
 * Pure parsers of the two nvidia-smi queries the usage sampler runs (nvidia-smi-usage.ts):
 * `--query-gpu=index,uuid,utilization.gpu,memory.used` and
 * `--query-compute-apps=gpu_uuid,pid,used_memory`. The sampler asks for
 * `--format=csv,noheader,nounits`; the parsers also accept `--format=csv` output (a header line
 * with units in brackets, and values that repeat the unit, e.g. `2566 MiB`, `100 %`), where the
 * columns are found by name, so recordings with more columns parse too. Values are separated by
 * `", "`. `[N/A]`, `N/A`, `[Not Supported]` and any other bracketed text mean "not available".
 */
import { NvidiaSmiParseError } from './nvidia-smi-parse.js';

/** Fields of the GPU query, in the order the sampler requests them. */
export const USAGE_GPU_FIELDS = ['index', 'uuid', 'utilization.gpu', 'memory.used'] as const;
/**
 * Fields of the compute-apps query, in the order the sampler requests them (`used_memory` prints as `used_gpu_memory`).
 */
export const USAGE_APP_FIELDS = ['gpu_uuid', 'pid', 'used_memory'] as const;

/** One GPU of the GPU query. */
export interface UsageGpuRow {
  readonly index: number;
  readonly uuid: string;
  /** `utilization.gpu` / 100, 0..1; null when not available (always so with MIG enabled). */
  readonly utilizationRatio: number | null;
  /** `memory.used`, MiB; null when not available. */
  readonly memoryUsedMiB: number | null;
}

/** One process of the compute-apps query. */
export interface ComputeAppRow {
  /** UUID of the GPU the process runs on; on a MIG GPU the parent GPU's UUID, not the MIG device's. */
  readonly gpuUuid: string;
  readonly pid: number;
  /** Device memory the process uses, MiB; null when not available. */
  readonly memoryUsedMiB: number | null;
}

/** Header names (unit stripped) that mean the same field. */
const ALIASES: Readonly<Record<string, string>> = { used_gpu_memory: 'used_memory' };

const NUMBER = /^(-?\d+(?:\.\d+)?)(?: ?(?:MiB|%|W|C|MHz))?$/;

/** True for values nvidia-smi prints when it has none: `N/A` or anything in brackets. */
function unavailable(value: string): boolean {
  return value === 'N/A' || (value.startsWith('[') && value.endsWith(']'));
}

/** Rows of `text` as field → value maps, the columns found by header (when present) or by `fields`' order. */
function rowsOf(
  text: string,
  fields: readonly string[],
  headerSignature: string,
): { line: number; values: ReadonlyMap<string, string> }[] {
  const lines = text
    .split(/\r?\n/)
    .map((raw, i) => ({ raw, line: i + 1 }))
    .filter((l) => l.raw.trim() !== '');
  let columns: readonly string[] = fields;
  if (
    lines[0] &&
    lines[0].raw
      .split(',')
      .map((v) => v.trim())
      .includes(headerSignature)
  ) {
    const header = lines.shift()!;
    columns = header.raw.split(',').map((v) => {
      const name = v.trim().replace(/\s*\[[^\]]*\]$/, '');
      return ALIASES[name] ?? name;
    });
    for (const f of fields) {
      if (!columns.includes(f))
        throw new NvidiaSmiParseError(`line ${header.line}: header has no column "${f}": "${header.raw}"`);
    }
  }
  return lines.map(({ raw, line }) => {
    const values = raw.split(',').map((v) => v.trim());
    if (values.length !== columns.length)
      throw new NvidiaSmiParseError(`line ${line}: expected ${columns.length} values, got ${values.length}: "${raw}"`);
    return { line, values: new Map(columns.map((c, k) => [c, values[k]!])) };
  });
}

/** Reads a number field; null when unavailable. @throws NvidiaSmiParseError for any other non-number */
function optionalNumber(values: ReadonlyMap<string, string>, field: string, line: number): number | null {
  const value = values.get(field) ?? '';
  if (unavailable(value)) return null;
  const match = NUMBER.exec(value);
  if (!match)
    throw new NvidiaSmiParseError(
      `line ${line}, field "${field}": expected a number, [N/A] or [Not Supported], got "${value}"`,
    );
  return Number(match[1]);
}

/** Reads a required non-negative integer. @throws NvidiaSmiParseError otherwise */
function requiredInteger(values: ReadonlyMap<string, string>, field: string, line: number): number {
  const n = optionalNumber(values, field, line);
  if (n === null || !Number.isInteger(n) || n < 0)
    throw new NvidiaSmiParseError(
      `line ${line}, field "${field}": expected a non-negative integer, got "${values.get(field) ?? ''}"`,
    );
  return n;
}

/** Reads a required `GPU-…` UUID. @throws NvidiaSmiParseError otherwise */
function requiredUuid(values: ReadonlyMap<string, string>, field: string, line: number): string {
  const value = values.get(field) ?? '';
  if (!value.startsWith('GPU-'))
    throw new NvidiaSmiParseError(`line ${line}, field "${field}": expected a GPU- UUID, got "${value}"`);
  return value;
}

/**
 * Parses the GPU query's output (see the file comment for the formats accepted). Blank lines are
 * skipped. @throws NvidiaSmiParseError naming the line and field for malformed input
 */
export function parseUsageGpuCsv(text: string): UsageGpuRow[] {
  return rowsOf(text, USAGE_GPU_FIELDS, 'index').map(({ line, values }) => {
    const pct = optionalNumber(values, 'utilization.gpu', line);
    return {
      index: requiredInteger(values, 'index', line),
      uuid: requiredUuid(values, 'uuid', line),
      utilizationRatio: pct === null ? null : Math.min(1, Math.max(0, pct / 100)),
      memoryUsedMiB: optionalNumber(values, 'memory.used', line),
    };
  });
}

/**
 * Parses the compute-apps query's output (header-only or empty output: no processes). Blank lines
 * are skipped. @throws NvidiaSmiParseError naming the line and field for malformed input
 */
export function parseComputeAppsCsv(text: string): ComputeAppRow[] {
  return rowsOf(text, USAGE_APP_FIELDS, 'pid').map(({ line, values }) => ({
    gpuUuid: requiredUuid(values, 'gpu_uuid', line),
    pid: requiredInteger(values, 'pid', line),
    memoryUsedMiB: optionalNumber(values, 'used_memory', line),
  }));
}
