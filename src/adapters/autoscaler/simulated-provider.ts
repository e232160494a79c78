/**
 * The `simulated` provider: a pool kept in memory, for tests and for trying the autoscaler without
 * a cloud. A template's group is a list of nodes named `<template>-sim-<n>`; a node asked for at
 * time t is up at t + the template's `bootSeconds` on the given clock. Setting the count removes the
 * named nodes first, then, when there are still too many, the newest ones that are not up, then the
 * newest. Nothing outside this process sees its nodes (simulated-pool.ts shows them to the
 * autoscaler).
 */
import type { NodeTemplate } from '../../core/index.js';
import type { NodeProvider, ProviderOutcome, ScaleRequest } from '../../app/ports/node-provider.js';

/** A node of the simulated pool. */
export interface SimulatedNode {
  readonly name: string;
  readonly template: string;
  /** When it was asked for, ms since the epoch. */
  readonly requestedAtMs: number;
  /** When it is up (requestedAtMs + bootSeconds), ms since the epoch. */
  readonly readyAtMs: number;
}

/** The simulated provider. */
export class SimulatedProvider implements NodeProvider {
  readonly kind = 'simulated';
  /** Every request, in order. */
  readonly calls: ScaleRequest[] = [];
  /** Calls that changed a group. */
  writes = 0;
  /** Templates whose next call fails (then succeeds again), for tests of back-off. */
  readonly failNext = new Set<string>();
  private readonly groups = new Map<string, SimulatedNode[]>();
  private readonly templates: ReadonlyMap<string, NodeTemplate>;
  private counter = 0;

  /** @param nowMs the clock nodes boot on, ms since the epoch */
  constructor(
    templates: readonly NodeTemplate[],
    private readonly nowMs: () => number,
  ) {
    this.templates = new Map(templates.map((t) => [t.name, t]));
  }

  async scale(request: ScaleRequest): Promise<ProviderOutcome> {
    this.calls.push(request);
    const template = this.templates.get(request.template);
    if (template === undefined)
      return { ok: false, changed: false, detail: `no template '${request.template}' in the simulated pool` };
    if (this.failNext.delete(request.template))
      return { ok: false, changed: false, detail: `simulated failure for template ${request.template}` };
    const before = this.groups.get(template.name) ?? [];
    const now = this.nowMs();
    let nodes = before.filter((n) => !request.removeNodes.includes(n.name));
    while (nodes.length > request.desiredCount) {
      const booting = nodes.filter((n) => n.readyAtMs > now);
      const drop = (booting.length > 0 ? booting : nodes).at(-1)!;
      nodes = nodes.filter((n) => n !== drop);
    }
    while (nodes.length < request.desiredCount)
      nodes = [
        ...nodes,
        {
          name: `${template.name}-sim-${++this.counter}`,
          template: template.name,
          requestedAtMs: now,
          readyAtMs: now + template.bootSeconds * 1000,
        },
      ];
    const changed = nodes.length !== before.length || nodes.some((n, i) => n !== before[i]);
    this.groups.set(template.name, nodes);
    if (changed) this.writes += 1;
    const names = nodes.map((n) => n.name).join(', ') || 'none';
    return {
      ok: true,
      changed,
      detail: changed
        ? `${before.length} → ${nodes.length} node(s): ${names}`
        : `already ${nodes.length} node(s): nothing to do`,
    };
  }

  /** Every node of the simulated pool, by template order of creation. */
  nodes(): SimulatedNode[] {
    return [...this.groups.values()].flat();
  }
}
