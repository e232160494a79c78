/**
 * Runs a grid of packing replays (every policy × every seed), in process or on a pool of worker
 * threads, and assembles the {@link SimulationReport}.
 */
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { findPolicy } from '../core/index.js';
import type { GridTask, GridWorkerData } from './grid-worker.js';
import { runPackingReplay, UnknownPolicyError, type ReplayInput, type WorkloadSource } from './packing-replay.js';
import { loadPublishedFigures } from './published-results.js';
import type { PublishedFigure, RunResult, SimulationReport } from './simulation-types.js';
import { summarizeRuns } from './summarize.js';
import { readNodeListFile, readPodListFile } from './traces/alibaba-csv.js';
import { runInWorkerPool } from './worker-pool.js';

/** The setup of the FGD authors' published runs: the openb GPU node list at 1.3× inflation. */
const PUBLISHED_CLUSTER = { nodes: 1213, gpus: 6212, inflation: 1.3 } as const;

/** What to run. */
export interface GridOptions {
  /** Path of an `openb_node_list_*.csv` file. */
  nodesFile: string;
  /** Path of an `openb_pod_list_*.csv` file (its basename selects the published figures). */
  podsFile: string;
  /** Registered policy names, in display order. */
  policies: readonly string[];
  /** Seeds, in display order. */
  seeds: readonly number[];
  /** Arrived GPU request as a multiple of cluster capacity, e.g. 1.3. */
  inflation: number;
  /** Target workload of `default`: the trace's task types, or learned online. @defaultValue 'trace' */
  workloadSource?: WorkloadSource;
  /** Worker threads to use (integer ≥ 1); 1 runs in process. */
  workers: number;
  /** Called after each finished run with the count done so far, the total, and that run. */
  onProgress?: (done: number, total: number, last: RunResult) => void;
}

/** Raised in the main thread when a worker thread fails a task or dies. */
export class GridWorkerError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'GridWorkerError';
  }
}

const WORKER_URL = new URL('./grid-worker.js', import.meta.url);

/** Runs `tasks` in this thread, yielding to the event loop between runs. */
async function runInProcess(
  input: ReplayInput,
  tasks: readonly GridTask[],
  onDone: (id: number, r: RunResult) => void,
): Promise<void> {
  for (const task of tasks) {
    onDone(task.id, runPackingReplay(input, task.policy, task.seed));
    await new Promise<void>((resolve) => setImmediate(resolve));
  }
}

function runInWorkers(
  data: GridWorkerData,
  tasks: readonly GridTask[],
  size: number,
  onDone: (id: number, r: RunResult) => void,
): Promise<void> {
  return runInWorkerPool<GridTask, RunResult>({
    workerUrl: WORKER_URL,
    data,
    tasks,
    size,
    onDone,
    error: (task, detail) =>
      new GridWorkerError(
        task === null
          ? `grid worker ${detail}`
          : `grid worker failed (${task ? `policy ${task.policy}, seed ${task.seed}` : 'unknown task'}): ${detail}`,
      ),
  });
}

/**
 * Replays every (policy, seed) pair on the given trace and summarizes the results.
 *
 * Uses a pool of min(`workers`, runs) worker threads running dist/sim/grid-worker.js when
 * `workers` > 1 and that compiled file exists (not under vitest from src/), otherwise runs in
 * process. Results are ordered by policy, then seed, in the order given, whatever the completion
 * order.
 *
 * @returns The report; `cluster.gpus` counts whole GPUs, `generatedAt` is an ISO timestamp.
 * @throws UnknownPolicyError for an unregistered policy (checked before any file is read)
 * @throws RangeError for empty `policies`/`seeds`, non-integer `workers` < 1, or `inflation` ≤ 0
 * @throws TraceFormatError when a trace file cannot be read or is malformed
 * @throws GridWorkerError when a worker fails (all workers are then terminated)
 */
export async function runGrid(options: GridOptions): Promise<SimulationReport> {
  const { nodesFile, podsFile, policies, seeds, inflation, workers } = options;
  const workloadSource = options.workloadSource ?? 'trace';
  for (const policy of policies) if (!findPolicy(policy)) throw new UnknownPolicyError(policy);
  if (policies.length === 0 || seeds.length === 0)
    throw new RangeError('runGrid needs at least one policy and one seed');
  if (!Number.isSafeInteger(workers) || workers < 1)
    throw new RangeError(`workers must be an integer >= 1, got ${workers}`);
  if (!Number.isFinite(inflation) || inflation <= 0)
    throw new RangeError(`inflation must be a number > 0, got ${inflation}`);

  const nodes = await readNodeListFile(nodesFile);
  const pods = await readPodListFile(podsFile);
  const gpus = nodes.reduce((sum, n) => sum + n.gpuCount, 0);
  // The authors' figures only compare when the setup is theirs: their cluster and 130% inflation.
  const comparable =
    nodes.length === PUBLISHED_CLUSTER.nodes &&
    gpus === PUBLISHED_CLUSTER.gpus &&
    inflation === PUBLISHED_CLUSTER.inflation;
  const published = comparable ? loadPublishedFigures(podsFile) : new Map<string, PublishedFigure>();

  const tasks: GridTask[] = policies.flatMap((policy, p) =>
    seeds.map((seed, s) => ({ id: p * seeds.length + s, policy, seed })),
  );
  const results: (RunResult | undefined)[] = new Array<RunResult | undefined>(tasks.length);
  let done = 0;
  const onDone = (id: number, result: RunResult): void => {
    results[id] = result;
    options.onProgress?.(++done, tasks.length, result);
  };
  const size = Math.min(workers, tasks.length);
  if (size > 1 && existsSync(fileURLToPath(WORKER_URL))) {
    await runInWorkers({ nodesFile, podsFile, inflation, workloadSource }, tasks, size, onDone);
  } else {
    await runInProcess({ nodes, pods, inflation, workloadSource }, tasks, onDone);
  }

  const runs = results.map((r, i) => {
    if (!r) throw new GridWorkerError(`no result for task ${i}`);
    return r;
  });
  return {
    cluster: { nodes: nodes.length, gpus },
    inputs: { nodesFile, podsFile, pods: pods.length },
    inflation,
    workloadSource,
    runs,
    summary: summarizeRuns(runs, published),
    generatedAt: new Date().toISOString(),
  };
}
