/**
 * Synthesizes the other variants of the Alibaba cluster-trace-gpu-v2023 ("openb") pod list from a
 * shipped one, so the scheduler can be tried on inputs it was not tuned to. The source trace has
 * 26 variants (see data/alibaba-gpu-v2023/README.md, "What the variants are"); only `default`,
 * `gpushare40` and `multigpu20` are shipped. The families and what they vary:
 *
 * - `cpuNNN`: share of CPU-only tasks by task count.
 * - `gpushareNN`: share of the GPU request (GPU units) coming from GPU-sharing tasks
 *   (`num_gpu` 1, `gpu_milli` < 1000).
 * - `multigpuNN`: share of the GPU request from multi-GPU tasks (`num_gpu` > 1).
 * - `gpuspecNN`: the base with `gpu_spec` GPU-model constraints on NN% of the GPU tasks
 *   (gpu-spec-variant.ts; kinds `gpuspec` and `prodspec`).
 *
 * All randomness comes from one {@link SeededRng} per call, so equal inputs and seeds give equal
 * output. Tasks are resampled whole (their CPU, memory, GPU shape, QoS and times are kept), so the
 * shape distribution within each class is the base's.
 */
import { SeededRng, shuffleInPlace, type Rng } from '../../core/index.js';
import { addGpuSpecs } from './gpu-spec-variant.js';
import type { TraceNode, TracePod } from './trace-types.js';

/** Which variant to synthesize; every number is a percentage in 0..100. */
export type VariantSpec =
  | { readonly kind: 'cpu'; readonly cpuOnlyPct: number }
  | { readonly kind: 'gpushare'; readonly sharingGpuPct: number }
  | { readonly kind: 'multigpu'; readonly multiGpuPct: number }
  | { readonly kind: 'gpuspec'; readonly constrainedPct: number }
  | { readonly kind: 'prodspec'; readonly constrainedPct: number };

/** The variant kinds, in the order the CLI lists them. */
export const VARIANT_KINDS = ['cpu', 'gpushare', 'multigpu', 'gpuspec', 'prodspec'] as const;
/** One of {@link VARIANT_KINDS}. */
export type VariantKind = (typeof VARIANT_KINDS)[number];

/** The percentage field of each kind of {@link VariantSpec}. */
export const VARIANT_FIELDS: { readonly [K in VariantKind]: string } = {
  cpu: 'cpuOnlyPct',
  gpushare: 'sharingGpuPct',
  multigpu: 'multiGpuPct',
  gpuspec: 'constrainedPct',
  prodspec: 'constrainedPct',
};

const MIN_NAME_DIGITS = 4;

/** Facts about a pod list that the variants are defined by (see {@link traceShares}). */
export interface TraceShares {
  /** Number of pods. */
  readonly pods: number;
  /** Number of GPU tasks (`num_gpu` > 0). */
  readonly gpuTasks: number;
  /** CPU-only tasks as a percentage of all tasks, by count. */
  readonly cpuOnlyPct: number;
  /** Σ `num_gpu` × `gpu_milli` over all pods, in milli-GPU. */
  readonly totalGpuMilli: number;
  /** GPU-sharing tasks' share of the total GPU request, in percent (0 when there is none). */
  readonly sharingGpuPct: number;
  /** Multi-GPU tasks' share of the total GPU request, in percent (0 when there is none). */
  readonly multiGpuPct: number;
  /** GPU tasks with a non-empty model constraint, as a percentage of GPU tasks (0 when none). */
  readonly constrainedPct: number;
}

const isSharing = (p: TracePod): boolean => p.gpuCount === 1 && p.gpuMilli < 1000;
const gpuMilliOf = (p: TracePod): number => p.gpuCount * p.gpuMilli;
const pct = (part: number, whole: number): number => (whole === 0 ? 0 : (100 * part) / whole);

/** Computes the shares that define the variants (README "What the variants are"). */
export function traceShares(pods: readonly TracePod[]): TraceShares {
  let cpuOnly = 0;
  let total = 0;
  let sharing = 0;
  let multi = 0;
  let constrained = 0;
  for (const p of pods) {
    if (p.gpuCount === 0) {
      cpuOnly++;
      continue;
    }
    const milli = gpuMilliOf(p);
    total += milli;
    if (isSharing(p)) sharing += milli;
    if (p.gpuCount > 1) multi += milli;
    if (p.allowedGpuModels.length > 0) constrained++;
  }
  const gpuTasks = pods.length - cpuOnly;
  return {
    pods: pods.length,
    gpuTasks,
    cpuOnlyPct: pct(cpuOnly, pods.length),
    totalGpuMilli: total,
    sharingGpuPct: pct(sharing, total),
    multiGpuPct: pct(multi, total),
    constrainedPct: pct(constrained, gpuTasks),
  };
}

/** Throws a RangeError unless `spec` is a known kind with a finite percentage in 0..100. */
function validateSpec(spec: VariantSpec): number {
  const kind = (spec as { kind?: unknown }).kind;
  if (typeof kind !== 'string' || !(VARIANT_KINDS as readonly string[]).includes(kind)) {
    throw new RangeError(`VariantSpec.kind must be one of ${VARIANT_KINDS.join(', ')}, got ${String(kind)}`);
  }
  const field = VARIANT_FIELDS[kind as VariantKind];
  const value = (spec as unknown as Record<string, unknown>)[field];
  if (typeof value !== 'number' || !Number.isFinite(value) || value < 0 || value > 100) {
    throw new RangeError(
      `VariantSpec.${field} (kind '${kind}') must be a finite number in 0..100, got ${String(value)}`,
    );
  }
  return value;
}

/**
 * Picks items of `pool` (indices into the base) until their total `weight` is as close to
 * `target` as the next pick allows: first without replacement in a random order, then, once the
 * pool is used up, with replacement. Stops at the first pick that would not get closer, so the
 * total misses `target` by at most half the largest weight.
 * @throws Error when `target` > 0 but the pool is empty (names `what`)
 */
function fillToTarget(
  pool: readonly number[],
  weight: (i: number) => number,
  target: number,
  rng: Rng,
  what: string,
): number[] {
  const picked: number[] = [];
  if (!(target > 0)) return picked;
  if (pool.length === 0) throw new Error(`the base pod list has no ${what} to draw from`);
  const order = shuffleInPlace([...pool], rng);
  let sum = 0;
  for (let k = 0; ; k++) {
    const i = k < order.length ? order[k]! : pool[rng.intn(pool.length)]!;
    const w = weight(i);
    if (!(w < 2 * (target - sum))) break;
    picked.push(i);
    sum += w;
  }
  return picked;
}

/** Indices of `base` for which `test` holds. */
function indicesWhere(base: readonly TracePod[], test: (p: TracePod) => boolean): number[] {
  const out: number[] = [];
  base.forEach((p, i) => {
    if (test(p)) out.push(i);
  });
  return out;
}

/** `openb-pod-NNNN` with at least four digits, more when `count` needs them. */
function podNamer(count: number): (i: number) => string {
  const digits = Math.max(MIN_NAME_DIGITS, String(Math.max(0, count - 1)).length);
  return (i) => `openb-pod-${String(i).padStart(digits, '0')}`;
}

/** The picked base pods in base order (copies next to their original), renamed in order. */
function materialize(base: readonly TracePod[], picked: number[]): TracePod[] {
  const name = podNamer(picked.length);
  return picked.sort((a, b) => a - b).map((i, k) => ({ ...base[i]!, name: name(k) }));
}

/**
 * Resamples so that the tasks in `part` supply `share`% of the base's total GPU request and the
 * other GPU tasks the rest (total ≈ the base's); CPU-only tasks are kept as they are.
 */
function splitGpuRequest(
  base: readonly TracePod[],
  part: (p: TracePod) => boolean,
  share: number,
  rng: Rng,
  partName: string,
  restName: string,
): TracePod[] {
  const total = base.reduce((s, p) => s + gpuMilliOf(p), 0);
  const inPart = indicesWhere(base, (p) => p.gpuCount > 0 && part(p));
  const rest = indicesWhere(base, (p) => p.gpuCount > 0 && !part(p));
  const weight = (i: number): number => gpuMilliOf(base[i]!);
  const partTarget = (total * share) / 100;
  const picked = [
    ...indicesWhere(base, (p) => p.gpuCount === 0),
    ...fillToTarget(inPart, weight, partTarget, rng, partName),
    ...fillToTarget(rest, weight, total - partTarget, rng, restName),
  ];
  return materialize(base, picked);
}

/**
 * Synthesizes a variant of the openb pod list, mirroring the source README's definitions.
 *
 * - `cpu`: keeps the pod count and makes CPU-only tasks `cpuOnlyPct`% of it (rounded to a whole
 *   task): CPU-only tasks are drawn from the base's CPU-only tasks and GPU tasks from the base's
 *   GPU tasks — without replacement while a pool lasts, then with replacement.
 * - `gpushare`: GPU-sharing tasks (`num_gpu` 1, `gpu_milli` < 1000) supply `sharingGpuPct`% of the
 *   GPU request and the other GPU tasks the rest; the total stays within a few GPUs of the base's,
 *   CPU-only tasks are kept. Drawn the same way per class, so the pod count follows from the
 *   classes' mean sizes (more pods when the share of small sharing tasks grows).
 * - `multigpu`: likewise with multi-GPU tasks (`num_gpu` > 1) supplying `multiGpuPct`%.
 * - `gpuspec`: a copy of the base where exactly round(`constrainedPct`% × GPU tasks) GPU tasks,
 *   chosen at random, get a `gpu_spec` of 1–3 distinct models of `nodes` (size uniform), drawn with
 *   probability proportional to the model's GPU count; the first is drawn from the models with a
 *   node that could host the task when empty, so every constraint is satisfiable. Only tasks that
 *   fit some node are chosen. All other tasks get no constraint (the base's are dropped). Models
 *   are written in name order, e.g. `G2|T4`.
 * - `prodspec`: like `gpuspec`, but each constrained task gets one of the model sets of the
 *   published `gpuspecNN` files, in their proportions (`PRODUCTION_SPEC_MIX`: `T4` alone 53%, `G2`
 *   14%, `P100` 12%, …), among the sets with a model that could host the task when empty.
 *
 * Pods keep every field of the task they copy except the name: the result is in base order
 * (resampled copies next to their original) and named `openb-pod-0000`, `openb-pod-0001`, … (more
 * digits when needed).
 *
 * @param base - the pod list to start from (e.g. `openb_pod_list_default.csv`, read sorted by name)
 * @param nodes - the node list; used by `gpuspec` and `prodspec` only
 * @param spec - the variant and its percentage
 * @param seed - any safe integer; equal seeds give equal output
 * @throws RangeError for an unknown kind, a percentage that is not a finite number in 0..100, or a
 *   seed that is not a safe integer; Error when the base has no tasks of a class that must be
 *   drawn, or (gpuspec, prodspec) too few GPU tasks fit any node.
 */
export function synthesizeVariant(
  base: readonly TracePod[],
  nodes: readonly TraceNode[],
  spec: VariantSpec,
  seed: number,
): TracePod[] {
  const value = validateSpec(spec);
  if (!Number.isSafeInteger(seed)) throw new RangeError(`seed must be a safe integer, got ${String(seed)}`);
  const rng = new SeededRng(seed);
  switch (spec.kind) {
    case 'cpu': {
      const cpuTarget = Math.round((base.length * value) / 100);
      const one = (): number => 1;
      const picked = [
        ...fillToTarget(
          indicesWhere(base, (p) => p.gpuCount === 0),
          one,
          cpuTarget,
          rng,
          'CPU-only tasks',
        ),
        ...fillToTarget(
          indicesWhere(base, (p) => p.gpuCount > 0),
          one,
          base.length - cpuTarget,
          rng,
          'GPU tasks',
        ),
      ];
      return materialize(base, picked);
    }
    case 'gpushare':
      return splitGpuRequest(base, isSharing, value, rng, 'GPU-sharing tasks', 'whole-GPU tasks');
    case 'multigpu':
      return splitGpuRequest(base, (p) => p.gpuCount > 1, value, rng, 'multi-GPU tasks', 'single-GPU tasks');
    case 'gpuspec':
    case 'prodspec':
      return addGpuSpecs(base, nodes, value, spec.kind, rng, podNamer(base.length));
  }
}
