/**
 * Worker-thread entry of the simulation grid (see run-grid.ts). It reads the trace files named in
 * `workerData` once, then answers each {@link GridTask} message with a {@link GridReply}.
 * Compiled to dist/sim/grid-worker.js; it does nothing when not started as a worker.
 */
import { runPackingReplay, type ReplayInput, type WorkloadSource } from './packing-replay.js';
import type { RunResult } from './simulation-types.js';
import { readNodeListFile, readPodListFile } from './traces/alibaba-csv.js';
import type { WorkerReply } from './worker-pool.js';
import { serveWorkerTasks } from './worker-tasks.js';

/** What the pool passes as `workerData`. */
export interface GridWorkerData {
  readonly nodesFile: string;
  readonly podsFile: string;
  /** Arrived GPU request as a multiple of capacity, e.g. 1.3. */
  readonly inflation: number;
  readonly workloadSource: WorkloadSource;
}

/** One (policy, seed) replay to run; `id` is echoed back in the reply. */
export interface GridTask {
  readonly id: number;
  readonly policy: string;
  readonly seed: number;
}

/** A worker's answer to one task. */
export type GridReply = WorkerReply<RunResult>;

async function load(data: GridWorkerData): Promise<ReplayInput> {
  const nodes = await readNodeListFile(data.nodesFile);
  const pods = await readPodListFile(data.podsFile);
  return { nodes, pods, inflation: data.inflation, workloadSource: data.workloadSource };
}

serveWorkerTasks(load, (input, task: GridTask) => runPackingReplay(input, task.policy, task.seed));
