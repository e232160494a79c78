// The stand-in nvidia-smi's MIG commands that change the state (simulated-nvidia-smi.ts):
// `mig -cgi … [-C]`, `mig -dci` and `mig -dgi`. Geometry decisions (does a GI fit, where does a GI
// without an explicit placement go) are the core's: validStartsFor, choosePlacement
// (src/core/mig/mig-allocator.ts).
import {
  choosePlacement,
  findMigProfile,
  migGeometry,
  validStartsFor,
  type MigGpuInstance,
  type MigProfile,
} from '../../core/index.js';
import { CI_PROFILE_BY_SLICES, ciName, profileOf, w2, type Out } from './simulated-nvidia-smi-format.js';
import {
  SIMULATED_SMI_EXIT,
  type SimulatedSmiGpu,
  type SimulatedSmiGpuInstance,
  type SimulatedSmiState,
} from './simulated-nvidia-smi-state.js';

function layoutOf(gpu: SimulatedSmiGpu): MigGpuInstance[] {
  return gpu.gpuInstances.map((gi) => ({
    profileId: gi.profileId,
    start: gi.start,
    size: profileOf(gpu, gi).memorySlices,
    inUse: true,
  }));
}

/**
 * The GI ID the stand-in gives a new GI: the heap index of its memory block in the binary tree of
 * memory slices — (memory slices / size − 1) + start / size: 0 for the whole GPU, 1–2 for halves,
 * 3–6 for quarters, 7–13 for eighths on an 8-slice GPU. This reproduces every GI ID in the recorded
 * outputs (e.g. 1g at 6 → 13, 2g at 4 → 5, 3g at 4 → 2) except the guide's 2 × 3g.20gb `-lgi`, where
 * IDs 1 and 2 are the other way round. The next free ID is used if that one is taken.
 */
function newGiId(gpu: SimulatedSmiGpu, profile: MigProfile, start: number): number {
  const slices = migGeometry(gpu.model)?.memorySlices ?? 8;
  const size = profile.memorySlices;
  const taken = new Set(gpu.gpuInstances.map((g) => g.id));
  let id = Math.max(0, slices / size - 1 + Math.floor(start / size));
  while (taken.has(id)) id++;
  return id;
}

/**
 * `-cgi <item>[,<item>…] [-C]`, item = profile ID or name (`9`, `3g.20gb`, `MIG 3g.20gb`), optionally
 * `:<start>`. Items are created in order; the first failure stops the run (the recorded
 * `-cgi 19,19,14,9` fails on its last item, so whether the driver goes on is not recorded).
 * Without a start the GI goes where the core's choosePlacement puts it (the driver's own choice is
 * not documented and differs in recordings, e.g. a second 1g at 4 where the core picks 5).
 */
export function createGpuInstances(
  state: SimulatedSmiState,
  targets: readonly number[],
  items: readonly string[],
  withCi: boolean,
  out: Out,
): void {
  for (const index of targets) {
    const gpu = state.gpus[index]!;
    for (const item of items) {
      const m = /^(.+?)(?::(\d+))?$/.exec(item.trim());
      const profileText = (m?.[1] ?? item).trim();
      const profile = findMigProfile(gpu.model, profileText);
      const refuse = (reason: string, code: number): void => {
        out.print(`Unable to create a GPU instance on GPU ${w2(index)} using profile ${profileText}: ${reason}`);
        out.print(`Failed to create GPU instances: ${reason}`);
        out.fail(code);
      };
      if (profile === undefined) {
        refuse('Invalid Argument', SIMULATED_SMI_EXIT.invalidArgument);
        return;
      }
      let start: number | null;
      if (m?.[2] !== undefined) {
        start = Number(m[2]);
        if (!profile.placementStarts.includes(start)) {
          refuse('Invalid Argument', SIMULATED_SMI_EXIT.invalidArgument);
          return;
        }
        if (!validStartsFor(gpu.model, layoutOf(gpu), profile).includes(start)) start = null;
      } else {
        start = choosePlacement(gpu.model, layoutOf(gpu), profile);
      }
      if (start === null) {
        refuse('Insufficient Resources', SIMULATED_SMI_EXIT.otherError);
        return;
      }
      const gi: SimulatedSmiGpuInstance = {
        id: newGiId(gpu, profile, start),
        profileId: profile.profileId,
        start,
        computeInstances: [],
      };
      gpu.gpuInstances.push(gi);
      out.changed = true;
      out.print(
        `Successfully created GPU instance ID ${w2(gi.id)} on GPU ${w2(index)} using profile MIG ` +
          `${profile.name} (ID ${w2(profile.profileId)})`,
      );
      if (withCi) {
        const ciProfileId = CI_PROFILE_BY_SLICES[profile.computeSlices] ?? 0;
        gi.computeInstances.push({ id: 0, profileId: ciProfileId });
        out.print(
          `Successfully created compute instance ID ${w2(0)} on GPU ${w2(index)} GPU instance ID ${w2(gi.id)} ` +
            `using profile MIG ${ciName(profile, ciProfileId)} (ID ${w2(ciProfileId)})`,
        );
      }
    }
  }
}

/** `-dci [-gi G,…] [-ci C,…]`: destroys the CIs (all, or the listed ones) of the GIs (all, or the listed ones). */
export function destroyComputeInstances(
  state: SimulatedSmiState,
  targets: readonly number[],
  giList: number[] | null,
  ciList: number[] | null,
  out: Out,
): void {
  let destroyed = 0;
  let firstReason: string | null = null;
  const failLine = (line: string, reason: string): void => {
    out.print(`${line}: ${reason}`);
    firstReason ??= reason;
  };
  for (const index of targets) {
    const gpu = state.gpus[index]!;
    for (const giId of giList ?? [...gpu.gpuInstances].map((g) => g.id).sort((a, b) => a - b)) {
      const gi = gpu.gpuInstances.find((g) => g.id === giId);
      if (gi === undefined) {
        if (giList !== null) failLine(`Unable to find GPU instance ID ${w2(giId)} on GPU ${w2(index)}`, 'Not Found');
        continue;
      }
      for (const ciId of ciList ?? gi.computeInstances.map((c) => c.id).sort((a, b) => a - b)) {
        const k = gi.computeInstances.findIndex((c) => c.id === ciId);
        if (k < 0) {
          failLine(
            `Unable to destroy compute instance ID ${w2(ciId)} from GPU ${w2(index)} GPU instance ID ${w2(giId)}`,
            'Not Found',
          );
          continue;
        }
        gi.computeInstances.splice(k, 1);
        destroyed++;
        out.changed = true;
        out.print(
          `Successfully destroyed compute instance ID ${w2(ciId)} from GPU ${w2(index)} GPU instance ID ${w2(giId)}`,
        );
      }
    }
  }
  if (firstReason !== null) {
    out.print(`Failed to destroy compute instances: ${firstReason}`);
    out.fail(SIMULATED_SMI_EXIT.notFound);
  } else if (destroyed === 0) {
    out.print('No compute instances found: Not Found');
    out.fail(SIMULATED_SMI_EXIT.notFound);
  }
}

/** `-dgi [-gi G,…]`: destroys the GIs (all, or the listed ones); a GI that still has CIs is refused (in use). */
export function destroyGpuInstances(
  state: SimulatedSmiState,
  targets: readonly number[],
  giList: number[] | null,
  out: Out,
): void {
  let destroyed = 0;
  let first: { reason: string; code: number } | null = null;
  for (const index of targets) {
    const gpu = state.gpus[index]!;
    for (const giId of giList ?? [...gpu.gpuInstances].map((g) => g.id).sort((a, b) => a - b)) {
      const k = gpu.gpuInstances.findIndex((g) => g.id === giId);
      const gi = gpu.gpuInstances[k];
      let reason: string | null = null;
      let code: number = SIMULATED_SMI_EXIT.ok;
      if (gi === undefined) {
        reason = 'Not Found';
        code = SIMULATED_SMI_EXIT.notFound;
      } else if (gi.computeInstances.length > 0) {
        reason = 'In use by another client';
        code = SIMULATED_SMI_EXIT.otherError;
      }
      if (reason !== null) {
        out.print(`Unable to destroy GPU instance ID ${w2(giId)} from GPU ${w2(index)}: ${reason}`);
        first ??= { reason, code };
        continue;
      }
      gpu.gpuInstances.splice(k, 1);
      destroyed++;
      out.changed = true;
      out.print(`Successfully destroyed GPU instance ID ${w2(giId)} from GPU ${w2(index)}`);
    }
  }
  if (first !== null) {
    out.print(`Failed to destroy GPU instances: ${first.reason}`);
    out.fail(first.code);
  } else if (destroyed === 0) {
    out.print('No GPU instances found: Not Found');
    out.fail(SIMULATED_SMI_EXIT.notFound);
  }
}
