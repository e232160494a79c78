/**
 * The pool as the core's autoscaler reads it, from what the cluster shows and what the autoscaler
 * asked of its provider: a node of a template that is Ready with its GPUs published is `ready`
 * (`cordoned` when unschedulable); one that exists but is not yet is `booting`; and a template
 * whose desired count is above the nodes that exist has that many more `booting` nodes, not yet
 * named ({@link bootingName}: `<template>~<n>`). Booting nodes count their time-out from when the count
 * was last raised. Nodes already handed to the provider for removal are left out, so they are never
 * removed twice while their Node object lingers. Pure.
 */
import { type ClusterSnapshot, type NodeTemplate, type PoolNode, type PoolNodePhase } from '../../core/index.js';
import type { TemplateGroup } from '../ports/autoscaler-store.js';
import type { PoolView } from '../ports/pool-cluster.js';

/**
 * The name of the `index`-th booting node of `template` that has no Node yet: `~` is in no Node
 * name (a DNS subdomain), nor in the core's names of the nodes a scale-up would add (`newNodeName`,
 * `<template>+<n>`), so neither can be mistaken for it.
 */
export function bootingName(template: string, index: number): string {
  return `${template}~${index}`;
}

/** The core's input about the pool, and each template's count now. */
export interface PoolNow {
  readonly pool: readonly PoolNode[];
  /** The view's snapshot without booting pool nodes and nodes being removed. */
  readonly snapshot: ClusterSnapshot;
  /** Each template's desired count now: the count last asked for, or the nodes present at first sight. */
  readonly desired: Readonly<Record<string, number>>;
  /** Each template's nodes being removed that still exist (the others are gone and forgotten). */
  readonly removing: Readonly<Record<string, readonly string[]>>;
}

/** The pool now. @param groups what the autoscaler last asked for, by template */
export function poolNow(
  view: PoolView,
  groups: Readonly<Record<string, TemplateGroup>>,
  templates: readonly NodeTemplate[],
  nowMs: number,
): PoolNow {
  const inSnapshot = new Set(view.snapshot.nodes.map((n) => n.name));
  const leaveOut = new Set<string>();
  const pool: PoolNode[] = [];
  const desired: Record<string, number> = {};
  const removing: Record<string, string[]> = {};
  for (const template of templates) {
    const group = groups[template.name];
    const gone = new Set(group?.removedNodes ?? []);
    const present = view.poolNodes.filter((n) => n.template === template.name);
    removing[template.name] = present.filter((n) => gone.has(n.name)).map((n) => n.name);
    const counted = present.filter((n) => !gone.has(n.name));
    for (const n of present) if (gone.has(n.name)) leaveOut.add(n.name);
    for (const n of counted) {
      const takesJobs = n.ready && inSnapshot.has(n.name);
      const phase: PoolNodePhase = !takesJobs ? 'booting' : n.cordoned ? 'cordoned' : 'ready';
      if (phase === 'booting') leaveOut.add(n.name);
      pool.push({ name: n.name, template: template.name, phase, requestedAtMs: group?.raisedAtMs ?? n.createdAtMs });
    }
    const count = group?.desiredCount ?? counted.length;
    desired[template.name] = count;
    for (let i = 0; i < count - counted.length; i++)
      pool.push({
        name: bootingName(template.name, i),
        template: template.name,
        phase: 'booting',
        requestedAtMs: group?.raisedAtMs ?? nowMs,
      });
  }
  const snapshot: ClusterSnapshot = {
    nodes: view.snapshot.nodes.filter((n) => !leaveOut.has(n.name)),
    active: view.snapshot.active.filter((j) => !leaveOut.has(j.assignment.node)),
  };
  return { pool, snapshot, desired, removing };
}
