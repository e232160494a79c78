/**
 * Worker-thread entry of the hybrid-sharing grid (see run-hybrid.ts): reads the trace files named
 * in `workerData` once, then answers each {@link HybridTask} with a {@link HybridReply}. Compiled
 * to dist/sim/hybrid/hybrid-worker.js; it does nothing when not started as a worker.
 */
import { readNodeListFile, readPodListFile } from '../traces/alibaba-csv.js';
import { runHybridReplay, type HybridReplayInput } from './hybrid-replay.js';
import type { HybridRunResult } from './hybrid-types.js';
import { sharingGpuModel, type SharingSetting } from './pod-mode.js';
import type { WorkerReply } from '../worker-pool.js';
import { serveWorkerTasks } from '../worker-tasks.js';

/** What the pool passes as `workerData`. */
export interface HybridWorkerData {
  readonly nodesFile: string;
  readonly podsFile: string;
  readonly inflation: number;
  /** Catalog name of the GPU model (`--gpu-model`). */
  readonly gpuModel: string;
  /** Tenants the pods are spread over. */
  readonly tenants: number;
  /** One tenant per MPS GPU. */
  readonly mpsOneTenantPerGpu: boolean;
}

/** One (sharing, seed) replay; `id` is echoed back. */
export interface HybridTask {
  readonly id: number;
  readonly sharing: SharingSetting;
  readonly seed: number;
}

/** A worker's answer to one task. */
export type HybridReply = WorkerReply<HybridRunResult>;

async function load(data: HybridWorkerData): Promise<HybridReplayInput> {
  const gpuModel = sharingGpuModel(data.gpuModel);
  if (!gpuModel) throw new RangeError(`unknown GPU model or one without known memory: ${data.gpuModel}`);
  return {
    nodes: await readNodeListFile(data.nodesFile),
    pods: await readPodListFile(data.podsFile),
    inflation: data.inflation,
    gpuModel,
    tenants: data.tenants,
    mpsOneTenantPerGpu: data.mpsOneTenantPerGpu,
  };
}

serveWorkerTasks(load, (input, task: HybridTask) => runHybridReplay(input, task.sharing, task.seed));
