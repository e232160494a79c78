/**
 * The GenAI inference pods' GPU samples (data/alibaba-genai-v2026-gpu-util: Alibaba
 * cluster-trace-v2026-GenAI, `pod_gpu_duty_cycle_anon.csv` and `pod_gpu_memory_used_bytes_anon.csv`),
 * parsed and aligned on one grid of instants: every timestamp either file names. Pure: the file
 * reading is read-genai-trace.ts.
 */
import { parseTable, type Row } from '../traces/alibaba-csv.js';
import { TraceFormatError } from '../traces/trace-types.js';

/** Bytes in a MiB: the memory file's bytes become MiB (GPU memory is counted in MiB everywhere). */
const BYTES_PER_MIB = 1024 * 1024;

/** One pod's samples on the grid of its trace. */
export interface PodSeries {
  /** The pod: the hashed container IP (`container_ip`) that joins the two files. */
  readonly pod: string;
  /** Duty cycle in percent (0–100) at each instant of the grid; NaN where the pod has no sample. */
  readonly dutyPct: Float64Array;
  /** GPU memory used in MiB (the file's bytes / 2^20) at each instant; NaN where the pod has no sample. */
  readonly memoryMiB: Float64Array;
}

/** Both files, aligned. */
export interface GenaiTrace {
  /** The grid: every timestamp of either file, seconds (anonymized: shifted), ascending, distinct. */
  readonly instantsSeconds: readonly number[];
  /** The pods with samples in both files, sorted by name. */
  readonly pods: readonly PodSeries[];
  /** Pods with duty-cycle samples only (left out: no memory to pack by). */
  readonly dutyOnlyPods: readonly string[];
  /** Pods with memory samples only (left out: no duty cycle to judge interference by). */
  readonly memoryOnlyPods: readonly string[];
}

/** The files' names in their folder (and in error messages unless other names are given). */
export const GENAI_FILES = {
  duty: 'pod_gpu_duty_cycle_anon.csv.gz',
  memory: 'pod_gpu_memory_used_bytes_anon.csv.gz',
} as const;

/** One parsed sample. */
interface Sample {
  readonly pod: string;
  readonly seconds: number;
  readonly value: number;
}

/** A non-negative decimal number as the files write them (`1662858720.0`, `19612757742.933334`). */
function decimalCell(row: Row, fileName: string, column: string, max = Number.MAX_VALUE): number {
  const text = row.cell(column) ?? '';
  const value = /^\d+(\.\d+)?$/.test(text) ? Number(text) : Number.NaN;
  if (!(value <= max))
    throw new TraceFormatError(
      fileName,
      row.line,
      column,
      `expected a decimal number ≥ 0${max === Number.MAX_VALUE ? '' : ` and ≤ ${max}`}, found '${text}'`,
    );
  return value;
}

/** The samples of one file; a second sample of a pod at the same instant is an error. */
function samplesOf(text: string, fileName: string, maxValue?: number): Sample[] {
  const seen = new Set<string>();
  return parseTable(text, fileName, ['value', 'timestamp_anon', 'container_ip'], []).map((row) => {
    const pod = row.cell('container_ip') ?? '';
    if (pod === '') throw new TraceFormatError(fileName, row.line, 'container_ip', 'expected a pod, found empty');
    const seconds = decimalCell(row, fileName, 'timestamp_anon');
    const key = `${pod}@${seconds}`;
    if (seen.has(key))
      throw new TraceFormatError(fileName, row.line, 'timestamp_anon', `a second sample of pod ${pod} at ${seconds}`);
    seen.add(key);
    return { pod, seconds, value: decimalCell(row, fileName, 'value', maxValue) };
  });
}

/** The samples of each pod placed on the grid (NaN where none). */
function seriesOf(samples: readonly Sample[], slot: ReadonlyMap<number, number>, scale: number) {
  const byPod = new Map<string, Float64Array>();
  for (const s of samples) {
    let series = byPod.get(s.pod);
    if (!series) byPod.set(s.pod, (series = new Float64Array(slot.size).fill(Number.NaN)));
    series[slot.get(s.seconds)!] = s.value * scale;
  }
  return byPod;
}

/**
 * Parses the two files' texts (CSV, columns in any order, as read-genai-trace.ts gives them after
 * gunzip) and aligns them: pods with samples in both files get a series of each on the common grid.
 * @param dutyCsv text of `pod_gpu_duty_cycle_anon.csv` (`value` in percent)
 * @param memoryCsv text of `pod_gpu_memory_used_bytes_anon.csv` (`value` in bytes)
 * @param fileNames the names error messages give the files
 * @throws TraceFormatError naming file, line and column: a missing column, a value that is not a
 *   decimal number ≥ 0 (a duty cycle over 100), an empty pod, or two samples of a pod at one instant
 */
export function parseGenaiTrace(
  dutyCsv: string,
  memoryCsv: string,
  fileNames: { readonly duty: string; readonly memory: string } = GENAI_FILES,
): GenaiTrace {
  const duty = samplesOf(dutyCsv, fileNames.duty, 100);
  const memory = samplesOf(memoryCsv, fileNames.memory);
  const instants = [...new Set([...duty, ...memory].map((s) => s.seconds))].sort((a, b) => a - b);
  const slot = new Map(instants.map((t, i) => [t, i]));
  const dutyByPod = seriesOf(duty, slot, 1);
  const memoryByPod = seriesOf(memory, slot, 1 / BYTES_PER_MIB);
  const byName = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0);
  const pods = [...dutyByPod.keys()]
    .filter((pod) => memoryByPod.has(pod))
    .sort(byName)
    .map((pod) => ({ pod, dutyPct: dutyByPod.get(pod)!, memoryMiB: memoryByPod.get(pod)! }));
  return {
    instantsSeconds: instants,
    pods,
    dutyOnlyPods: [...dutyByPod.keys()].filter((p) => !memoryByPod.has(p)).sort(byName),
    memoryOnlyPods: [...memoryByPod.keys()].filter((p) => !dutyByPod.has(p)).sort(byName),
  };
}
