/**
 * The kubernetes provider and the autoscaler's Events over an API server in memory (the real one:
 * test/kubernetes/autoscaler.test.ts): the writes each request makes, in order, and none for a
 * request the objects already meet; a lost race on /scale read again; a node without a Machine
 * fails before anything is written; Events of the reasons nothing was done only when new.
 */
import { describe, expect, it } from 'vitest';
import { status } from '../../../core/index.js';
import type { KubeResponse, KubeRest } from '../extender/kube-rest.js';
import { kubeEventsReporter } from './kube-events.js';
import { DELETE_MACHINE_ANNOTATION, KubernetesProvider } from './kubernetes-provider.js';

const SCALE = '/apis/cluster.x-k8s.io/v1beta1/namespaces/capi/machinedeployments/gpu-a100/scale';
const MACHINES = '/apis/cluster.x-k8s.io/v1beta1/namespaces/capi/machines';

/** A MachineDeployment's replicas and its Machines, in memory, every call recorded. */
class FakeApi implements KubeRest {
  replicas = 3;
  resourceVersion = 1;
  /** Answer the next PUT of /scale with a conflict. */
  conflictNext = false;
  readonly machines = new Map<string, { node: string; annotations: Record<string, string> }>([
    ['m1', { node: 'node-1', annotations: {} }],
    ['m2', { node: 'node-2', annotations: {} }],
  ]);
  readonly calls: string[] = [];
  readonly bodies: unknown[] = [];

  async request(method: string, path: string, body?: unknown): Promise<KubeResponse> {
    this.calls.push(`${method} ${path}`);
    this.bodies.push(body);
    if (method === 'GET' && path === SCALE)
      return {
        status: 200,
        body: { metadata: { resourceVersion: String(this.resourceVersion) }, spec: { replicas: this.replicas } },
      };
    if (method === 'PUT' && path === SCALE) {
      const b = body as { metadata: { resourceVersion: string }; spec: { replicas: number } };
      if (this.conflictNext || b.metadata.resourceVersion !== String(this.resourceVersion)) {
        this.conflictNext = false;
        this.resourceVersion += 1;
        return { status: 409, body: { message: 'the object has been modified' } };
      }
      this.replicas = b.spec.replicas;
      this.resourceVersion += 1;
      return { status: 200, body: {} };
    }
    if (method === 'GET' && path === MACHINES)
      return {
        status: 200,
        body: {
          items: [...this.machines].map(([name, m]) => ({
            metadata: { name, annotations: m.annotations },
            status: { nodeRef: { name: m.node } },
          })),
        },
      };
    const machine = /\/machines\/(\w+)$/.exec(path)?.[1];
    if (method === 'PATCH' && machine !== undefined && this.machines.has(machine)) {
      const patch = body as { metadata: { annotations: Record<string, string> } };
      Object.assign(this.machines.get(machine)!.annotations, patch.metadata.annotations);
      return { status: 200, body: {} };
    }
    if (method === 'POST' && path.endsWith('/events')) return { status: 201, body: {} };
    return { status: 404, body: { message: `${method} ${path}: not found` } };
  }

  close(): void {}
}

function provider(api: FakeApi): KubernetesProvider {
  const resource = { apiVersion: 'cluster.x-k8s.io/v1beta1', namespace: 'capi' };
  return new KubernetesProvider(api, {
    targets: { a100x2: { ...resource, resource: 'machinedeployments', kind: 'MachineDeployment', name: 'gpu-a100' } },
    machines: { ...resource, resource: 'machines' },
  });
}

describe('KubernetesProvider', () => {
  it('marks the Machine of each leaving node, then lowers replicas; the same request again: no write', async () => {
    const api = new FakeApi();
    const p = provider(api);
    const request = { decisionId: 'd1', template: 'a100x2', desiredCount: 2, removeNodes: ['node-2'] };
    expect(await p.scale(request)).toEqual({
      ok: true,
      changed: true,
      detail:
        `marked Machine(s) m2 with ${DELETE_MACHINE_ANNOTATION}; ` + 'MachineDeployment capi/gpu-a100 replicas 3 → 2',
    });
    expect(api.calls).toEqual([`GET ${MACHINES}`, `PATCH ${MACHINES}/m2`, `GET ${SCALE}`, `PUT ${SCALE}`]);
    expect(api.machines.get('m2')!.annotations).toEqual({ [DELETE_MACHINE_ANNOTATION]: 'gpushare d1' });
    expect(api.machines.get('m1')!.annotations).toEqual({});
    expect(api.replicas).toBe(2);

    api.calls.length = 0;
    expect(await p.scale(request)).toEqual({
      ok: true,
      changed: false,
      detail: 'MachineDeployment capi/gpu-a100 already has 2 replica(s)',
    });
    expect(api.calls).toEqual([`GET ${MACHINES}`, `GET ${SCALE}`]);
  });

  it('reads /scale again after a conflict, and fails a node without a Machine before any write', async () => {
    const api = new FakeApi();
    api.conflictNext = true;
    const up = await provider(api).scale({ decisionId: 'd', template: 'a100x2', desiredCount: 4, removeNodes: [] });
    expect(up.ok).toBe(true);
    expect(api.calls).toEqual([`GET ${SCALE}`, `PUT ${SCALE}`, `GET ${SCALE}`, `PUT ${SCALE}`]);
    expect(api.replicas).toBe(4);

    api.calls.length = 0;
    const down = await provider(api).scale({
      decisionId: 'd',
      template: 'a100x2',
      desiredCount: 3,
      removeNodes: ['node-9'],
    });
    expect(down).toEqual({
      ok: false,
      changed: false,
      detail: 'node node-9 has no Machine in capi (status.nodeRef.name)',
    });
    expect(api.calls).toEqual([`GET ${MACHINES}`]);
    expect(api.replicas).toBe(4);
    expect(
      await provider(api).scale({ decisionId: 'd', template: 'h100x8', desiredCount: 1, removeNodes: [] }),
    ).toEqual({ ok: false, changed: false, detail: 'template h100x8 has no scale target' });
  });
});

describe('kubeEventsReporter', () => {
  it('writes an Event per action on its object, and the reasons nothing was done only when new', async () => {
    const api = new FakeApi();
    const reporter = kubeEventsReporter(api, {
      targetOf: (t) =>
        t === 'a100x2'
          ? { apiVersion: 'cluster.x-k8s.io/v1beta1', kind: 'MachineDeployment', name: 'gpu-a100', namespace: 'capi' }
          : undefined,
      fallback: { apiVersion: 'v1', kind: 'ConfigMap', name: 'gpushare-autoscaler', namespace: 'gpushare-system' },
      instance: 'test',
      warn: () => undefined,
      nowMs: () => Date.UTC(2026, 0, 1),
    });
    const idle = status('node-idle', false, { node: 'node-2', template: 'a100x2', idleSeconds: 610 });
    await reporter.report({ kind: 'cordon', node: 'node-2', template: 'a100x2', reason: idle });
    const cap = status('no-template-fits', true, { jobId: 4 });
    await reporter.report({ kind: 'waits', statuses: [cap] });
    await reporter.report({ kind: 'waits', statuses: [cap] });
    await reporter.report({ kind: 'desired', template: 'a100x2', count: 2 });
    const events = api.bodies.filter((b, i) => api.calls[i]!.startsWith('POST')) as {
      metadata: { namespace: string };
      involvedObject: { kind: string; name: string };
      reason: string;
      message: string;
      type: string;
    }[];
    expect(
      events.map((e) => [e.metadata.namespace, e.involvedObject.kind, e.involvedObject.name, e.reason, e.type]),
    ).toEqual([
      ['default', 'Node', 'node-2', 'node-idle', 'Normal'],
      ['gpushare-system', 'ConfigMap', 'gpushare-autoscaler', 'no-template-fits', 'Warning'],
    ]);
    expect(events.map((e) => e.message)).toEqual([
      'node node-2 (template a100x2) held no job for 610 s',
      'no node template fits (for job 4) even empty',
    ]);
  });
});
