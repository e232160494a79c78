// Port: how the server reads and changes the MIG layout of one GPU (GPU instances with their
// compute instances). Adapters: src/adapters/gpu/nvidia-smi-mig-manager.ts on `nvidia-smi mig`
// (real GPUs), and createSimulatedMigManager in src/adapters/gpu/simulated-nvidia-smi.ts, which
// runs that same adapter against a stand-in nvidia-smi (simulated GPUs). See docs/gpus.md.

/** One compute instance (CI) of a GPU instance, as `nvidia-smi mig -lci` lists it. */
export interface MigComputeInstanceState {
  /** CI ID within its GPU instance (`-lci` "Instance ID"). */
  computeInstanceId: number;
  /** CI profile ID (`-lci` "Profile ID"); the full-width CI made by `-cgi … -C` of a 3g GI is 2. */
  profileId: number;
}

/** One GPU instance (GI) as it exists on the GPU now (read back from nvidia-smi, never assumed). */
export interface MigInstanceState {
  /** GI ID (`-lgi` "Instance ID"); unique on its GPU, chosen by the driver. */
  gpuInstanceId: number;
  /** GI profile ID as `nvidia-smi mig -cgi` takes it (`-lgi` "Profile ID"), e.g. 9 for a 3g. */
  profileId: number;
  /** Profile name without the `MIG ` prefix, as `-lgi` prints it, e.g. `3g.40gb`. */
  profileName: string;
  /** First memory slice (`-lgi` placement Start). */
  start: number;
  /** Memory slices spanned (`-lgi` placement Size). */
  size: number;
  /** The GI's compute instances, by ascending ID; empty when it has none (no MIG device then). */
  computeInstances: MigComputeInstanceState[];
  /**
   * UUID of the GI's MIG device for `CUDA_VISIBLE_DEVICES` (`MIG-<uuid>`, or the legacy
   * `MIG-GPU-<gpu-uuid>/<gi>/<ci>`), from `nvidia-smi -L`: the device of the CI with the lowest ID.
   * Null when the GI has no CI, or when `-L` could not be matched to the instances (the matching
   * rule and its limits are in docs/gpus.md).
   */
  migDeviceUuid: string | null;
}

/** A GI to destroy: identified by placement and profile; `gpuInstanceId`, when given, must match too. */
export interface MigDestroyItem {
  start: number;
  profileId: number;
  /** When given, the GI with this ID is destroyed only if it has this start and profile. */
  gpuInstanceId?: number;
}

/** A GI to create at an explicit placement (`-cgi <profileId>:<start> -C`). */
export interface MigCreateItem {
  profileId: number;
  start: number;
}

/** Changes to one GPU's layout: destroys run first, then creates (largest first). */
export interface MigPlan {
  destroy: MigDestroyItem[];
  create: MigCreateItem[];
}

/**
 * What `apply` achieved, from the layout read back after the commands (not from their output).
 * `ok` is true when every command succeeded, every destroy target is gone and every create item
 * exists.
 */
export interface MigApplyResult {
  ok: boolean;
  /** The plan's create items that exist after the apply, as read back (with IDs and MIG UUIDs), in plan order. */
  created: MigInstanceState[];
  /** How many destroy targets existed before the apply and are gone after it. */
  destroyed: number;
  /**
   * Why the apply stopped, or null when ok. Starts with a category: `Insufficient Resources`
   * (creation refused: overlap, count or compute limit), `Mismatch` (a destroy item names a GI ID
   * that has another start or profile), `Command failed` (any other non-zero exit), `Not applied`
   * (commands succeeded but the read-back differs from the plan); then the command line and its
   * output.
   */
  error: string | null;
}

/** Reads and changes the MIG layout of the GPUs of one node. */
export interface MigManager {
  /**
   * The GIs on GPU `gpuIndex` now, by ascending placement start. Empty when the GPU has none.
   * Rejects when nvidia-smi cannot be run or its output cannot be read (state unknown).
   */
  listInstances(gpuIndex: number): Promise<MigInstanceState[]>;
  /**
   * Applies `plan` to GPU `gpuIndex`: for each destroy item, destroys the GI's compute instances
   * then the GI; then creates each GI at its placement with one full-width compute instance,
   * largest profile first; then reads the layout back. Stops at the first failed command
   * (e.g. Insufficient Resources), reads back, and resolves with ok: false and the error.
   * Never rejects for a command that ran and failed; rejects only when nvidia-smi cannot be run
   * or the read-back fails (state unknown).
   */
  apply(gpuIndex: number, plan: MigPlan): Promise<MigApplyResult>;
}
