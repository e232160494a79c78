/**
 * Trial placements of the autoscaler, each a plain `schedule()` pass (every job that fits is placed
 * in priority order) over the pool as it would be: the nodes that take jobs now, the booting nodes
 * as the empty nodes they will be, and a number of new nodes per template. Each trial draws from
 * a fresh generator of one seed, so that the same nodes give the same placements.
 */
import type { ActiveJob, ClusterNode, ClusterSnapshot } from '../model/cluster.js';
import type { JobRequest } from '../model/request.js';
import { SeededRng } from '../random/rng.js';
import { schedule, type ScheduleOptions } from '../schedule.js';
import { newNodeName, templateNode, type NodeTemplate } from './node-template.js';

/** The pool a trial places on, before any new node. */
export interface TrialBase {
  /** Nodes that take jobs (cordoned nodes left out or with their GPUs unschedulable), then booting nodes. */
  readonly nodes: readonly ClusterNode[];
  readonly active: readonly ActiveJob[];
  readonly scheduling: ScheduleOptions;
  readonly seed: number;
}

/** The snapshot of `base` with `counts[t]` new nodes of each template, templates in `templates` order. */
export function trialSnapshot(
  base: TrialBase,
  templates: readonly NodeTemplate[],
  counts: Readonly<Record<string, number>>,
): ClusterSnapshot {
  const added: ClusterNode[] = [];
  for (const t of templates)
    for (let i = 0; i < (counts[t.name] ?? 0); i++) added.push(templateNode(t, newNodeName(t, i)));
  return { nodes: [...base.nodes, ...added], active: base.active };
}

/** The node each of the `pending` jobs one pass places on `snapshot` goes to, by job id. */
export function placedNodes(
  snapshot: ClusterSnapshot,
  pending: readonly JobRequest[],
  scheduling: ScheduleOptions,
  seed: number,
): Map<number, string> {
  if (pending.length === 0) return new Map();
  const plan = schedule({ snapshot, pending, nowMs: 0, rng: new SeededRng(seed), options: scheduling });
  return new Map(plan.placements.map((p) => [p.jobId, p.node]));
}

/** The ids of the `pending` jobs one pass places on `snapshot`. */
export function placedJobIds(
  snapshot: ClusterSnapshot,
  pending: readonly JobRequest[],
  scheduling: ScheduleOptions,
  seed: number,
): Set<number> {
  return new Set(placedNodes(snapshot, pending, scheduling, seed).keys());
}

/** Whether `job` fits an empty node of `template` (memoised by the job's shape and the template). */
export class TemplateFit {
  private readonly memo = new Map<string, boolean>();

  constructor(
    private readonly scheduling: ScheduleOptions,
    private readonly seed: number,
  ) {}

  fits(job: JobRequest, template: NodeTemplate): boolean {
    if (job.gpu.mode === 'mig' && !template.migCapable) return false;
    const key = `${template.name}|${job.cpuMilli}|${job.hostMemoryMiB}|${JSON.stringify(job.gpu)}`;
    let fits = this.memo.get(key);
    if (fits === undefined) {
      const snapshot = { nodes: [templateNode(template, newNodeName(template, 0))], active: [] };
      fits = placedJobIds(snapshot, [job], this.scheduling, this.seed).has(job.id);
      this.memo.set(key, fits);
    }
    return fits;
  }
}

/** How much a job asks for, to weigh what a node places: milli-GPUs, plus a milli-GPU per CPU core. */
export function jobWork(job: JobRequest): number {
  return job.gpu.gpuCount * job.gpu.gpuMilli + job.cpuMilli / 1000;
}
