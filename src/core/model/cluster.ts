/**
 * A cluster as the scheduler core sees it at one instant: its nodes with their GPUs, and the jobs
 * that hold resources on them. The standalone server is a cluster of one node; the simulator
 * replays traces of 1,213 nodes; the Kubernetes extender describes a real cluster's nodes.
 * Everything the core decides is computed from a snapshot (and the pending requests): nothing
 * else is remembered between scheduling passes.
 */
import type { Assignment } from './assignment.js';
import type { GpuDevice } from './gpu-device.js';
import type { JobRequest } from './request.js';

/** One node: host capacity and GPUs. */
export interface ClusterNode {
  /** Unique name (the server's `nodeName`, a trace's `sn`, a Kubernetes Node's name). */
  readonly name: string;
  /** Host CPU offered to jobs, milli-cores. */
  readonly hostCpuMilli: number;
  /** Host memory offered to jobs, MiB. */
  readonly hostMemoryMiB: number;
  /** GPUs, each with a distinct `index`. A job's GPUs are GPUs of one model on one node. */
  readonly gpus: readonly GpuDevice[];
}

/** A job that holds resources, with what the pass rules need to know about it. */
export interface ActiveJob {
  /** What it asked for (tenant, priority, GPU request, time limit). */
  readonly request: JobRequest;
  /** What it holds, where. */
  readonly assignment: Assignment;
  /** May be preempted for a more important job (docs/preemption.md). */
  readonly preemptible: boolean;
  /** Start of its current attempt, ms since the epoch; null while it is being launched. */
  readonly startedAtMs: number | null;
  /** How often it has been preempted so far. */
  readonly preemptionCount: number;
  /** True while gpushare is stopping it (cancel, time limit, preemption): it is no preemption candidate. */
  readonly stopping: boolean;
}

/** The cluster at one instant. */
export interface ClusterSnapshot {
  /** Nodes, in a stable order (it breaks ties between equally good nodes when no rank is given). */
  readonly nodes: readonly ClusterNode[];
  /** Jobs that hold resources (scheduled or running). */
  readonly active: readonly ActiveJob[];
}
