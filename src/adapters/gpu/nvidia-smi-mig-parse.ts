// Pure parsers for `nvidia-smi mig` output: the `-lgi` and `-lci` tables and the one-line
// messages of `-cgi [-C]`, `-cci`, `-dci` and `-dgi`. No process spawning here.
//
// Shapes from the recorded outputs in test/fixtures/nvidia-smi/mig/ (NVIDIA MIG User Guide r580
// examples, A100-40GB) and the contract notes (shared docs K8S-AND-NVIDIA-CONTRACTS.md N.2).
// Numbers in the messages are right-aligned to width 2 (`ID  2`, `GPU  0`, `ID 13`), so every
// gap is matched with \s+, never with a fixed number of spaces.
import { NvidiaSmiParseError } from './nvidia-smi-parse.js';

/** One row of `nvidia-smi mig -lgi`. */
export interface ParsedGpuInstance {
  /** GPU index (`GPU` column). */
  gpu: number;
  /** Profile name without the `MIG ` prefix, e.g. `3g.20gb`, `1g.10gb+me`. */
  profileName: string;
  /** GI profile ID (`Profile ID` column), the number `-cgi` takes. */
  profileId: number;
  /** GI ID (`Instance ID` column). */
  gpuInstanceId: number;
  /** Placement `Start:Size`, in memory slices. */
  start: number;
  size: number;
}

/** One row of `nvidia-smi mig -lci`. */
export interface ParsedComputeInstance {
  gpu: number;
  /** ID of the GI the CI belongs to (`GPU Instance ID` column). */
  gpuInstanceId: number;
  /** CI profile name without `MIG `: `3g.20gb` for a full-width CI, `1c.3g.20gb` for a 1-slice CI of a 3g GI. */
  profileName: string;
  /** CI profile ID (`Profile ID` column). */
  profileId: number;
  /** CI ID (`Instance ID` column). */
  computeInstanceId: number;
  /** `Start:Size` of the CI's compute slices, printed by newer drivers only; null when absent. */
  placement: { start: number; size: number } | null;
}

/** `Successfully created GPU instance ID  2 on GPU  0 using profile MIG 3g.20gb (ID  9)`. */
export interface CreatedGpuInstanceLine {
  gpu: number;
  gpuInstanceId: number;
  profileName: string;
  profileId: number;
}

/**
 * `Successfully created compute instance ID  0 on GPU  0 GPU instance ID  2 using profile MIG 3g.20gb (ID  2)`
 * (`-cgi … -C`), or the same without `ID  0` after `compute instance` (`-cci`), where the CI ID is null.
 */
export interface CreatedComputeInstanceLine {
  gpu: number;
  gpuInstanceId: number;
  computeInstanceId: number | null;
  profileName: string;
  profileId: number;
}

/** `Successfully destroyed compute instance ID  0 from GPU  0 GPU instance ID  1`. */
export interface DestroyedComputeInstanceLine {
  gpu: number;
  gpuInstanceId: number;
  computeInstanceId: number;
}

/** `Successfully destroyed GPU instance ID  1 from GPU  0`. */
export interface DestroyedGpuInstanceLine {
  gpu: number;
  gpuInstanceId: number;
}

/**
 * A failure line: `Unable to create a GPU instance on GPU  0 using profile 9: Insufficient Resources`
 * or `Failed to create GPU instances: Insufficient Resources`. `reason` is the text after the last
 * `": "` (an NVML error string such as `Insufficient Resources`, `In use by another client`,
 * `Not Found`); `action` is what came before it, without the leading `Unable to ` / `Failed to `.
 */
export interface MigFailureLine {
  line: string;
  action: string;
  reason: string;
}

/** Everything a `-cgi`/`-cci`/`-dci`/`-dgi` run printed, sorted by kind, in output order. */
export interface MigCommandReport {
  gpuInstancesCreated: CreatedGpuInstanceLine[];
  computeInstancesCreated: CreatedComputeInstanceLine[];
  computeInstancesDestroyed: DestroyedComputeInstanceLine[];
  gpuInstancesDestroyed: DestroyedGpuInstanceLine[];
  failures: MigFailureLine[];
  /** Non-blank lines of no known shape, trimmed (kept so the caller can quote them). */
  otherLines: string[];
}

/** The NVML error string nvidia-smi prints when a GI (or CI) does not fit. */
export const INSUFFICIENT_RESOURCES = 'Insufficient Resources';

/** Printed (instead of a table) by `-lgi` when the GPU has no GI. */
export const NO_GPU_INSTANCES_PATTERN = /No GPU instances found/i;
/** Printed (instead of a table) by `-lci` (and `-dci`) when there is no CI. */
export const NO_COMPUTE_INSTANCES_PATTERN = /No compute instances found/i;

const LGI_ROW = /^\|\s*(\d+)\s+MIG\s+(\S+)\s+(\d+)\s+(\d+)\s+(\d+):(\d+)\s*\|$/;
const LCI_ROW = /^\|\s*(\d+)\s+(\d+)\s+MIG\s+(\S+)\s+(\d+)\s+(\d+)(?:\s+(\d+):(\d+))?\s*\|$/;
const BORDER = /^\+-+\+$/;
const RULE = /^\|=+\|$/;

const CREATED_GI =
  /^Successfully created GPU instance ID\s+(\d+)\s+on GPU\s+(\d+)\s+using profile MIG\s+(\S+)\s+\(ID\s+(\d+)\)$/;
const CREATED_CI = new RegExp(
  /^Successfully created compute instance(?:\s+ID\s+(\d+))?\s+on GPU\s+(\d+)\s+/.source +
    /GPU instance ID\s+(\d+)\s+using profile MIG\s+(\S+)\s+\(ID\s+(\d+)\)$/.source,
);
const DESTROYED_CI =
  /^Successfully destroyed compute instance ID\s+(\d+)\s+from GPU\s+(\d+)\s+GPU instance ID\s+(\d+)$/;
const DESTROYED_GI = /^Successfully destroyed GPU instance ID\s+(\d+)\s+from GPU\s+(\d+)$/;
const FAILURE = /^(?:Unable|Failed) to (.+): ([^:]+)$/;

function lines(text: string): string[] {
  return text.split(/\r?\n/).map((l) => l.trim());
}

/**
 * Parses a bordered nvidia-smi table: header lines up to the `|===|` rule are skipped, then every
 * line must be a border or match `row`. Throws NvidiaSmiParseError (naming the 1-based line) for
 * anything else after the rule, and for a table without a rule.
 */
function parseTable<T>(text: string, what: string, row: RegExp, toRow: (m: RegExpExecArray) => T): T[] {
  const rows: T[] = [];
  let inBody = false;
  lines(text).forEach((line, i) => {
    if (line === '') return;
    if (!inBody) {
      if (RULE.test(line)) inBody = true;
      else if (!BORDER.test(line) && !line.startsWith('|')) {
        throw new NvidiaSmiParseError(`line ${i + 1}: unrecognised nvidia-smi mig ${what} header line: "${line}"`);
      }
      return;
    }
    if (BORDER.test(line)) return;
    const m = row.exec(line);
    if (!m) throw new NvidiaSmiParseError(`line ${i + 1}: unrecognised nvidia-smi mig ${what} row: "${line}"`);
    rows.push(toRow(m));
  });
  if (!inBody && rows.length === 0 && text.trim() !== '') {
    throw new NvidiaSmiParseError(`nvidia-smi mig ${what}: no table found in "${text.trim().slice(0, 200)}"`);
  }
  return rows;
}

/**
 * Parses `nvidia-smi mig -lgi` (table: GPU, Name, Profile ID, Instance ID, Placement Start:Size),
 * in the order printed. The message `No GPU instances found…` and empty output give []. Throws
 * {@link NvidiaSmiParseError} for any other text.
 */
export function parseMigGpuInstances(text: string): ParsedGpuInstance[] {
  if (NO_GPU_INSTANCES_PATTERN.test(text) || text.trim() === '') return [];
  return parseTable(text, '-lgi', LGI_ROW, (m) => ({
    gpu: Number(m[1]),
    profileName: m[2] ?? '',
    profileId: Number(m[3]),
    gpuInstanceId: Number(m[4]),
    start: Number(m[5]),
    size: Number(m[6]),
  }));
}

/**
 * Parses `nvidia-smi mig -lci` (table: GPU, GPU Instance ID, Name, Profile ID, Instance ID, and on
 * newer drivers a Placement `Start:Size`), in the order printed. The message
 * `No compute instances found…` and empty output give []. Throws {@link NvidiaSmiParseError} for
 * any other text.
 */
export function parseMigComputeInstances(text: string): ParsedComputeInstance[] {
  if (NO_COMPUTE_INSTANCES_PATTERN.test(text) || text.trim() === '') return [];
  return parseTable(text, '-lci', LCI_ROW, (m) => ({
    gpu: Number(m[1]),
    gpuInstanceId: Number(m[2]),
    profileName: m[3] ?? '',
    profileId: Number(m[4]),
    computeInstanceId: Number(m[5]),
    placement: m[6] === undefined ? null : { start: Number(m[6]), size: Number(m[7]) },
  }));
}

/**
 * Sorts the lines of a `-cgi [-C]`, `-cci`, `-dci` or `-dgi` run (stdout and stderr together, in
 * any order) by kind. Never throws: lines of no known shape go to `otherLines`.
 */
export function parseMigCommandOutput(text: string): MigCommandReport {
  const report: MigCommandReport = {
    gpuInstancesCreated: [],
    computeInstancesCreated: [],
    computeInstancesDestroyed: [],
    gpuInstancesDestroyed: [],
    failures: [],
    otherLines: [],
  };
  for (const line of lines(text)) {
    if (line === '') continue;
    let m: RegExpExecArray | null;
    if ((m = CREATED_GI.exec(line))) {
      report.gpuInstancesCreated.push({
        gpuInstanceId: Number(m[1]),
        gpu: Number(m[2]),
        profileName: m[3] ?? '',
        profileId: Number(m[4]),
      });
    } else if ((m = CREATED_CI.exec(line))) {
      report.computeInstancesCreated.push({
        computeInstanceId: m[1] === undefined ? null : Number(m[1]),
        gpu: Number(m[2]),
        gpuInstanceId: Number(m[3]),
        profileName: m[4] ?? '',
        profileId: Number(m[5]),
      });
    } else if ((m = DESTROYED_CI.exec(line))) {
      report.computeInstancesDestroyed.push({
        computeInstanceId: Number(m[1]),
        gpu: Number(m[2]),
        gpuInstanceId: Number(m[3]),
      });
    } else if ((m = DESTROYED_GI.exec(line))) {
      report.gpuInstancesDestroyed.push({ gpuInstanceId: Number(m[1]), gpu: Number(m[2]) });
    } else if ((m = FAILURE.exec(line))) {
      report.failures.push({ line, action: m[1] ?? '', reason: (m[2] ?? '').trim() });
    } else {
      report.otherLines.push(line);
    }
  }
  return report;
}

/** True when a failure line of the report gives `Insufficient Resources` as its reason. */
export function isInsufficientResources(report: MigCommandReport): boolean {
  return report.failures.some((f) => f.reason === INSUFFICIENT_RESOURCES);
}
