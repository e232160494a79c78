/**
 * The `kubernetes` provider: each template is one object with a `/scale` subresource (a Cluster
 * API MachineDeployment or MachineSet, any custom resource whose CustomResourceDefinition declares
 * `subresources.scale`), whose `spec.replicas` it sets through `/scale`
 * (autoscaling/v1 `Scale`, written with the resourceVersion it read).
 *
 * On a scale-down it first marks the Machine of every node that leaves with the annotation
 * `cluster.x-k8s.io/delete-machine` (a merge patch), as Cluster Autoscaler's clusterapi provider
 * does: Cluster API then deletes those Machines rather than others when replicas go down. A
 * node's Machine is the one whose `status.nodeRef.name` names it, in the Machines' namespace. Only
 * then are the replicas lowered. A node no Machine names fails the call before anything is written
 * (the Machines may be elsewhere: `machines` in the config). A booting node has no Node, so none is
 * named: Cluster API removes the Machines without a node first.
 *
 * Idempotent: a Machine already marked is not patched again, and replicas already at the count are
 * not written, so a call repeated after a restart writes nothing (`changed` false).
 */
import type { NodeProvider, ProviderOutcome, ScaleRequest } from '../../../app/ports/node-provider.js';
import { listItems, statusMessage, type KubeRest } from '../extender/kube-rest.js';

/** Cluster API's annotation: delete this Machine first when its MachineSet shrinks. */
export const DELETE_MACHINE_ANNOTATION = 'cluster.x-k8s.io/delete-machine';

/** A kind of namespaced object: `group/version` (`v1` for the core group), plural resource. */
export interface ApiResource {
  readonly apiVersion: string;
  readonly resource: string;
  readonly namespace: string;
}

/** The object a template scales. */
export interface ScaleTarget extends ApiResource {
  /** Its kind (`MachineDeployment`): the Events' involvedObject. */
  readonly kind: string;
  readonly name: string;
}

/** What the provider scales. */
export interface KubernetesProviderOptions {
  /** By template name. */
  readonly targets: Readonly<Record<string, ScaleTarget>>;
  /** Where the Machines are; null: nodes are not marked. */
  readonly machines: ApiResource | null;
}

/** The path of `resource` in its namespace, `/name` appended when given. */
export function resourcePath(r: ApiResource, name?: string): string {
  const base = r.apiVersion.includes('/') ? `/apis/${r.apiVersion}` : `/api/${r.apiVersion}`;
  const tail = name === undefined ? '' : `/${encodeURIComponent(name)}`;
  return `${base}/namespaces/${encodeURIComponent(r.namespace)}/${r.resource}${tail}`;
}

interface Machine {
  readonly metadata?: { readonly name?: string; readonly annotations?: Readonly<Record<string, string>> };
  readonly status?: { readonly nodeRef?: { readonly name?: string } };
}

interface Scale {
  readonly metadata?: { readonly resourceVersion?: string };
  readonly spec?: { readonly replicas?: number };
}

/** Thrown inside a call; turned into a failed outcome. */
class CallFailed extends Error {}

/** The kubernetes provider. */
export class KubernetesProvider implements NodeProvider {
  readonly kind = 'kubernetes';

  constructor(
    private readonly rest: KubeRest,
    private readonly options: KubernetesProviderOptions,
  ) {}

  async scale(request: ScaleRequest): Promise<ProviderOutcome> {
    const target = this.options.targets[request.template];
    if (target === undefined)
      return { ok: false, changed: false, detail: `template ${request.template} has no scale target` };
    const done: string[] = [];
    try {
      const marked = await this.markMachines(request, request.removeNodes);
      if (marked.length > 0) done.push(`marked Machine(s) ${marked.join(', ')} with ${DELETE_MACHINE_ANNOTATION}`);
      const from = await this.setReplicas(target, request.desiredCount);
      const ref = `${target.kind} ${target.namespace}/${target.name}`;
      if (from === null) done.push(`${ref} already has ${request.desiredCount} replica(s)`);
      else done.push(`${ref} replicas ${from} → ${request.desiredCount}`);
      return { ok: true, changed: marked.length > 0 || from !== null, detail: done.join('; ') };
    } catch (err) {
      const before = done.length > 0 ? ` (after: ${done.join('; ')})` : '';
      return { ok: false, changed: done.length > 0, detail: `${(err as Error).message}${before}` };
    }
  }

  /** Marks the Machines of `nodes` not marked yet. @returns the Machines patched */
  private async markMachines(request: ScaleRequest, nodes: readonly string[]): Promise<string[]> {
    const machines = this.options.machines;
    if (machines === null || nodes.length === 0) return [];
    const path = resourcePath(machines);
    const items = await listItems<Machine>(this.rest, path).catch((err: Error) => {
      throw new CallFailed(err.message);
    });
    const chosen = nodes.map((node) => {
      const machine = items.find((m) => m.status?.nodeRef?.name === node);
      if (machine?.metadata?.name === undefined)
        throw new CallFailed(`node ${node} has no Machine in ${machines.namespace} (status.nodeRef.name)`);
      return machine;
    });
    const patched: string[] = [];
    for (const machine of chosen) {
      if (machine.metadata?.annotations?.[DELETE_MACHINE_ANNOTATION] !== undefined) continue;
      const machinePath = resourcePath(machines, machine.metadata!.name!);
      const patch = { metadata: { annotations: { [DELETE_MACHINE_ANNOTATION]: `gpushare ${request.decisionId}` } } };
      const res = await this.rest.request('PATCH', machinePath, patch, 'application/merge-patch+json');
      if (res.status !== 200) throw new CallFailed(`PATCH ${machinePath}: ${statusMessage(res)}`);
      patched.push(machine.metadata!.name!);
    }
    return patched;
  }

  /**
   * Sets the target's replicas through `/scale` unless they are `replicas` already; a write that
   * lost a race (409) reads again, three times at most. @returns the replicas before, or null when
   *   nothing was written
   */
  private async setReplicas(target: ScaleTarget, replicas: number): Promise<number | null> {
    const path = `${resourcePath(target, target.name)}/scale`;
    for (let attempt = 1; ; attempt++) {
      const read = await this.rest.request('GET', path);
      if (read.status !== 200) throw new CallFailed(`GET ${path}: ${statusMessage(read)}`);
      const scale = read.body as Scale;
      const before = scale.spec?.replicas ?? 0;
      if (before === replicas) return null;
      const body = {
        apiVersion: 'autoscaling/v1',
        kind: 'Scale',
        metadata: { name: target.name, namespace: target.namespace, resourceVersion: scale.metadata?.resourceVersion },
        spec: { replicas },
      };
      const write = await this.rest.request('PUT', path, body);
      if (write.status === 200) return before;
      if (write.status !== 409 || attempt === 3) throw new CallFailed(`PUT ${path}: ${statusMessage(write)}`);
    }
  }
}
