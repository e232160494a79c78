// Pure parsers for nvidia-smi output, used by the nvidia-smi inventory (GPU discovery).
// No process spawning here: the caller runs nvidia-smi and passes its stdout in.

/**
 * Error thrown by the nvidia-smi parsers. The message names the line (1-based) and, where
 * relevant, the field, and quotes the offending value.
 */
export class NvidiaSmiParseError extends Error {
  override readonly name = 'NvidiaSmiParseError';
}

/**
 * The inventory field set, in the order the inventory requests it:
 * `nvidia-smi --query-gpu=<INVENTORY_FIELDS joined by ","> --format=csv,noheader,nounits`.
 * Field names and meanings: `nvidia-smi --help-query-gpu` (driver 590.48.01, fixture
 * `help/help-query-gpu__590.48.01.txt`). Same set and order as the `inventory13` derived fixtures.
 */
export const INVENTORY_FIELDS = [
  'index',
  'uuid',
  'name',
  'memory.total',
  'memory.used',
  'memory.free',
  'utilization.gpu',
  'utilization.memory',
  'temperature.gpu',
  'power.draw',
  'mig.mode.current',
  'compute_mode',
  'pci.bus_id',
] as const;

/** MIG mode of a GPU; `unsupported` when `mig.mode.current` is `[N/A]` (e.g. L40S). */
export type MigMode = 'enabled' | 'disabled' | 'unsupported';

/**
 * One GPU from `--query-gpu`. Memory in MiB, utilisation in %, temperature in °C, power in W
 * (units per `nvidia-smi --help-query-gpu`). Optional metrics are `null` when the field was not
 * requested or nvidia-smi printed `[N/A]`, `N/A` or `[Not Supported]`.
 */
export interface DiscoveredGpu {
  index: number;
  uuid: string;
  name: string;
  pciBusId: string;
  gpuMemoryMiB: number;
  memoryUsedMiB: number | null;
  memoryFreeMiB: number | null;
  utilizationGpuPct: number | null;
  utilizationMemoryPct: number | null;
  temperatureC: number | null;
  powerDrawW: number | null;
  migMode: MigMode;
  /** e.g. `Default`, `Exclusive_Process`, `Prohibited`; null if not requested or N/A. */
  computeMode: string | null;
}

/** One MIG device line of `nvidia-smi -L`. */
export interface ListedMigDevice {
  /** Profile name as printed, e.g. `1g.10gb` or a compute-instance profile such as `1c.3g.71gb`. */
  profile: string;
  deviceIndex: number;
  /** `MIG-<uuid>` (R470+) or the legacy R450 form `MIG-GPU-<gpu-uuid>/<gi>/<ci>`. */
  uuid: string;
}

/** One GPU of `nvidia-smi -L`, with its MIG devices (empty when MIG is off or unsupported). */
export interface ListedGpu {
  index: number;
  name: string;
  uuid: string;
  migDevices: ListedMigDevice[];
}

const NULL_VALUES: ReadonlySet<string> = new Set(['[N/A]', 'N/A', '[Not Supported]']);

/** Accepted aliases (`nvidia-smi --help-query-gpu` lists `"name" or "gpu_name"`, etc.). */
const ALIASES: Readonly<Record<string, string>> = {
  gpu_name: 'name',
  gpu_uuid: 'uuid',
  gpu_bus_id: 'pci.bus_id',
};

const REQUIRED_FIELDS = ['index', 'uuid', 'name', 'memory.total', 'mig.mode.current', 'pci.bus_id'];

function splitLines(text: string): string[] {
  return text.split(/\r?\n/);
}

/**
 * Parses `nvidia-smi --query-gpu=<fields> --format=csv,noheader,nounits` output (one GPU per
 * line, values separated by `", "`, as documented by `nvidia-smi -h` under `--format`).
 * `fields` must be the field list in the order it was requested; it must contain `index`,
 * `uuid`, `name`, `memory.total`, `mig.mode.current` and `pci.bus_id` (aliases `gpu_name`,
 * `gpu_uuid`, `gpu_bus_id` are accepted). Unknown extra fields are checked for count only.
 * Blank lines are skipped. Throws {@link NvidiaSmiParseError} on malformed input.
 */
export function parseQueryGpuCsv(text: string, fields: readonly string[]): DiscoveredGpu[] {
  const canonical = fields.map((f) => ALIASES[f] ?? f);
  for (const req of REQUIRED_FIELDS) {
    if (!canonical.includes(req)) {
      throw new NvidiaSmiParseError(`fields: required field "${req}" is missing from [${fields.join(',')}]`);
    }
  }
  const gpus: DiscoveredGpu[] = [];
  splitLines(text).forEach((raw, i) => {
    const lineNo = i + 1;
    if (raw.trim() === '') return;
    const values = raw.split(',').map((v) => v.trim());
    if (values.length !== canonical.length) {
      throw new NvidiaSmiParseError(
        `line ${lineNo}: expected ${canonical.length} values, got ${values.length}: "${raw}"`,
      );
    }
    const byField = new Map<string, string>();
    canonical.forEach((f, k) => byField.set(f, values[k] ?? ''));
    gpus.push(toGpu(byField, lineNo));
  });
  return gpus;
}

function toGpu(byField: ReadonlyMap<string, string>, lineNo: number): DiscoveredGpu {
  const fail = (field: string, what: string, value: string): never => {
    throw new NvidiaSmiParseError(`line ${lineNo}, field "${field}": ${what}, got "${value}"`);
  };
  const str = (field: string): string => {
    const v = byField.get(field) ?? '';
    if (v === '' || NULL_VALUES.has(v)) fail(field, 'expected a value', v);
    return v;
  };
  const optNum = (field: string): number | null => {
    const v = byField.get(field);
    if (v === undefined || NULL_VALUES.has(v)) return null;
    if (!/^-?\d+(\.\d+)?$/.test(v)) fail(field, 'expected a number', v);
    return Number(v);
  };
  const reqNum = (field: string, integer: boolean): number => {
    const v = byField.get(field) ?? '';
    const n = optNum(field);
    if (n === null) return fail(field, 'expected a number', v);
    if (integer && (!Number.isInteger(n) || n < 0)) fail(field, 'expected a non-negative integer', v);
    return n;
  };
  const migRaw = byField.get('mig.mode.current') ?? '';
  let migMode: MigMode;
  if (migRaw === 'Enabled') migMode = 'enabled';
  else if (migRaw === 'Disabled') migMode = 'disabled';
  else if (NULL_VALUES.has(migRaw)) migMode = 'unsupported';
  else return fail('mig.mode.current', 'expected Enabled, Disabled or [N/A]', migRaw);
  const uuid = str('uuid');
  if (!uuid.startsWith('GPU-')) fail('uuid', 'expected a GPU- UUID', uuid);
  const compute = byField.get('compute_mode');
  return {
    index: reqNum('index', true),
    uuid,
    name: str('name'),
    pciBusId: str('pci.bus_id'),
    gpuMemoryMiB: reqNum('memory.total', true),
    memoryUsedMiB: optNum('memory.used'),
    memoryFreeMiB: optNum('memory.free'),
    utilizationGpuPct: optNum('utilization.gpu'),
    utilizationMemoryPct: optNum('utilization.memory'),
    temperatureC: optNum('temperature.gpu'),
    powerDrawW: optNum('power.draw'),
    migMode,
    computeMode: compute === undefined || NULL_VALUES.has(compute) ? null : compute,
  };
}

const GPU_LINE = /^GPU (\d+): (.+) \(UUID: (GPU-[^)\s]+)\)$/;
const MIG_LINE = /^MIG (\S+)\s+Device\s+(\d+): \(UUID: (MIG-[^)\s]+)\)$/;

/**
 * Parses `nvidia-smi -L` (`--list-gpus`, "Display a list of GPUs connected to the system",
 * `nvidia-smi -h`). Lines are `GPU <i>: <name> (UUID: GPU-…)`, each optionally followed by
 * `MIG <profile> Device <n>: (UUID: MIG-…)` lines (padding between profile and `Device` and
 * before `<n>` varies by driver). Legacy R450 MIG UUIDs `MIG-GPU-<uuid>/<gi>/<ci>` are kept as
 * printed. Leading/trailing whitespace, CRLF and blank lines are tolerated. Any other line, or
 * a MIG line before the first GPU line, throws {@link NvidiaSmiParseError}.
 */
export function parseListGpus(text: string): ListedGpu[] {
  const gpus: ListedGpu[] = [];
  splitLines(text).forEach((raw, i) => {
    const lineNo = i + 1;
    const line = raw.trim();
    if (line === '') return;
    const g = GPU_LINE.exec(line);
    if (g) {
      gpus.push({ index: Number(g[1]), name: g[2] ?? '', uuid: g[3] ?? '', migDevices: [] });
      return;
    }
    const m = MIG_LINE.exec(line);
    if (m) {
      const parent = gpus[gpus.length - 1];
      if (!parent) throw new NvidiaSmiParseError(`line ${lineNo}: MIG device before any GPU line: "${line}"`);
      parent.migDevices.push({ profile: m[1] ?? '', deviceIndex: Number(m[2]), uuid: m[3] ?? '' });
      return;
    }
    throw new NvidiaSmiParseError(`line ${lineNo}: unrecognised nvidia-smi -L line: "${line}"`);
  });
  return gpus;
}
