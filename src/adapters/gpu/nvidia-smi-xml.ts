// Pure parser for `nvidia-smi -q -x` (the full per-GPU report as XML). No process spawning here.
// Element names: nvidia-smi's DTDs nvsmi_device_v11/v12/v13, as seen in the recorded outputs in
// test/fixtures/nvidia-smi/xml/ (driver 460 to 595).
import { XMLParser, XMLValidator } from 'fast-xml-parser';
import { NvidiaSmiParseError, type MigMode } from './nvidia-smi-parse.js';

/** One `<mig_device>` of a GPU. Memory in MiB. */
export interface XmlMigDevice {
  /** `<index>`: the MIG device index, the `Device N` of `nvidia-smi -L`. */
  index: number;
  gpuInstanceId: number | null;
  computeInstanceId: number | null;
  /** `<fb_memory_usage><total>` of the device. */
  memoryTotalMiB: number | null;
  memoryUsedMiB: number | null;
  /** `<device_attributes><shared><multiprocessor_count>`. */
  multiprocessorCount: number | null;
}

/**
 * Health-relevant fields of one GPU. Each is null when the element is absent (older or newer
 * schema) or nvidia-smi printed `N/A`.
 */
export interface XmlGpuHealth {
  /** `<gpu_reset_status><reset_required>` (v12 schema; gone in v13). */
  resetRequired: boolean | null;
  /** `<gpu_reset_status><drain_and_reset_recommended>` (v12). */
  drainAndResetRecommended: boolean | null;
  /** `<gpu_recovery_action>` (v13 and `-q` text 590+): `None`, or the action the driver asks for. */
  recoveryAction: string | null;
  /** `<retired_pages><pending_retirement>`: pages wait to be retired at the next reset/reboot. */
  retiredPagesPending: boolean | null;
  /** `<retired_pages><pending_blacklist>` (same meaning, older name). */
  retiredPagesPendingBlacklist: boolean | null;
  /** `<retired_pages><double_bit_retirement><retired_count>`. */
  retiredPagesDoubleBitCount: number | null;
  /** `<remapped_rows><remapped_row_pending>`: a row remap waits for a GPU reset. */
  remappedRowsPending: boolean | null;
  /** `<remapped_rows><remapped_row_failure>`: a row remap failed. */
  remappedRowsFailure: boolean | null;
  /** `<remapped_rows><remapped_row_unc>`: rows remapped for uncorrectable errors. */
  remappedRowsUncorrectable: number | null;
  /**
   * Uncorrectable DRAM ECC errors since the last driver load: `<ecc_errors><volatile>
   * <dram_uncorrectable>` (v12+), or `<volatile><double_bit><device_memory>` (v11, driver 460).
   */
  eccVolatileDramUncorrectable: number | null;
  /** `<fabric><state>` (NVSwitch systems): `Not Started`, `In Progress`, `Completed`. */
  fabricState: string | null;
  /** `<fabric><status>`: `Success` or an error. */
  fabricStatus: string | null;
  /** `<fabric><health><summary>` (v13). */
  fabricHealthSummary: string | null;
  /** `<ecc_errors><channel_repair_pending>` (v13). */
  channelRepairPending: boolean | null;
  /** `<ecc_errors><tpc_repair_pending>` (v13). */
  tpcRepairPending: boolean | null;
  /**
   * NVML error strings found anywhere in the GPU's element (e.g. `GPU requires reset`,
   * `GPU is lost`, `Unknown Error`), as `<element path>: <text>`, in document order.
   */
  errorValues: string[];
}

/** One `<gpu>` element. Memory in MiB, utilisation in percent. */
export interface XmlGpuRecord {
  /** The `id` attribute: PCI bus ID, e.g. `00000000:01:00.0`. */
  pciBusId: string;
  productName: string;
  uuid: string;
  /** `<minor_number>`: N of /dev/nvidiaN; null when N/A. */
  minorNumber: number | null;
  /** `<fb_memory_usage><total>`. */
  gpuMemoryMiB: number | null;
  memoryUsedMiB: number | null;
  utilizationGpuPct: number | null;
  utilizationMemoryPct: number | null;
  migModeCurrent: MigMode;
  migModePending: MigMode;
  migDevices: XmlMigDevice[];
  health: XmlGpuHealth;
}

/** The whole report. `attachedGpus` may differ from `gpus.length` (e.g. a trimmed capture). */
export interface XmlReport {
  driverVersion: string | null;
  cudaVersion: string | null;
  attachedGpus: number | null;
  gpus: XmlGpuRecord[];
}

type Node = string | { [key: string]: Node | Node[] };

const parser = new XMLParser({
  ignoreAttributes: false,
  attributeNamePrefix: '@_',
  parseTagValue: false,
  parseAttributeValue: false,
  trimValues: true,
  isArray: (_name, jpath) => jpath === 'nvidia_smi_log.gpu' || jpath === 'nvidia_smi_log.gpu.mig_devices.mig_device',
});

const NA = new Set(['N/A', '[N/A]', 'Not Supported', '[Not Supported]', '']);

/** NVML error strings (nvmlErrorString) that mean the GPU could not be read. */
const ERROR_TEXT = /^\[?(GPU requires reset|GPU is lost|Unknown Error)\]?$/i;

function child(node: Node | Node[] | undefined, key: string): Node | Node[] | undefined {
  if (node === undefined || typeof node === 'string' || Array.isArray(node)) return undefined;
  return node[key];
}

function at(node: Node | Node[] | undefined, ...path: string[]): Node | Node[] | undefined {
  return path.reduce<Node | Node[] | undefined>((n, k) => child(n, k), node);
}

function text(node: Node | Node[] | undefined): string | null {
  if (typeof node !== 'string') return null;
  return NA.has(node) ? null : node;
}

/** `"81920 MiB"`, `"97 %"`, `"3"` → number; N/A, absent or an error string → null. */
function num(node: Node | Node[] | undefined): number | null {
  const t = text(node);
  if (t === null) return null;
  const m = /^(-?\d+(?:\.\d+)?)(?:\s+\S+)?$/.exec(t);
  return m ? Number(m[1]) : null;
}

function yesNo(node: Node | Node[] | undefined): boolean | null {
  const t = text(node);
  if (t === 'Yes') return true;
  if (t === 'No') return false;
  return null;
}

function migMode(node: Node | Node[] | undefined): MigMode {
  const t = text(node);
  if (t === 'Enabled') return 'enabled';
  if (t === 'Disabled') return 'disabled';
  return 'unsupported';
}

function collectErrors(node: Node | Node[] | undefined, path: string, out: string[]): void {
  if (node === undefined) return;
  if (typeof node === 'string') {
    if (ERROR_TEXT.test(node)) out.push(`${path}: ${node}`);
    return;
  }
  if (Array.isArray(node)) {
    node.forEach((n) => collectErrors(n, path, out));
    return;
  }
  for (const [k, v] of Object.entries(node)) {
    if (!k.startsWith('@_')) collectErrors(v, path === '' ? k : `${path}.${k}`, out);
  }
}

function toMigDevice(node: Node, where: string): XmlMigDevice {
  const index = num(at(node, 'index'));
  if (index === null) throw new NvidiaSmiParseError(`${where}: <mig_device> without a numeric <index>`);
  return {
    index,
    gpuInstanceId: num(at(node, 'gpu_instance_id')),
    computeInstanceId: num(at(node, 'compute_instance_id')),
    memoryTotalMiB: num(at(node, 'fb_memory_usage', 'total')),
    memoryUsedMiB: num(at(node, 'fb_memory_usage', 'used')),
    multiprocessorCount: num(at(node, 'device_attributes', 'shared', 'multiprocessor_count')),
  };
}

function toHealth(g: Node): XmlGpuHealth {
  const errorValues: string[] = [];
  collectErrors(g, '', errorValues);
  return {
    resetRequired: yesNo(at(g, 'gpu_reset_status', 'reset_required')),
    drainAndResetRecommended: yesNo(at(g, 'gpu_reset_status', 'drain_and_reset_recommended')),
    recoveryAction: text(at(g, 'gpu_recovery_action')),
    retiredPagesPending: yesNo(at(g, 'retired_pages', 'pending_retirement')),
    retiredPagesPendingBlacklist: yesNo(at(g, 'retired_pages', 'pending_blacklist')),
    retiredPagesDoubleBitCount: num(at(g, 'retired_pages', 'double_bit_retirement', 'retired_count')),
    remappedRowsPending: yesNo(at(g, 'remapped_rows', 'remapped_row_pending')),
    remappedRowsFailure: yesNo(at(g, 'remapped_rows', 'remapped_row_failure')),
    remappedRowsUncorrectable: num(at(g, 'remapped_rows', 'remapped_row_unc')),
    eccVolatileDramUncorrectable:
      num(at(g, 'ecc_errors', 'volatile', 'dram_uncorrectable')) ??
      num(at(g, 'ecc_errors', 'volatile', 'double_bit', 'device_memory')),
    fabricState: text(at(g, 'fabric', 'state')),
    fabricStatus: text(at(g, 'fabric', 'status')),
    fabricHealthSummary: text(at(g, 'fabric', 'health', 'summary')),
    channelRepairPending: yesNo(at(g, 'ecc_errors', 'channel_repair_pending')),
    tpcRepairPending: yesNo(at(g, 'ecc_errors', 'tpc_repair_pending')),
    errorValues,
  };
}

function toGpu(g: Node, position: number): XmlGpuRecord {
  const where = `<gpu> #${position + 1}`;
  const uuid = text(at(g, 'uuid'));
  if (uuid === null || !uuid.startsWith('GPU-')) {
    throw new NvidiaSmiParseError(`${where}: expected <uuid> GPU-…, got "${String(at(g, 'uuid') ?? '')}"`);
  }
  const pciBusId = typeof g === 'string' ? '' : g['@_id'];
  const migNodes = at(g, 'mig_devices', 'mig_device');
  return {
    pciBusId: typeof pciBusId === 'string' ? pciBusId : '',
    productName: text(at(g, 'product_name')) ?? '',
    uuid,
    minorNumber: num(at(g, 'minor_number')),
    gpuMemoryMiB: num(at(g, 'fb_memory_usage', 'total')),
    memoryUsedMiB: num(at(g, 'fb_memory_usage', 'used')),
    utilizationGpuPct: num(at(g, 'utilization', 'gpu_util')),
    utilizationMemoryPct: num(at(g, 'utilization', 'memory_util')),
    migModeCurrent: migMode(at(g, 'mig_mode', 'current_mig')),
    migModePending: migMode(at(g, 'mig_mode', 'pending_mig')),
    migDevices: Array.isArray(migNodes) ? migNodes.map((m) => toMigDevice(m, where)) : [],
    health: toHealth(g),
  };
}

/**
 * Parses `nvidia-smi -q -x` output into one record per `<gpu>` element, in document order.
 * Values are read by element name, so the v11, v12 and v13 schemas all work; fields a schema
 * lacks come back null. Numbers drop their unit (`81920 MiB` → 81920). Throws
 * {@link NvidiaSmiParseError} when the text is not well-formed XML, has no `<nvidia_smi_log>`
 * root, or a `<gpu>` lacks a `GPU-` UUID.
 */
export function parseNvidiaSmiXml(xml: string): XmlReport {
  const valid = XMLValidator.validate(xml);
  if (valid !== true) {
    throw new NvidiaSmiParseError(`nvidia-smi -q -x: not well-formed XML at line ${valid.err.line}: ${valid.err.msg}`);
  }
  const doc = parser.parse(xml) as Record<string, Node>;
  const root = doc['nvidia_smi_log'];
  if (root === undefined || typeof root === 'string') {
    if (root === '') return { driverVersion: null, cudaVersion: null, attachedGpus: null, gpus: [] };
    throw new NvidiaSmiParseError('nvidia-smi -q -x: no <nvidia_smi_log> root element');
  }
  const gpus = root['gpu'];
  return {
    driverVersion: text(root['driver_version']),
    cudaVersion: text(root['cuda_version']),
    attachedGpus: num(root['attached_gpus']),
    gpus: Array.isArray(gpus) ? gpus.map(toGpu) : [],
  };
}

/**
 * Reasons, from one `-q -x` record, why the GPU should not be given work; empty when none.
 * Unhealthy: an NVML error string in any field; reset required / drain and reset recommended;
 * a recovery action other than `None`; pages pending retirement; a row remap pending or failed;
 * a pending channel/TPC repair; a fabric (NVSwitch) state other than `Completed` or a status other
 * than `Success`; a fabric health summary `Unhealthy`. ECC error counts alone are not reasons:
 * the driver turns the fatal ones into the pending/reset flags above.
 */
export function xmlHealthProblems(gpu: XmlGpuRecord): string[] {
  const h = gpu.health;
  const out = h.errorValues.map((e) => `nvidia-smi -q -x reports ${e}`);
  if (h.resetRequired === true) out.push('GPU reset required (gpu_reset_status)');
  if (h.drainAndResetRecommended === true) out.push('drain and reset recommended (gpu_reset_status)');
  if (h.recoveryAction !== null && h.recoveryAction !== 'None') out.push(`GPU recovery action: ${h.recoveryAction}`);
  if (h.retiredPagesPending === true || h.retiredPagesPendingBlacklist === true) {
    out.push('retired pages pending (GPU reset needed)');
  }
  if (h.remappedRowsPending === true) out.push('row remapping pending (GPU reset needed)');
  if (h.remappedRowsFailure === true) out.push('row remapping failure');
  if (h.channelRepairPending === true) out.push('memory channel repair pending');
  if (h.tpcRepairPending === true) out.push('TPC repair pending');
  if (h.fabricState !== null && h.fabricState !== 'Completed') out.push(`fabric state: ${h.fabricState}`);
  if (h.fabricStatus !== null && h.fabricStatus !== 'Success') out.push(`fabric status: ${h.fabricStatus}`);
  if (h.fabricHealthSummary !== null && /^unhealthy$/i.test(h.fabricHealthSummary)) {
    out.push(`fabric health: ${h.fabricHealthSummary}`);
  }
  return out;
}
