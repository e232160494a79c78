/**
 * Runs a grid of hybrid-sharing packing replays (every `--sharing` setting × every seed), in
 * process or on worker threads, and assembles the {@link HybridReport}.
 */
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { runInWorkerPool } from '../worker-pool.js';
import { meanCurve } from '../summarize.js';
import { meanSd } from '../../lib/statistics.js';
import { readNodeListFile, readPodListFile } from '../traces/alibaba-csv.js';
import { runHybridReplay, type HybridReplayInput } from './hybrid-replay.js';
import type { HybridReport, HybridRunResult, HybridSummary } from './hybrid-types.js';
import type { HybridTask, HybridWorkerData } from './hybrid-worker.js';
import { sharingGpuModel, type SharingSetting } from './pod-mode.js';

/** What to run. */
export interface HybridGridOptions {
  readonly nodesFile: string;
  readonly podsFile: string;
  /** Sharing settings, in display order. */
  readonly sharing: readonly SharingSetting[];
  readonly seeds: readonly number[];
  readonly inflation: number;
  /** Catalog model every GPU gets. */
  readonly gpuModel: string;
  /** Worker threads (integer ≥ 1); 1 runs in process. */
  readonly workers: number;
  /** Tenants the pods are spread over (integer ≥ 1; default 1). */
  readonly tenants?: number;
  /** One tenant per MPS GPU (default true). */
  readonly mpsOneTenantPerGpu?: boolean;
  /** Called after each finished run. */
  readonly onProgress?: (done: number, total: number, last: HybridRunResult) => void;
}

/** Raised when a worker thread fails a task or dies. */
export class HybridWorkerError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'HybridWorkerError';
  }
}

/** Plain-text definitions written into every report. */
export const HYBRID_DEFINITIONS: Readonly<Record<string, string>> = {
  gpuMemory: 'the trace names no GPU memory: a pod asks for floor(gpu_milli / 1000 × model memory) MiB per GPU',
  isolation:
    'qos LS → strict, Guaranteed and Burstable → standard, BE (and anything else) → none; standard for a ' +
    'pod without qos',
  modes:
    'auto: selectMode from the isolation (whole GPUs exclusive; strict → smallest covering MIG profile, ' +
    'else a whole GPU; standard → mps; none → timeslice); ' +
    ('mig: every GPU in MIG mode, every pod the smallest covering profile (the full-GPU profile when its ' +
      'memory exceeds every profile); mps/timeslice: sharing pods in that mode, whole-GPU pods exclusive'),
  allocation:
    'A(x) = reserved milli-GPU / capacity: accounted milli of exclusive (1000), MPS and time-sliced (the ' +
    'request, no overcommit) shares; a MIG GPU counts round(1000 × compute slices held / 7 (4 on an A30))',
  unrequested:
    'A′(x) = requested milli-GPU of the placed pods / capacity (the part of a MIG instance beyond its ' +
    "pod's request counts as unallocated)",
  hardwareIsolated: '% of placed GPU pods on MIG instances',
  strictIsolated: '% of placed strict (LS) pods on a MIG instance or on whole GPUs of their own',
  reconfigurations:
    'GPU-instance creations (one per GPU of a MIG placement) + GPUs switched into or out of MIG mode ' +
    '(under mig: every GPU once, before the first arrival)',
  tenants:
    'with --tenants N > 1 a pod belongs to tenant t<FNV-1a(pod name) mod N>; an MPS GPU takes MPS pods ' +
    'of one tenant only (an MPS daemon serves one Unix user) unless --mps-any-tenant',
  nodeChoice:
    'the default policy over a per-mode view of every node (a GPU running another mode shows no free ' +
    "capacity); the node's cluster state (the core's ClusterState) places the job on its GPUs",
};

/** One summary per sharing setting, in the order first seen. */
export function summarizeHybridRuns(runs: readonly HybridRunResult[]): HybridSummary[] {
  const bySharing = new Map<SharingSetting, HybridRunResult[]>();
  for (const r of runs) bySharing.set(r.sharing, [...(bySharing.get(r.sharing) ?? []), r]);
  return [...bySharing].map(([sharing, list]) => {
    const of = (pick: (r: HybridRunResult) => number) => meanSd(list.map(pick));
    return {
      sharing,
      seeds: list.map((r) => r.seed),
      unallocatedPctAt100: of((r) => r.unallocatedPctAt100),
      unallocatedPctAt130: of((r) => r.unallocatedPctAt130),
      unrequestedPctAt100: of((r) => r.unrequestedPctAt100),
      failedPods: of((r) => r.failedPods),
      placedGpuPodsPct: of((r) => r.placedGpuPodsPct),
      mpsGpus: of((r) => r.mpsGpus),
      hardwareIsolatedPct: of((r) => r.hardwareIsolatedPct),
      strictIsolatedPct: of((r) => r.strictIsolatedPct),
      giCreations: of((r) => r.giCreations),
      migModeSwitches: of((r) => r.migModeSwitches),
      reconfigurations: of((r) => r.reconfigurations),
      strictMig: of((r) => r.byIsolation.strict.mig),
      strictExclusive: of((r) => r.byIsolation.strict.exclusive),
      strictShared: of((r) => r.byIsolation.strict.shared),
      strictFailed: of((r) => r.byIsolation.strict.failed),
      meanAllocationPct: meanCurve(list.map((r) => r.allocationPct)),
      meanRequestedAllocationPct: meanCurve(list.map((r) => r.requestedAllocationPct)),
    };
  });
}

const WORKER_URL = new URL('./hybrid-worker.js', import.meta.url);

function runInWorkers(
  data: HybridWorkerData,
  tasks: readonly HybridTask[],
  size: number,
  onDone: (id: number, r: HybridRunResult) => void,
): Promise<void> {
  return runInWorkerPool<HybridTask, HybridRunResult>({
    workerUrl: WORKER_URL,
    data,
    tasks,
    size,
    onDone,
    error: (task, detail) =>
      new HybridWorkerError(
        task === null
          ? `hybrid worker ${detail}`
          : `hybrid worker failed (sharing ${task?.sharing}, seed ${task?.seed}): ${detail}`,
      ),
  });
}

/**
 * Replays every (sharing, seed) pair and summarizes. Uses min(`workers`, runs) worker threads when
 * `workers` > 1 and the compiled worker exists (not under vitest from src/), else runs in process.
 * Results are ordered by sharing setting, then seed, as given.
 * @throws RangeError for an unknown model, `mig` on a model without MIG, empty lists, bad workers or inflation
 * @throws TraceFormatError when a trace file cannot be read or is malformed
 * @throws HybridWorkerError when a worker fails
 */
export async function runHybridGrid(options: HybridGridOptions): Promise<HybridReport> {
  const { nodesFile, podsFile, sharing, seeds, inflation, workers } = options;
  const gpuModel = sharingGpuModel(options.gpuModel);
  if (!gpuModel) throw new RangeError(`unknown GPU model or one without known memory: ${options.gpuModel}`);
  if (sharing.includes('mig') && !gpuModel.migCapable)
    throw new RangeError(`--sharing mig needs a MIG-capable GPU model; ${gpuModel.name} has none`);
  if (sharing.length === 0 || seeds.length === 0)
    throw new RangeError('runHybridGrid needs at least one sharing setting and one seed');
  if (!Number.isSafeInteger(workers) || workers < 1)
    throw new RangeError(`workers must be an integer >= 1, got ${workers}`);
  if (!Number.isFinite(inflation) || inflation <= 0)
    throw new RangeError(`inflation must be a number > 0, got ${inflation}`);
  const tenants = options.tenants ?? 1;
  const mpsOneTenantPerGpu = options.mpsOneTenantPerGpu ?? true;
  if (!Number.isSafeInteger(tenants) || tenants < 1)
    throw new RangeError(`tenants must be an integer >= 1, got ${tenants}`);
  const nodes = await readNodeListFile(nodesFile);
  const pods = await readPodListFile(podsFile);
  const tasks: HybridTask[] = sharing.flatMap((s, i) =>
    seeds.map((seed, k) => ({ id: i * seeds.length + k, sharing: s, seed })),
  );
  const results = new Array<HybridRunResult | undefined>(tasks.length);
  let done = 0;
  const onDone = (id: number, result: HybridRunResult): void => {
    results[id] = result;
    options.onProgress?.(++done, tasks.length, result);
  };
  const size = Math.min(workers, tasks.length);
  if (size > 1 && existsSync(fileURLToPath(WORKER_URL))) {
    await runInWorkers(
      { nodesFile, podsFile, inflation, gpuModel: gpuModel.name, tenants, mpsOneTenantPerGpu },
      tasks,
      size,
      onDone,
    );
  } else {
    const input: HybridReplayInput = { nodes, pods, inflation, gpuModel, tenants, mpsOneTenantPerGpu };
    for (const task of tasks) {
      onDone(task.id, runHybridReplay(input, task.sharing, task.seed));
      await new Promise<void>((resolve) => setImmediate(resolve));
    }
  }
  const runs = results.map((r, i) => {
    if (!r) throw new HybridWorkerError(`no result for task ${i}`);
    return r;
  });
  return {
    replay: 'packing',
    sharing: [...sharing],
    gpuModel: gpuModel.name,
    gpuMemoryMiB: gpuModel.gpuMemoryMiB,
    policy: 'default',
    cluster: { nodes: nodes.length, gpus: nodes.reduce((s, n) => s + n.gpuCount, 0) },
    inputs: { nodesFile, podsFile, pods: pods.length },
    inflation,
    tenants,
    mpsOneTenantPerGpu,
    definitions: HYBRID_DEFINITIONS,
    runs,
    summary: summarizeHybridRuns(runs),
    generatedAt: new Date().toISOString(),
  };
}
