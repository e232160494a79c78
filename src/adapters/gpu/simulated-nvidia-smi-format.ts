// Output of the stand-in nvidia-smi's listing commands (simulated-nvidia-smi.ts): `-L`, `mig -lgi`
// and `mig -lci`, with column widths copied from the recorded outputs in test/fixtures/nvidia-smi/,
// plus the output buffer and profile helpers the other commands share.
import { findMigProfile, migProfilesFor, type MigProfile } from '../../core/index.js';
import {
  SIMULATED_SMI_EXIT,
  SimulatedSmiStateError,
  simulatedMigDeviceUuid,
  type SimulatedSmiGpu,
  type SimulatedSmiGpuInstance,
  type SimulatedSmiState,
} from './simulated-nvidia-smi-state.js';

/** A number right-aligned in two columns, as nvidia-smi prints IDs in its messages. */
export const w2 = (n: number): string => String(n).padStart(2);

/** NVML compute-instance profile ID → compute slices (1_SLICE … 8_SLICE, 6_SLICE, 1_SLICE_REV1). */
const CI_SLICES_BY_PROFILE: Readonly<Record<number, number>> = { 0: 1, 1: 2, 2: 3, 3: 4, 4: 7, 5: 8, 6: 6, 7: 1 };
/** Compute slices → the CI profile ID of a full-width CI (`-C`); a 3g GI's is 2 (recorded `-cgi … -C`). */
export const CI_PROFILE_BY_SLICES: Readonly<Record<number, number>> = { 1: 0, 2: 1, 3: 2, 4: 3, 7: 4, 8: 5, 6: 6 };

/** CI profile name: the GI's name for a full-width CI, `<c>c.<gi name>` otherwise (e.g. `1c.3g.20gb`). */
export function ciName(gi: MigProfile, ciProfileId: number): string {
  const slices = CI_SLICES_BY_PROFILE[ciProfileId];
  return slices === undefined || slices === gi.computeSlices ? gi.name : `${slices}c.${gi.name}`;
}

const LGI_BORDER = `+${'-'.repeat(52)}+`;
const LGI_HEADER = [
  LGI_BORDER,
  '| GPU instances:                                     |',
  '| GPU   Name          Profile  Instance   Placement  |',
  '|                       ID       ID       Start:Size |',
  `|${'='.repeat(52)}|`,
];
const LCI_BORDER = `+${'-'.repeat(55)}+`;
const LCI_HEADER = [
  LCI_BORDER,
  '| Compute instances:                                    |',
  '| GPU     GPU       Name             Profile   Instance |',
  '|       Instance                       ID        ID     |',
  '|         ID                                            |',
  `|${'='.repeat(55)}|`,
];

/** A `-lgi` row; column widths reproduce the recorded rows byte for byte. */
function lgiRow(gpu: number, name: string, profileId: number, id: number, start: number, size: number): string {
  return (
    `|${String(gpu).padStart(4)}  ${`MIG ${name}`.padEnd(14)}${String(profileId).padStart(5)}` +
    `${String(id).padStart(9)}` +
    `${String(start).padStart(11)}:${String(size).padEnd(6)}|`
  );
}

/** A `-lci` row (the recorded format, without the Placement column of newer drivers). */
function lciRow(gpu: number, gi: number, name: string, profileId: number, ci: number): string {
  return (
    `|${String(gpu).padStart(4)}${String(gi).padStart(7)}${' '.repeat(7)}${`MIG ${name}`.padEnd(16)}` +
    `${String(profileId).padStart(6)}${String(ci).padStart(10)}     |`
  );
}

/** Output being built by one run. */
export class Out {
  readonly lines: string[] = [];
  exitCode: number = SIMULATED_SMI_EXIT.ok;
  changed = false;
  print(line: string): void {
    this.lines.push(line);
  }
  /** Records a failure; the first failure's code wins. */
  fail(code: number): void {
    if (this.exitCode === SIMULATED_SMI_EXIT.ok) this.exitCode = code;
  }
}

/** The GI's MIG profile on its GPU's model; throws SimulatedSmiStateError for an unknown profile. */
export function profileOf(gpu: SimulatedSmiGpu, gi: SimulatedSmiGpuInstance): MigProfile {
  const p = findMigProfile(gpu.model, gi.profileId);
  if (p === undefined) throw new SimulatedSmiStateError(`no profile ${gi.profileId} on ${gpu.model}`);
  return p;
}

/** GI IDs in `-lgip` profile order, then by ID (the order of the recorded `-lgi` tables). */
function sortedGis(gpu: SimulatedSmiGpu): SimulatedSmiGpuInstance[] {
  const order = migProfilesFor(gpu.model);
  return [...gpu.gpuInstances].sort(
    (a, b) => order.indexOf(profileOf(gpu, a)) - order.indexOf(profileOf(gpu, b)) || a.id - b.id,
  );
}

/** `-L`: one line per GPU, followed by one line per MIG device (CI) of a MIG-enabled GPU. */
export function listGpus(state: SimulatedSmiState, targets: readonly number[], out: Out): void {
  for (const index of targets) {
    const gpu = state.gpus[index]!;
    out.print(`GPU ${index}: ${gpu.name} (UUID: ${gpu.uuid})`);
    if (!gpu.migEnabled) continue;
    let device = 0;
    for (const gi of [...gpu.gpuInstances].sort((a, b) => a.id - b.id)) {
      for (const ci of [...gi.computeInstances].sort((a, b) => a.id - b.id)) {
        const uuid = simulatedMigDeviceUuid(gpu.uuid, gi.id, ci.id);
        out.print(`  MIG ${ciName(profileOf(gpu, gi), ci.profileId).padEnd(11)} Device ${w2(device)}: (UUID: ${uuid})`);
        device++;
      }
    }
  }
}

/** `-lgi`: the GPU instances of the target GPUs, or `No GPU instances found` (exit 6). */
export function listGpuInstances(state: SimulatedSmiState, targets: readonly number[], out: Out): void {
  const rows: string[] = [];
  for (const index of targets) {
    const gpu = state.gpus[index]!;
    for (const gi of sortedGis(gpu)) {
      const p = profileOf(gpu, gi);
      rows.push(lgiRow(index, p.name, p.profileId, gi.id, gi.start, p.memorySlices));
    }
  }
  if (rows.length === 0) {
    out.print('No GPU instances found: Not Found');
    out.fail(SIMULATED_SMI_EXIT.notFound);
    return;
  }
  LGI_HEADER.forEach((l) => out.print(l));
  for (const row of rows) {
    out.print(row);
    out.print(LGI_BORDER);
  }
}

/**
 * `-lci [-gi G,…]`: the compute instances of the target GPUs (of the listed GIs only), or `No compute instances found`
 * (exit 6).
 */
export function listComputeInstances(
  state: SimulatedSmiState,
  targets: readonly number[],
  giFilter: number[] | null,
  out: Out,
): void {
  const rows: string[] = [];
  for (const index of targets) {
    const gpu = state.gpus[index]!;
    for (const gi of [...gpu.gpuInstances].sort((a, b) => a.id - b.id)) {
      if (giFilter !== null && !giFilter.includes(gi.id)) continue;
      for (const ci of [...gi.computeInstances].sort((a, b) => a.id - b.id)) {
        rows.push(lciRow(index, gi.id, ciName(profileOf(gpu, gi), ci.profileId), ci.profileId, ci.id));
      }
    }
  }
  if (rows.length === 0) {
    out.print('No compute instances found: Not Found');
    out.fail(SIMULATED_SMI_EXIT.notFound);
    return;
  }
  LCI_HEADER.forEach((l) => out.print(l));
  for (const row of rows) {
    out.print(row);
    out.print(LCI_BORDER);
  }
}
