/**
 * Scale-down: which pool nodes to cordon and remove. A ready node whose jobs hold at most the
 * policy's share of its GPUs (none at all: idle) for the scale-down delay is cordoned; an idle one
 * is removed at once (cordon, then remove), a nearly idle one has its jobs checkpointed and moved
 * first, and only when every job on it can be checkpointed and all of them fit the other nodes
 * (one such node per decision). A cordoned node is removed once it is empty. A node a pass places
 * pending jobs on now is busy (it may have just come up, its jobs not yet bound). A template never
 * goes below its minimum count, a template whose provider backs off keeps its nodes, and a template
 * that grows in the same decision does not shrink.
 */
import type { ActiveJob } from '../model/cluster.js';
import { GPU_MILLI_PER_GPU } from '../model/quantity.js';
import { AUTOSCALE_CODES, status, type Status } from '../model/status.js';
import { backoffSecondsLeft } from './autoscale-state.js';
import type { AutoscaleInput, NodeAction } from './autoscale-types.js';
import type { NodeTemplate } from './node-template.js';
import { placedJobIds, type TrialBase } from './pool-placement.js';

/** The outcome of planScaleDown. */
export interface ScaleDownPlan {
  readonly cordon: readonly NodeAction[];
  readonly remove: readonly NodeAction[];
  readonly drainJobIds: readonly number[];
  readonly statuses: readonly Status[];
  /** Since when each ready node has been idle or nearly idle (the state's `lowUseSinceMs`). */
  readonly lowUseSinceMs: Readonly<Record<string, number>>;
}

/** Share of the node's GPUs (or, without GPUs, of its CPU) its jobs hold, 0..1. */
function utilization(gpuCount: number, hostCpuMilli: number, jobs: readonly ActiveJob[]): number {
  if (gpuCount === 0) {
    const cpu = jobs.reduce((sum, j) => sum + j.assignment.cpuMilli, 0);
    return hostCpuMilli === 0 ? 0 : cpu / hostCpuMilli;
  }
  let milli = 0;
  for (const j of jobs) for (const g of j.assignment.placement.gpus) milli += g.accountedGpuMilli;
  return milli / (gpuCount * GPU_MILLI_PER_GPU);
}

/**
 * Plans the nodes to cordon and remove.
 * @param counts nodes per template now (given-up booting nodes already taken out)
 * @param growing templates the same decision adds nodes of
 * @param claimed nodes a pass places pending jobs on now: busy, whatever they hold yet
 */
export function planScaleDown(
  input: AutoscaleInput,
  base: TrialBase,
  counts: Record<string, number>,
  growing: ReadonlySet<string>,
  claimed: ReadonlySet<string>,
): ScaleDownPlan {
  const { nowMs, policy } = input;
  const templates = new Map<string, NodeTemplate>(input.templates.map((t) => [t.name, t]));
  const nodes = new Map(input.snapshot.nodes.map((n) => [n.name, n]));
  const jobsOn = new Map<string, ActiveJob[]>();
  for (const job of input.snapshot.active) {
    const list = jobsOn.get(job.assignment.node) ?? [];
    list.push(job);
    jobsOn.set(job.assignment.node, list);
  }
  const cordon: NodeAction[] = [];
  const remove: NodeAction[] = [];
  const drainJobIds: number[] = [];
  const statuses: Status[] = [];
  const lowUseSinceMs: Record<string, number> = {};
  const leaving = new Set<string>();
  let drained = false;

  for (const poolNode of input.pool) {
    const template = templates.get(poolNode.template);
    const node = nodes.get(poolNode.name);
    if (template === undefined || node === undefined || poolNode.phase === 'booting') continue;
    const jobs = jobsOn.get(poolNode.name) ?? [];
    const since = input.state.lowUseSinceMs[poolNode.name];
    if (poolNode.phase === 'cordoned') {
      if (jobs.length === 0) {
        const idleSeconds = since === undefined ? 0 : Math.round((nowMs - since) / 1000);
        remove.push({
          node: poolNode.name,
          template: template.name,
          reason: status(AUTOSCALE_CODES.nodeIdle, false, {
            node: poolNode.name,
            template: template.name,
            idleSeconds,
          }),
        });
        counts[template.name] = (counts[template.name] ?? 0) - 1;
      } else if (since !== undefined) lowUseSinceMs[poolNode.name] = since;
      leaving.add(poolNode.name);
      continue;
    }
    const used = utilization(node.gpus.length, node.hostCpuMilli, jobs);
    if (claimed.has(poolNode.name) || (jobs.length > 0 && used > policy.scaleDownUtilization + 1e-9)) continue;
    const lowSince = since ?? nowMs;
    lowUseSinceMs[poolNode.name] = lowSince;
    const lowSeconds = (nowMs - lowSince) / 1000;
    if (lowSeconds < policy.scaleDownDelaySeconds || growing.has(template.name)) continue;
    const secondsLeft = backoffSecondsLeft(input.state, template.name, policy, nowMs);
    if (secondsLeft > 0) {
      statuses.push(
        status(AUTOSCALE_CODES.providerBackoff, false, {
          template: template.name,
          failures: input.state.failures[template.name]?.count ?? 0,
          secondsLeft,
          node: poolNode.name,
        }),
      );
      continue;
    }
    if ((counts[template.name] ?? 0) <= template.minCount) {
      statuses.push(
        status(AUTOSCALE_CODES.templateMinCount, false, {
          node: poolNode.name,
          template: template.name,
          minCount: template.minCount,
        }),
      );
      continue;
    }
    if (jobs.length === 0) {
      const reason = status(AUTOSCALE_CODES.nodeIdle, false, {
        node: poolNode.name,
        template: template.name,
        idleSeconds: Math.round(lowSeconds),
      });
      cordon.push({ node: poolNode.name, template: template.name, reason });
      remove.push({ node: poolNode.name, template: template.name, reason });
      counts[template.name] = (counts[template.name] ?? 0) - 1;
      leaving.add(poolNode.name);
      delete lowUseSinceMs[poolNode.name];
      continue;
    }
    if (drained) continue;
    const fixed = jobs.find((j) => !j.preemptible);
    if (fixed !== undefined) {
      statuses.push(
        status(AUTOSCALE_CODES.uncheckpointableJob, false, { node: poolNode.name, jobId: fixed.request.id }),
      );
      continue;
    }
    const jobIds = jobs.map((j) => j.request.id);
    const moved = new Set(jobIds);
    const others = {
      nodes: base.nodes.filter((n) => n.name !== poolNode.name && !leaving.has(n.name)),
      active: base.active.filter((j) => !moved.has(j.request.id)),
    };
    const placed = placedJobIds(
      others,
      jobs.map((j) => j.request),
      base.scheduling,
      base.seed,
    );
    if (jobIds.some((id) => !placed.has(id))) {
      statuses.push(status(AUTOSCALE_CODES.jobsFitNowhereElse, false, { node: poolNode.name, jobIds }));
      continue;
    }
    cordon.push({
      node: poolNode.name,
      template: template.name,
      reason: status(AUTOSCALE_CODES.nodeUnderused, false, {
        node: poolNode.name,
        template: template.name,
        utilization: Math.round(used * 1000) / 1000,
        threshold: policy.scaleDownUtilization,
        idleSeconds: Math.round(lowSeconds),
        jobIds,
      }),
    });
    drainJobIds.push(...jobIds);
    leaving.add(poolNode.name);
    drained = true;
  }
  return { cordon, remove, drainJobIds, statuses, lowUseSinceMs };
}
