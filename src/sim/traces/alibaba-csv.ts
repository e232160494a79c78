/**
 * Reader for the Alibaba cluster-trace-gpu-v2023 ("openb") CSV files.
 *
 * Source of the format: alibaba/clusterdata, `cluster-trace-gpu-v2023/README.md`
 * (see data/README.md). The files are plain comma-separated text with one header line and no
 * quoting, so no CSV library is used. Units: CPU in milli-cores, host memory in MiB, GPU share in
 * milli-GPU (1000 = one whole GPU), times in seconds from the trace start.
 *
 * The same reader takes a gpushare server's history export (docs/server.md, "History as a trace"):
 * the pod-list columns plus `tenant`, `priority`, `sharing_mode`, `gpu_memory_mib`,
 * `measured_gpu_memory_mib` and `measured_gpu_util_pct`, with times in seconds since the Unix epoch
 * carrying up to 3 decimals (milliseconds).
 */
import { readFile } from 'node:fs/promises';
import { SHARING_MODE_VALUES, TraceFormatError, type TraceNode, type TracePod } from './trace-types.js';

const NODE_COLUMNS = ['sn', 'cpu_milli', 'memory_mib', 'gpu', 'model'] as const;
const POD_REQUIRED = ['name', 'cpu_milli', 'memory_mib', 'num_gpu', 'gpu_milli'] as const;
/** The columns of a gpushare history export beyond the Alibaba pod list's. */
const HISTORY_OPTIONAL = [
  'tenant',
  'priority',
  'sharing_mode',
  'gpu_memory_mib',
  'measured_gpu_memory_mib',
  'measured_gpu_util_pct',
] as const;
const POD_OPTIONAL = [
  'gpu_spec',
  'qos',
  'pod_phase',
  'creation_time',
  'deletion_time',
  'scheduled_time',
  ...HISTORY_OPTIONAL,
] as const;
const MAX_GPU_MILLI = 1000;
/** Highest gpushare priority (the API's range is 0..1000000). */
const MAX_PRIORITY = 1_000_000;

/** One data row: its 1-based line number and a getter for a cell by column name. */
export interface Row {
  readonly line: number;
  /** Trimmed cell of `column`, or undefined when the header has no such column. */
  cell(column: string): string | undefined;
}

/**
 * Splits `text` into a validated header and data rows (columns in any order; no quoting). Strips a
 * UTF-8 BOM, accepts LF or CRLF, ignores trailing empty lines. Throws TraceFormatError on an empty
 * file, a header without rows, unknown / missing / repeated columns, or a row with the wrong number
 * of cells. Shared by the readers of the openb trace and of the GenAI samples (sim/genai).
 */
export function parseTable(
  text: string,
  fileName: string,
  required: readonly string[],
  optional: readonly string[],
): Row[] {
  const lines = (text.startsWith('\uFEFF') ? text.slice(1) : text).split(/\r?\n/);
  while (lines.length > 0 && lines[lines.length - 1]!.trim() === '') lines.pop();
  if (lines.length === 0) throw new TraceFormatError(fileName, null, null, 'no rows: the file is empty');

  const header = lines[0]!.split(',').map((c) => c.trim());
  const allowed = [...required, ...optional];
  const allowedText = `allowed columns: ${allowed.join(',')} (required: ${required.join(',')})`;
  const unknown = header.filter((c) => !allowed.includes(c));
  if (unknown.length > 0) {
    const names = unknown.map((c) => `'${c}'`).join(', ');
    throw new TraceFormatError(fileName, 1, null, `unknown column(s) ${names}; ${allowedText}`);
  }
  const index = new Map<string, number>();
  header.forEach((c, i) => {
    if (index.has(c)) throw new TraceFormatError(fileName, 1, c, `column appears twice; ${allowedText}`);
    index.set(c, i);
  });
  const missing = required.filter((c) => !index.has(c));
  if (missing.length > 0) {
    throw new TraceFormatError(
      fileName,
      1,
      missing[0]!,
      `missing required column(s) ${missing.join(',')}; ${allowedText}`,
    );
  }
  if (lines.length === 1)
    throw new TraceFormatError(fileName, 1, null, 'no rows: the file has a header but no data rows');

  return lines.slice(1).map((raw, i) => {
    const line = i + 2;
    const cells = raw.split(',').map((c) => c.trim());
    if (cells.length !== header.length) {
      throw new TraceFormatError(
        fileName,
        line,
        null,
        `expected ${header.length} cells (${header.join(',')}), found ${cells.length}`,
      );
    }
    return {
      line,
      cell: (column: string) => {
        const j = index.get(column);
        return j === undefined ? undefined : cells[j];
      },
    };
  });
}

/** Parses a required non-negative decimal integer (digits only) in `column`; `min` is the lowest allowed value. */
function intCell(row: Row, fileName: string, column: string, min = 0, max = Number.MAX_SAFE_INTEGER): number {
  const text = row.cell(column) ?? '';
  const value = /^\d+$/.test(text) ? Number(text) : Number.NaN;
  const range = max === Number.MAX_SAFE_INTEGER ? `an integer >= ${min}` : `an integer in ${min}..${max}`;
  if (!Number.isSafeInteger(value) || value < min || value > max) {
    throw new TraceFormatError(fileName, row.line, column, `expected ${range} (digits only), found '${text}'`);
  }
  return value;
}

/** Like intCell, but an absent column or empty cell gives null. */
function optionalIntCell(row: Row, fileName: string, column: string, max = Number.MAX_SAFE_INTEGER): number | null {
  const text = row.cell(column);
  return text === undefined || text === '' ? null : intCell(row, fileName, column, 0, max);
}

/**
 * A time in seconds: digits with up to 3 decimals (`12`, `1712345678.125`); an absent column or empty
 * cell gives null.
 */
function optionalTimeCell(row: Row, fileName: string, column: string): number | null {
  const text = row.cell(column);
  if (text === undefined || text === '') return null;
  const value = /^\d+(\.\d{1,3})?$/.test(text) ? Number(text) : Number.NaN;
  if (!Number.isFinite(value) || value > Number.MAX_SAFE_INTEGER) {
    throw new TraceFormatError(
      fileName,
      row.line,
      column,
      `expected a number of seconds >= 0 with at most 3 decimals (e.g. 12 or 1712345678.125), found '${text}'`,
    );
  }
  return value;
}

/** A percentage 0..100, digits with optional decimals; an absent column or empty cell gives null. */
function optionalPercentCell(row: Row, fileName: string, column: string): number | null {
  const text = row.cell(column);
  if (text === undefined || text === '') return null;
  const value = /^\d+(\.\d+)?$/.test(text) ? Number(text) : Number.NaN;
  if (!(value >= 0 && value <= 100))
    throw new TraceFormatError(
      fileName,
      row.line,
      column,
      `expected a percentage in 0..100 (e.g. 72.5), found '${text}'`,
    );
  return value;
}

/**
 * The history-export columns of a row (`tenant`, `priority`, ...; see {@link parsePodListCsv}), each
 * only when the file has that column: null for an empty cell.
 */
function historyFields(row: Row, fileName: string): Partial<TracePod> {
  const has = (column: string): boolean => row.cell(column) !== undefined;
  const text = (column: string): string | null => (row.cell(column) === '' ? null : row.cell(column)!);
  const mode = has('sharing_mode') ? text('sharing_mode') : null;
  if (mode !== null && !(SHARING_MODE_VALUES as readonly string[]).includes(mode)) {
    throw new TraceFormatError(
      fileName,
      row.line,
      'sharing_mode',
      `expected one of ${SHARING_MODE_VALUES.join(', ')} or empty, found '${mode}'`,
    );
  }
  return {
    ...(has('tenant') && { tenant: text('tenant') }),
    ...(has('priority') && { priority: optionalIntCell(row, fileName, 'priority', MAX_PRIORITY) }),
    ...(has('sharing_mode') && { sharingMode: mode as TracePod['sharingMode'] }),
    ...(has('gpu_memory_mib') && { gpuMemoryMiB: optionalIntCell(row, fileName, 'gpu_memory_mib') }),
    ...(has('measured_gpu_memory_mib') && {
      measuredGpuMemoryMiB: optionalIntCell(row, fileName, 'measured_gpu_memory_mib'),
    }),
    ...(has('measured_gpu_util_pct') && {
      measuredGpuUtilPct: optionalPercentCell(row, fileName, 'measured_gpu_util_pct'),
    }),
  };
}

/** Parses the non-empty, unique name in `column`; `seen` maps names to the line they first appeared on. */
function nameCell(row: Row, fileName: string, column: string, seen: Map<string, number>): string {
  const name = row.cell(column) ?? '';
  if (name === '') throw new TraceFormatError(fileName, row.line, column, 'expected a non-empty name, found empty');
  const first = seen.get(name);
  if (first !== undefined) {
    throw new TraceFormatError(
      fileName,
      row.line,
      column,
      `duplicate name '${name}' (first on line ${first}); names must be unique`,
    );
  }
  seen.set(name, row.line);
  return name;
}

/**
 * Parses an `openb_node_list_*.csv` file (columns `sn,cpu_milli,memory_mib,gpu,model`, in any
 * order; format from the alibaba/clusterdata cluster-trace-gpu-v2023 README).
 *
 * @param text - whole file contents (UTF-8 BOM, CRLF and a trailing newline are tolerated).
 * @param fileName - used in error messages only.
 * @returns nodes in file order; `cpuMilli` in milli-cores, `hostMemoryMiB` in MiB, `gpuModel`
 *   null when `model` is empty (a model on a node with `gpu` = 0 is kept).
 * @throws TraceFormatError naming file, line and field: unknown/missing columns, wrong cell
 *   count, a number that is not a non-negative integer, `cpu_milli` = 0, `gpu` > 0 without a
 *   `model`, a duplicate `sn`, or no data rows.
 */
export function parseNodeListCsv(text: string, fileName: string): TraceNode[] {
  const seen = new Map<string, number>();
  return parseTable(text, fileName, NODE_COLUMNS, []).map((row) => {
    const name = nameCell(row, fileName, 'sn', seen);
    const cpuMilli = intCell(row, fileName, 'cpu_milli', 1);
    const hostMemoryMiB = intCell(row, fileName, 'memory_mib');
    const gpuCount = intCell(row, fileName, 'gpu');
    const model = row.cell('model') ?? '';
    if (gpuCount > 0 && model === '') {
      throw new TraceFormatError(
        fileName,
        row.line,
        'model',
        `expected a GPU model code (e.g. G2, T4) when gpu is ${gpuCount}, found empty`,
      );
    }
    return { name, cpuMilli, hostMemoryMiB, gpuCount, gpuModel: model === '' ? null : model };
  });
}

/**
 * Parses an `openb_pod_list_*.csv` file: the 11-column form
 * `name,cpu_milli,memory_mib,num_gpu,gpu_milli,gpu_spec,qos,pod_phase,creation_time,deletion_time,scheduled_time`,
 * the 5-column `multigpu` form `name,cpu_milli,memory_mib,num_gpu,gpu_milli`, or the 5 required
 * columns plus any subset of the optional ones, in any order (format from the alibaba/clusterdata
 * cluster-trace-gpu-v2023 README).
 *
 * `gpu_spec` is split on `|` with empty pieces dropped (`allowedGpuModels`); the raw string is kept
 * in `gpuSpec` ('' when absent). `qos` is null when absent or empty. `creation_time` /
 * `deletion_time` (seconds: from the trace start in the Alibaba files, since the Unix epoch in a
 * gpushare history export; digits with up to 3 decimals) are null when absent or empty.
 * `scheduled_time` is validated the same way when present and non-empty (it is empty for Pending
 * pods); it and `pod_phase` are not returned.
 *
 * The columns of a gpushare history export (`tenant`, `priority` 0..1000000, `sharing_mode` one of
 * exclusive/mps/timeslice/mig, `gpu_memory_mib`, `measured_gpu_memory_mib`, `measured_gpu_util_pct`
 * 0..100) come back as the TracePod fields of the same names only when the file has the column
 * (null for an empty cell), so the Alibaba files parse to exactly the objects they always did.
 *
 * @param text - whole file contents (UTF-8 BOM, CRLF and a trailing newline are tolerated).
 * @param fileName - used in error messages only.
 * @returns pods sorted by name (stable, JS default string order), because the replay protocol
 *   shuffles the name-sorted list. `cpuMilli` in milli-cores, `hostMemoryMiB` in MiB, `gpuMilli`
 *   per GPU in milli-GPU.
 * @throws TraceFormatError naming file, line and field: unknown/missing columns, wrong cell
 *   count, a number that is not a non-negative integer (a time with more than 3 decimals, a
 *   percentage outside 0..100), `gpu_milli` outside 0..1000, `gpu_milli` not 0 when `num_gpu` is 0
 *   or 0 when `num_gpu` > 0, an unknown `sharing_mode`, a duplicate `name`, or no data rows.
 */
export function parsePodListCsv(text: string, fileName: string): TracePod[] {
  const seen = new Map<string, number>();
  const pods = parseTable(text, fileName, POD_REQUIRED, POD_OPTIONAL).map((row): TracePod => {
    const name = nameCell(row, fileName, 'name', seen);
    const cpuMilli = intCell(row, fileName, 'cpu_milli');
    const hostMemoryMiB = intCell(row, fileName, 'memory_mib');
    const gpuCount = intCell(row, fileName, 'num_gpu');
    const gpuMilli = intCell(row, fileName, 'gpu_milli', 0, MAX_GPU_MILLI);
    if (gpuCount === 0 && gpuMilli !== 0) {
      throw new TraceFormatError(fileName, row.line, 'gpu_milli', `expected 0 when num_gpu is 0, found ${gpuMilli}`);
    }
    if (gpuCount > 0 && gpuMilli === 0) {
      throw new TraceFormatError(
        fileName,
        row.line,
        'gpu_milli',
        `expected an integer in 1..${MAX_GPU_MILLI} when num_gpu is ${gpuCount}, found 0`,
      );
    }
    const gpuSpec = row.cell('gpu_spec') ?? '';
    const qos = row.cell('qos');
    optionalTimeCell(row, fileName, 'scheduled_time');
    return {
      name,
      cpuMilli,
      hostMemoryMiB,
      gpuCount,
      gpuMilli,
      allowedGpuModels: gpuSpec
        .split('|')
        .map((s) => s.trim())
        .filter((s) => s !== ''),
      gpuSpec,
      qos: qos === undefined || qos === '' ? null : qos,
      creationTimeSeconds: optionalTimeCell(row, fileName, 'creation_time'),
      deletionTimeSeconds: optionalTimeCell(row, fileName, 'deletion_time'),
      ...historyFields(row, fileName),
    };
  });
  // Array.prototype.sort is stable; compare by UTF-16 code units like the default sort.
  return pods.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
}

/** Reads `path`, turning an I/O failure into TraceFormatError(path, null, null, 'cannot read file: ...'). */
export async function readBytes(path: string): Promise<Buffer> {
  try {
    return await readFile(path);
  } catch (err) {
    const reason = err instanceof Error ? err.message : String(err);
    throw new TraceFormatError(path, null, null, `cannot read file: ${reason}`);
  }
}

/** Reads `path` as UTF-8 (see {@link readBytes}). */
export async function readText(path: string): Promise<string> {
  return (await readBytes(path)).toString('utf8');
}

/**
 * Reads and parses a node-list file (see {@link parseNodeListCsv}); `path` is used as the file
 * name in error messages.
 * @throws TraceFormatError when the file cannot be read ('cannot read file: <reason>') or is malformed.
 */
export async function readNodeListFile(path: string): Promise<TraceNode[]> {
  return parseNodeListCsv(await readText(path), path);
}

/**
 * Reads and parses a pod-list file (see {@link parsePodListCsv}); `path` is used as the file name
 * in error messages. Pods come back sorted by name.
 * @throws TraceFormatError when the file cannot be read ('cannot read file: <reason>') or is malformed.
 */
export async function readPodListFile(path: string): Promise<TracePod[]> {
  return parsePodListCsv(await readText(path), path);
}
