// GpuInventory backed by the real nvidia-smi: runs three commands, parses them with the pure
// parsers (nvidia-smi-parse.ts, nvidia-smi-xml.ts) and merges their views of each GPU by UUID.
import { findGpuModel } from '../../core/index.js';
import type { GpuInventory, InventoryGpu, InventoryMigDevice } from '../../app/ports/gpu-inventory.js';
import {
  INVENTORY_FIELDS,
  NvidiaSmiParseError,
  parseListGpus,
  parseQueryGpuCsv,
  type DiscoveredGpu,
  type ListedGpu,
} from './nvidia-smi-parse.js';
import { parseNvidiaSmiXml, xmlHealthProblems, type XmlGpuRecord } from './nvidia-smi-xml.js';
import { execFileOrThrow, type ExecFileFn } from './run-command.js';

export type { ExecFileFn } from './run-command.js';

/**
 * nvidia-smi could not be run or its output could not be read as a whole: not found, timed out,
 * exited non-zero (e.g. no driver loaded), or printed something unrecognised. The message names
 * the command line and the cause. Callers treat every GPU they knew as unhealthy.
 */
export class NvidiaSmiUnavailableError extends Error {
  override readonly name = 'NvidiaSmiUnavailableError';
}

/** Options of {@link createNvidiaSmiInventory} and {@link detectNvidiaSmi}. */
export interface NvidiaSmiInventoryOptions {
  /** Program to run; `nvidia-smi` (looked up on PATH) by default. */
  nvidiaSmiPath?: string;
  /** Limit per command in ms; {@link DEFAULT_NVIDIA_SMI_TIMEOUT_MS} by default. */
  timeoutMs?: number;
  /** Process runner; {@link execFileOrThrow} by default. */
  execFile?: ExecFileFn;
}

/** Default per-command limit (ms). `nvidia-smi -q -x` takes about 1 s on an 8-GPU host. */
export const DEFAULT_NVIDIA_SMI_TIMEOUT_MS = 15_000;

/**
 * Reported nvidia-smi product names → catalog model names. From the names in the recorded
 * fixtures (test/fixtures/nvidia-smi) plus the usual spellings of the same boards. Deliberately
 * absent, so they keep their reported name: A10G (AWS variant of A10), V100S, H100 PCIe/NVL,
 * P100 12 GB, L40S — different products from the catalog entries.
 */
const NAME_TO_MODEL: Readonly<Record<string, string>> = {
  'NVIDIA A100-SXM4-80GB': 'A100-80GB',
  'A100-SXM4-80GB': 'A100-80GB',
  'NVIDIA A100 80GB PCIe': 'A100-80GB',
  'NVIDIA A100-SXM4-40GB': 'A100-40GB',
  'A100-SXM4-40GB': 'A100-40GB',
  'NVIDIA A100-PCIE-40GB': 'A100-40GB',
  'A100-PCIE-40GB': 'A100-40GB',
  'NVIDIA H100 80GB HBM3': 'H100-80GB',
  'NVIDIA H200': 'H200-141GB',
  'NVIDIA H200 NVL': 'H200-141GB',
  'NVIDIA A30': 'A30-24GB',
  'NVIDIA A10': 'A10',
  'NVIDIA L4': 'L4',
  'Tesla T4': 'T4',
  'NVIDIA T4': 'T4',
  'Tesla V100-SXM2-16GB': 'V100M16',
  'Tesla V100-PCIE-16GB': 'V100M16',
  'Tesla V100-SXM2-32GB': 'V100M32',
  'Tesla V100-PCIE-32GB': 'V100M32',
  'Tesla V100-SXM3-32GB': 'V100M32',
  'Tesla P100-PCIE-16GB': 'P100',
  'Tesla P100-SXM2-16GB': 'P100',
};

/**
 * Catalog model name (src/core/model/gpu-models.ts) for a GPU name as nvidia-smi reports it, e.g.
 * `NVIDIA A100-SXM4-80GB` → `A100-80GB`; a name that already is a catalog name or alias maps to
 * its canonical name; any other name is returned unchanged.
 */
export function catalogModelForGpuName(reportedName: string): string {
  return NAME_TO_MODEL[reportedName] ?? findGpuModel(reportedName)?.name ?? reportedName;
}

const QUERY_ARGS = [`--query-gpu=${INVENTORY_FIELDS.join(',')}`, '--format=csv,noheader,nounits'];
const LIST_ARGS = ['-L'];
const XML_ARGS = ['-q', '-x'];
const NULL_VALUES: ReadonlySet<string> = new Set(['[N/A]', 'N/A', '[Not Supported]']);

/** A `--query-gpu` row that did not parse but names its GPU (by UUID or index). */
interface BrokenRow {
  index: number | null;
  uuid: string | null;
  name: string | null;
  reason: string;
}

/** Parses `--query-gpu` output line by line so that one unreadable GPU does not hide the others. */
function parseQueryRows(stdout: string): { rows: DiscoveredGpu[]; broken: BrokenRow[] } {
  const rows: DiscoveredGpu[] = [];
  const broken: BrokenRow[] = [];
  for (const line of stdout.split(/\r?\n/)) {
    if (line.trim() === '') continue;
    try {
      rows.push(...parseQueryGpuCsv(line, INVENTORY_FIELDS));
    } catch (e) {
      if (!(e instanceof NvidiaSmiParseError)) throw e;
      const values = line.split(',').map((v) => v.trim());
      const errorValue = values.find((v) => /^\[.+\]$/.test(v) && !NULL_VALUES.has(v));
      const index = /^\d+$/.test(values[0] ?? '') ? Number(values[0]) : null;
      const uuid = values[1]?.startsWith('GPU-') ? values[1] : null;
      const name = values[2] !== undefined && !/^\[.*\]$/.test(values[2]) ? values[2] : null;
      const reason =
        errorValue !== undefined
          ? `nvidia-smi reports ${errorValue}`
          : `nvidia-smi --query-gpu: ${e.message.replace(/^line \d+, /, '')}`;
      broken.push({ index, uuid, name, reason });
    }
  }
  return { rows, broken };
}

function joinMigDevices(listed: ListedGpu | undefined, xml: XmlGpuRecord | undefined): InventoryMigDevice[] {
  return (listed?.migDevices ?? []).map((d) => {
    const x = xml?.migDevices.find((m) => m.index === d.deviceIndex);
    return {
      uuid: d.uuid,
      profile: d.profile,
      deviceIndex: d.deviceIndex,
      gpuInstanceId: x?.gpuInstanceId ?? null,
      computeInstanceId: x?.computeInstanceId ?? null,
    };
  });
}

/**
 * Merges the three views of the GPUs by UUID. A GPU is healthy only when `--query-gpu`, `-L` and
 * `-q -x` all report it and `-q -x` shows no problem ({@link xmlHealthProblems}).
 * Throws {@link NvidiaSmiUnavailableError} for a `--query-gpu` row that names no GPU.
 */
export function mergeNvidiaSmiViews(queryStdout: string, listed: ListedGpu[], xmlGpus: XmlGpuRecord[]): InventoryGpu[] {
  const { rows, broken } = parseQueryRows(queryStdout);
  const listedByUuid = new Map(listed.map((g) => [g.uuid, g]));
  const xmlByUuid = new Map(xmlGpus.map((g) => [g.uuid, g]));
  const rowByUuid = new Map(rows.map((r) => [r.uuid, r]));
  const brokenByUuid = new Map<string, BrokenRow>();
  for (const b of broken) {
    const uuid = b.uuid ?? listed.find((g) => g.index === b.index)?.uuid;
    if (uuid === undefined) {
      throw new NvidiaSmiUnavailableError(`nvidia-smi --query-gpu: a row names no known GPU (${b.reason})`);
    }
    brokenByUuid.set(uuid, b);
  }
  const uuids = new Set([...rowByUuid.keys(), ...brokenByUuid.keys(), ...listedByUuid.keys()]);
  const gpus = [...uuids].map((uuid): InventoryGpu => {
    const row = rowByUuid.get(uuid);
    const bad = brokenByUuid.get(uuid);
    const lst = listedByUuid.get(uuid);
    const xml = xmlByUuid.get(uuid);
    const reasons: string[] = [];
    if (bad) reasons.push(bad.reason);
    else if (!row) reasons.push('missing from nvidia-smi --query-gpu output');
    if (!lst) reasons.push('missing from nvidia-smi -L output');
    if (xml) reasons.push(...xmlHealthProblems(xml));
    else reasons.push('missing from nvidia-smi -q -x output');
    const name = row?.name ?? bad?.name ?? lst?.name ?? xml?.productName ?? 'unknown';
    const model = catalogModelForGpuName(name);
    return {
      index: row?.index ?? lst?.index ?? bad?.index ?? -1,
      uuid,
      name,
      model,
      gpuMemoryMiB: row?.gpuMemoryMiB ?? xml?.gpuMemoryMiB ?? findGpuModel(model)?.gpuMemoryMiB ?? 0,
      migEnabled: row ? row.migMode === 'enabled' : xml?.migModeCurrent === 'enabled',
      migDevices: joinMigDevices(lst, xml),
      simulated: false,
      deviceMinor: xml?.minorNumber ?? null,
      healthy: reasons.length === 0,
      healthReason: reasons.length === 0 ? null : reasons.join('; '),
      utilizationGpuPct: row?.utilizationGpuPct ?? null,
      memoryUsedMiB: row?.memoryUsedMiB ?? null,
    };
  });
  return gpus.sort((a, b) => a.index - b.index || a.uuid.localeCompare(b.uuid));
}

function runner(options: NvidiaSmiInventoryOptions): (args: readonly string[]) => Promise<string> {
  const path = options.nvidiaSmiPath ?? 'nvidia-smi';
  const timeoutMs = options.timeoutMs ?? DEFAULT_NVIDIA_SMI_TIMEOUT_MS;
  const exec = options.execFile ?? execFileOrThrow;
  return async (args) => {
    try {
      return (await exec(path, args, { timeoutMs })).stdout;
    } catch (e) {
      const why = e instanceof Error ? e.message : String(e);
      throw new NvidiaSmiUnavailableError(`${path} ${args.join(' ')}: ${why}`, { cause: e });
    }
  };
}

function parsed<T>(what: string, parse: () => T): T {
  try {
    return parse();
  } catch (e) {
    if (!(e instanceof NvidiaSmiParseError)) throw e;
    throw new NvidiaSmiUnavailableError(`nvidia-smi ${what}: unrecognised output: ${e.message}`, { cause: e });
  }
}

/**
 * GpuInventory on the real nvidia-smi. Each `list()` runs, in parallel,
 * `nvidia-smi --query-gpu=<INVENTORY_FIELDS> --format=csv,noheader,nounits` (memory, utilisation,
 * MIG mode), `nvidia-smi -L` (MIG device UUIDs and profiles) and `nvidia-smi -q -x` (MIG GI/CI IDs
 * and health), and merges them with {@link mergeNvidiaSmiViews}. `list()` rejects with
 * {@link NvidiaSmiUnavailableError} when any command fails (absent, timeout, non-zero exit) or
 * prints unrecognised output; an unreadable single GPU is reported unhealthy instead.
 */
export function createNvidiaSmiInventory(options: NvidiaSmiInventoryOptions = {}): GpuInventory {
  const run = runner(options);
  return {
    source: 'nvidia-smi',
    async list() {
      const [query, list, xml] = await Promise.all([run(QUERY_ARGS), run(LIST_ARGS), run(XML_ARGS)]);
      const listed = parsed('-L', () => parseListGpus(list));
      const report = parsed('-q -x', () => parseNvidiaSmiXml(xml));
      return mergeNvidiaSmiViews(query, listed, report.gpus);
    },
  };
}

/**
 * Whether nvidia-smi can be run and `nvidia-smi -L` lists at least one GPU. Never throws: false
 * when the program is absent, fails, times out or lists nothing recognisable.
 */
export async function detectNvidiaSmi(
  nvidiaSmiPath = 'nvidia-smi',
  options: Omit<NvidiaSmiInventoryOptions, 'nvidiaSmiPath'> = {},
): Promise<boolean> {
  try {
    const out = await runner({ ...options, nvidiaSmiPath })(LIST_ARGS);
    return parseListGpus(out).length > 0;
  } catch {
    return false;
  }
}
