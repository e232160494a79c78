/**
 * Worker-thread entry of the simulation grid (see run-grid.ts). It reads the trace files named in
 * `workerData` once, then answers each {@link GridTask} message with a {@link GridReply}.
 * Compiled to dist/sim/grid-worker.js; it does nothing when not started as a worker.
 */
import { parentPort, workerData } from 'node:worker_threads';
import { runPackingReplay, type ReplayInput, type WorkloadSource } from './packing-replay.js';
import type { RunResult } from './simulation-types.js';
import { readNodeListFile, readPodListFile } from './traces/alibaba-csv.js';
import type { WorkerReply } from './worker-pool.js';

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

const port = parentPort;
if (port) {
  const input = load(workerData as GridWorkerData);
  input.catch(() => undefined); // reported with the first task instead
  port.on('message', (task: GridTask) => {
    void (async (): Promise<void> => {
      let reply: GridReply;
      try {
        reply = { id: task.id, ok: true, result: runPackingReplay(await input, task.policy, task.seed) };
      } catch (err) {
        const error = err instanceof Error ? { name: err.name, message: err.message } : { name: 'Error', message: String(err) };
        reply = { id: task.id, ok: false, error };
      }
      port.postMessage(reply);
    })();
  });
}
