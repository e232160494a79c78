/**
 * The autoscaler's one decision (docs/autoscaler.md): from the pending queue, the pool's nodes
 * (booting ones count), the node templates, the policy and the state of earlier decisions, which
 * nodes to add (scale-up.ts), which to cordon, drain and remove (scale-down.ts), and which booting
 * nodes to give up. Pure: the same input gives the same decision; every placement it assumes is a
 * real pass of `schedule()`. Its owner carries the decision out through a provider and passes the
 * returned state to the next decision.
 */
import type { ClusterNode } from '../model/cluster.js';
import { InvariantViolation } from '../model/errors.js';
import { AUTOSCALE_CODES, status } from '../model/status.js';
import { recordProviderFailure } from './autoscale-state.js';
import type { AutoscaleDecision, AutoscaleInput, NodeAction } from './autoscale-types.js';
import { checkTemplates, newNodeName, templateNode, type NodeTemplate } from './node-template.js';
import { placedNodes, trialSnapshot, type TrialBase } from './pool-placement.js';
import { planScaleDown } from './scale-down.js';
import { planScaleUp } from './scale-up.js';

/** A node whose GPUs take no new job (cordoned), its running jobs kept. */
function cordoned(node: ClusterNode): ClusterNode {
  return { ...node, gpus: node.gpus.map((g) => ({ ...g, schedulable: false })) };
}

/**
 * Decides what the pool does now.
 * @throws InvariantViolation for a bad template (checkTemplates) or a pool node of an unknown template
 */
export function autoscale(input: AutoscaleInput): AutoscaleDecision {
  const { nowMs, policy } = input;
  checkTemplates(input.templates);
  const templates = new Map<string, NodeTemplate>(input.templates.map((t) => [t.name, t]));
  const seed = input.seed ?? 1;
  const scheduling = input.scheduling ?? {};

  // Booting nodes past their boot time and the time-out are given up.
  const remove: NodeAction[] = [];
  const booting: ClusterNode[] = [];
  const byTemplate: Record<string, number> = {};
  let costPerHour = 0;
  let nodes = 0;
  const cordonedNames = new Set<string>();
  const reserved = input.templates.map((t) => newNodeName(t, 0).slice(0, -1));
  for (const name of [...input.pool.map((p) => p.name), ...input.snapshot.nodes.map((n) => n.name)]) {
    const prefix = reserved.find((r) => name.startsWith(r));
    if (prefix !== undefined)
      throw new InvariantViolation(
        `node '${name}': names starting with '${prefix}' are the names of nodes a scale-up would add (newNodeName)`,
      );
  }
  for (const poolNode of input.pool) {
    const template = templates.get(poolNode.template);
    if (template === undefined)
      throw new InvariantViolation(
        `pool node '${poolNode.name}': template must be one of ${[...templates.keys()].join(', ')}, ` +
          `got '${poolNode.template}'`,
      );
    if (poolNode.phase === 'booting') {
      const limitMs = (template.bootSeconds + policy.bootTimeoutSeconds) * 1000;
      if (nowMs - poolNode.requestedAtMs > limitMs) {
        remove.push({
          node: poolNode.name,
          template: template.name,
          reason: status(AUTOSCALE_CODES.bootTimedOut, false, {
            node: poolNode.name,
            template: template.name,
            bootSeconds: template.bootSeconds,
            timeoutSeconds: policy.bootTimeoutSeconds,
          }),
        });
        continue;
      }
      booting.push(templateNode(template, poolNode.name));
    }
    if (poolNode.phase === 'cordoned') cordonedNames.add(poolNode.name);
    byTemplate[template.name] = (byTemplate[template.name] ?? 0) + 1;
    costPerHour += template.pricePerHour;
    nodes += 1;
  }
  const ready = input.snapshot.nodes.map((n) => (cordonedNames.has(n.name) ? cordoned(n) : n));
  const readyBase: TrialBase = { nodes: ready, active: input.snapshot.active, scheduling, seed };
  const trialBase: TrialBase = { ...readyBase, nodes: [...ready, ...booting] };

  // A node that never came up is the provider's failure: its template backs off from now.
  let state = input.state;
  for (const r of remove) state = recordProviderFailure(state, r.template, nowMs);
  // Where the pending jobs go now: a node they would land on is not idle, whatever it holds yet.
  const placedNow = placedNodes(trialSnapshot(trialBase, input.templates, {}), input.pending, scheduling, seed);
  const up = planScaleUp({ ...input, state }, trialBase, { nodes, costPerHour, byTemplate }, placedNow);
  const counts = { ...byTemplate };
  const growing = new Set(up.scaleUp.map((s) => s.template));
  const down = planScaleDown({ ...input, state }, readyBase, counts, growing, new Set(placedNow.values()));
  for (const s of up.scaleUp) counts[s.template] = (counts[s.template] ?? 0) + s.count;

  const desiredCount: Record<string, number> = {};
  for (const t of input.templates) desiredCount[t.name] = counts[t.name] ?? 0;
  return {
    scaleUp: up.scaleUp,
    scaleUpJobIds: up.jobIds,
    cordon: down.cordon,
    drainJobIds: down.drainJobIds,
    remove: [...remove, ...down.remove],
    desiredCount,
    statuses: [...up.statuses, ...down.statuses],
    state: {
      lastScaleUpMs: up.scaleUp.length > 0 ? nowMs : input.state.lastScaleUpMs,
      lowUseSinceMs: down.lowUseSinceMs,
      failures: state.failures,
    },
  };
}
