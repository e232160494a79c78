/**
 * MIG (Multi-Instance GPU) GPU-instance profiles of every MIG-capable model in the catalog, and
 * the slice geometry of those GPUs.
 *
 * Source of every figure, unless a row says otherwise: NVIDIA MIG User Guide (supported MIG
 * profiles, getting started), as collected in docs/mig.md. Figures that are inferred rather than
 * read from NVIDIA's documentation or a recorded `nvidia-smi` output are listed in each profile's
 * `inferred` field, so the server knows what to confirm against `nvidia-smi mig -lgip/-lgipp`.
 */
import { findGpuModel } from '../model/gpu-models.js';
import { MIB_PER_GIB } from '../model/quantity.js';

/** Facts of a profile that are inferred (by analogy) rather than observed; see `MigProfile.inferred`. */
export const MIG_INFERRED_FACT = {
  /** The nvidia-smi GI profile ID was not seen in a recording of this model. */
  profileId: 'profileId',
  /** The usable memory was not seen in a recording; taken from a profile with the same memory slices. */
  usableMemory: 'usableMemory',
  /** The placement list was not seen in a recording of this model. */
  placements: 'placements',
} as const;

/** One of the values of {@link MIG_INFERRED_FACT}. */
export type MigInferredFact = (typeof MIG_INFERRED_FACT)[keyof typeof MIG_INFERRED_FACT];

/**
 * One GPU-instance (GI) profile of one GPU model. The identity of a profile is the key
 * (gpuModel, profileId, computeSlices, memorySlices) — see {@link migProfileKey}; `name` is display
 * text only, because tools derive it and can disagree by 1 GB (`7g.80gb` vs `7g.79gb`).
 */
export interface MigProfile {
  /** Canonical catalog name of the GPU model (src/core/model/gpu-models.ts), e.g. `A100-80GB`. */
  readonly gpuModel: string;
  /**
   * GI profile ID as `nvidia-smi mig -cgi` takes it (NVML `nvmlGpuInstanceProfileInfo_t.id`), not the NVML profile
   * enum.
   */
  readonly profileId: number;
  /** Display name without the `MIG ` prefix, e.g. `3g.40gb` or `1g.10gb+me`. */
  readonly name: string;
  /** The `<N>gb` number of `name`, in the name's own (rounded, tool-derived) GB. */
  readonly nameMemoryGB: number;
  /** Compute slices the GI owns (of 7, or of 4 on A30). */
  readonly computeSlices: number;
  /** Memory slices the GI owns (of 8, or of 4 on A30); equals `placementSizeSlices`. */
  readonly memorySlices: number;
  /** Device memory as nvidia-smi reports it, in GiB with two decimals (driver-dependent). */
  readonly reportedMemoryGiB: number;
  /** Usable device memory in MiB: floor(reportedMemoryGiB × 1024). */
  readonly usableMemoryMiB: number;
  /** Most GIs of this profile that can exist on one GPU at once. */
  readonly maxCount: number;
  /** Valid first memory slices of a GI of this profile (`nvidia-smi mig -lgipp` `{starts}`), ascending. */
  readonly placementStarts: readonly number[];
  /** Memory slices a placement spans (`-lgipp` `:size`). */
  readonly placementSizeSlices: number;
  /** True for a `+me` (media extensions) variant, of which a GPU holds at most one GI. */
  readonly mediaExtensions: boolean;
  /** Facts of this row that are inferred, not observed; empty when all are observed. */
  readonly inferred: readonly MigInferredFact[];
}

/** Slice geometry of a MIG-capable GPU. */
export interface MigGeometry {
  /** Compute slices of the whole GPU. */
  readonly computeSlices: 7 | 4;
  /** Memory slices of the whole GPU. */
  readonly memorySlices: 8 | 4;
  /** Most GIs on one GPU at once. */
  readonly maxInstances: 7 | 4;
}

/**
 * The `<N>gb` memory figure in a name may differ from the nominal one by this many GB, since tools
 * derive it and can round differently (gpu-operator#351, gfd#7; `7g.79gb` vs `7g.80gb` on A100-80GB).
 * Source: NVIDIA MIG User Guide (supported MIG profiles, getting started), as collected in docs/mig.md.
 */
export const MIG_NAME_MEMORY_TOLERANCE_GB = 1;

const SEVEN_SLICE: MigGeometry = { computeSlices: 7, memorySlices: 8, maxInstances: 7 };
const FOUR_SLICE: MigGeometry = { computeSlices: 4, memorySlices: 4, maxInstances: 4 };

/**
 * Geometry per canonical model. Source: NVIDIA MIG User Guide (supported GPUs; supported MIG
 * profiles, getting started), as collected in docs/mig.md: 8 memory / 7 compute slices and at most
 * 7 GIs on A100, H100 and H200; 4 / 4 and 4 GIs on A30.
 */
const GEOMETRY: Readonly<Record<string, MigGeometry>> = {
  'A30-24GB': FOUR_SLICE,
  'A100-40GB': SEVEN_SLICE,
  'A100-80GB': SEVEN_SLICE,
  'H100-80GB': SEVEN_SLICE,
  'H200-141GB': SEVEN_SLICE,
};

const I = MIG_INFERRED_FACT;
const ALL_1 = [0, 1, 2, 3, 4, 5, 6];
const EVEN_2 = [0, 2, 4, 6];

/** Builds one row; `gib` is the two-decimal GiB figure nvidia-smi prints. */
function row(
  gpuModel: string,
  profileId: number,
  name: string,
  computeSlices: number,
  memorySlices: number,
  gib: number,
  maxCount: number,
  placementStarts: readonly number[],
  inferred: readonly MigInferredFact[] = [],
): MigProfile {
  const parsed = /^(\d+)g\.(\d+)gb/.exec(name);
  // Hundredths of a GiB as an integer, so the MiB figure is exact integer arithmetic.
  const centiGiB = Math.round(gib * 100);
  return {
    gpuModel,
    profileId,
    name,
    nameMemoryGB: Number(parsed?.[2] ?? 0),
    computeSlices,
    memorySlices,
    reportedMemoryGiB: gib,
    usableMemoryMiB: Math.floor((centiGiB * MIB_PER_GIB) / 100),
    maxCount,
    placementStarts,
    placementSizeSlices: memorySlices,
    mediaExtensions: name.endsWith('+me'),
    inferred,
  };
}

/**
 * Every GI profile of the MIG-capable models, grouped by model in `-lgip` order.
 *
 * Sources — NVIDIA MIG User Guide (supported MIG profiles, getting started), as collected in
 * docs/mig.md, per model:
 * - A100-40GB: names, counts from the guide's A100 profile table; placements from its `-lgipp`
 *   example; GiB from recorded `-lgip` output. 4g.20gb's GiB was not recorded: it is taken from
 *   3g.20gb (same 4 memory slices).
 * - A100-80GB: same IDs, slices and placements as the 40GB card (the guide's note under the A100
 *   table); GiB from recorded A100-80GB `-lgip` output (1g.20gb's 19968 MiB also appears in a
 *   recorded `nvidia-smi -q -x`).
 * - H100-80GB (SXM5): the guide's H100 table; placements as reported for H100 and H100 NVL; GiB from
 *   a recorded `-lgip` (shared fixtures `mig-lgip__4x-h100-80gb-hbm3__all-free.txt`).
 * - H200-141GB: names and counts from the guide's H200 table. IDs and GiB of 1g.18gb, 2g.35gb and
 *   7g.141gb from a recorded `-lgip`; 3g.71gb's 69.75 GiB (71424 MiB) from a recorded
 *   `nvidia-smi -q` of an H200 in MIG mode, driver 590.48.01 (shared fixtures
 *   `q__h200__mig__590.48.01__idle__masked.txt`). Everything else is inferred from the H100 (same
 *   GH100 die and slice counts): all placements, the other IDs, and the GiB of the `+me`, 1g.35gb
 *   (= 2g.35gb) and 4g.71gb (= 3g.71gb) rows.
 * - A30-24GB: the guide's A30 table; IDs, GiB and placements from recorded `-lgip`/`-lgipp` output
 *   (1g.6gb+me needs driver R470+, 2g.12gb+me R525+).
 */
export const MIG_PROFILES: readonly MigProfile[] = [
  row('A100-40GB', 19, '1g.5gb', 1, 1, 4.75, 7, ALL_1),
  row('A100-40GB', 20, '1g.5gb+me', 1, 1, 4.75, 1, ALL_1),
  row('A100-40GB', 15, '1g.10gb', 1, 2, 9.75, 4, EVEN_2),
  row('A100-40GB', 14, '2g.10gb', 2, 2, 9.75, 3, [0, 2, 4]),
  row('A100-40GB', 9, '3g.20gb', 3, 4, 19.62, 2, [0, 4]),
  row('A100-40GB', 5, '4g.20gb', 4, 4, 19.62, 1, [0], [I.usableMemory]),
  row('A100-40GB', 0, '7g.40gb', 7, 8, 39.5, 1, [0]),

  row('A100-80GB', 19, '1g.10gb', 1, 1, 9.5, 7, ALL_1),
  row('A100-80GB', 20, '1g.10gb+me', 1, 1, 9.5, 1, ALL_1),
  row('A100-80GB', 15, '1g.20gb', 1, 2, 19.5, 4, EVEN_2),
  row('A100-80GB', 14, '2g.20gb', 2, 2, 19.5, 3, [0, 2, 4]),
  row('A100-80GB', 9, '3g.40gb', 3, 4, 39.25, 2, [0, 4]),
  row('A100-80GB', 5, '4g.40gb', 4, 4, 39.25, 1, [0]),
  row('A100-80GB', 0, '7g.80gb', 7, 8, 79, 1, [0]),

  row('H100-80GB', 19, '1g.10gb', 1, 1, 9.75, 7, ALL_1),
  row('H100-80GB', 20, '1g.10gb+me', 1, 1, 9.75, 1, ALL_1),
  row('H100-80GB', 15, '1g.20gb', 1, 2, 19.62, 4, EVEN_2),
  row('H100-80GB', 14, '2g.20gb', 2, 2, 19.62, 3, [0, 2, 4]),
  row('H100-80GB', 9, '3g.40gb', 3, 4, 39.5, 2, [0, 4]),
  row('H100-80GB', 5, '4g.40gb', 4, 4, 39.5, 1, [0]),
  row('H100-80GB', 0, '7g.80gb', 7, 8, 79.25, 1, [0]),

  row('H200-141GB', 19, '1g.18gb', 1, 1, 16, 7, ALL_1, [I.placements]),
  row('H200-141GB', 20, '1g.18gb+me', 1, 1, 16, 1, ALL_1, [I.profileId, I.usableMemory, I.placements]),
  row('H200-141GB', 15, '1g.35gb', 1, 2, 32.5, 4, EVEN_2, [I.profileId, I.usableMemory, I.placements]),
  row('H200-141GB', 14, '2g.35gb', 2, 2, 32.5, 3, [0, 2, 4], [I.placements]),
  row('H200-141GB', 9, '3g.71gb', 3, 4, 69.75, 2, [0, 4], [I.profileId, I.placements]),
  row('H200-141GB', 5, '4g.71gb', 4, 4, 69.75, 1, [0], [I.profileId, I.usableMemory, I.placements]),
  row('H200-141GB', 0, '7g.141gb', 7, 8, 140, 1, [0], [I.placements]),

  row('A30-24GB', 14, '1g.6gb', 1, 1, 5.81, 4, [0, 1, 2, 3]),
  row('A30-24GB', 21, '1g.6gb+me', 1, 1, 5.81, 1, [0, 1, 2, 3]),
  row('A30-24GB', 5, '2g.12gb', 2, 2, 11.69, 2, [0, 2]),
  row('A30-24GB', 6, '2g.12gb+me', 2, 2, 11.69, 1, [0, 2]),
  row('A30-24GB', 0, '4g.24gb', 4, 4, 23.5, 1, [0]),
];

/** Canonical catalog name of a model given by name or alias, or undefined when not in the catalog. */
function canonicalModel(model: string): string | undefined {
  return findGpuModel(model)?.name;
}

/**
 * Slice geometry of a GPU model (canonical name or catalog alias, e.g. `H100`).
 * Returns undefined for a model that is not in the catalog or not MIG-capable.
 * Source: NVIDIA MIG User Guide (supported GPUs; supported MIG profiles, getting started), as
 * collected in docs/mig.md.
 */
export function migGeometry(model: string): MigGeometry | undefined {
  const name = canonicalModel(model);
  return name === undefined ? undefined : GEOMETRY[name];
}

/**
 * The GI profiles of a model (canonical name or alias), in `nvidia-smi mig -lgip` order; empty for a
 * model that is unknown or not MIG-capable.
 */
export function migProfilesFor(model: string): readonly MigProfile[] {
  const name = canonicalModel(model);
  return name === undefined ? [] : MIG_PROFILES.filter((p) => p.gpuModel === name);
}

/** The identity key of a profile: `<model>/<profileId>/<compute>c/<memory>m`, e.g. `A100-80GB/9/3c/4m`. */
export function migProfileKey(
  profile: Pick<MigProfile, 'gpuModel' | 'profileId' | 'computeSlices' | 'memorySlices'>,
): string {
  return `${profile.gpuModel}/${profile.profileId}/${profile.computeSlices}c/${profile.memorySlices}m`;
}

/**
 * Finds the profile with the given identity key parts on a model (name or alias); undefined when
 * none matches all four, e.g. a profile ID whose slice counts differ from the table's.
 */
export function findMigProfileByKey(
  model: string,
  profileId: number,
  computeSlices: number,
  memorySlices: number,
): MigProfile | undefined {
  return migProfilesFor(model).find(
    (p) => p.profileId === profileId && p.computeSlices === computeSlices && p.memorySlices === memorySlices,
  );
}

/**
 * Looks a profile up on a model (name or alias) by name or by GI profile ID.
 *
 * Accepted: a profile ID as a number or digits (`9`, `'9'`); a name `<g>g.<mem>gb` with an optional
 * `+me` suffix and an optional `MIG ` prefix, any letter case (`3g.40gb`, `MIG 3g.40gb`,
 * `1g.10gb+me`). A name matches the profile with `<g>` compute slices, the same `+me`-ness, and a
 * nominal GB within {@link MIG_NAME_MEMORY_TOLERANCE_GB} of `<mem>` (closest wins), so `7g.79gb`
 * and `7g.80gb` both find A100-80GB profile 0. Compute-instance names such as `1c.3g.71gb` are not
 * GI profiles and are not accepted.
 *
 * @returns the profile, or undefined when the model or the name/ID is unknown. Never throws.
 */
export function findMigProfile(model: string, nameOrId: string | number): MigProfile | undefined {
  const profiles = migProfilesFor(model);
  if (typeof nameOrId === 'number') return profiles.find((p) => p.profileId === nameOrId);
  const text = nameOrId.trim();
  if (/^\d+$/.test(text)) return profiles.find((p) => p.profileId === Number(text));
  const match = /^(?:MIG\s+)?(\d+)g\.(\d+)gb(\+me)?$/i.exec(text);
  if (match === null) return undefined;
  const computeSlices = Number(match[1]);
  const memoryGB = Number(match[2]);
  const mediaExtensions = match[3] !== undefined;
  let best: MigProfile | undefined;
  for (const p of profiles) {
    if (p.computeSlices !== computeSlices || p.mediaExtensions !== mediaExtensions) continue;
    const distance = Math.abs(p.nameMemoryGB - memoryGB);
    if (distance > MIG_NAME_MEMORY_TOLERANCE_GB) continue;
    if (best === undefined || distance < Math.abs(best.nameMemoryGB - memoryGB)) best = p;
  }
  return best;
}
