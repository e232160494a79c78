/**
 * Who may write a pod's assignment, on the real control plane: deploy/kubernetes/assignment-policy.yaml
 * (a ValidatingAdmissionPolicy) refuses a user with `pods/status` patch rights and one with
 * `pods/binding` create rights who set, change or remove it, while the extender (its ServiceAccount)
 * binds with it. With the policy's binding deleted, an admin plants assignments: one that does not
 * match the pod's request and a copy of another pod's valid one. The extender (`gpushare extender
 * --assignment-key-file`) accounts neither: it writes a Warning Event on each pod, counts them,
 * blocks the GPU (a new pod is not placed there, and its FailedScheduling says why) until the pods
 * are deleted; then the new pod binds there.
 */
import { randomBytes } from 'node:crypto';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { POD_ANNOTATIONS } from '../../src/adapters/kubernetes/schema/names.js';
import { assignmentAnnotations, type PodAssignment } from '../../src/adapters/kubernetes/schema/pod-assignment.js';
import { gpusOf } from '../../src/adapters/kubernetes/testing/kube-fixtures.js';
import { pollFor } from '../e2e/support/serve-harness.js';
import { kubernetesAvailable } from './support/binaries.js';
import { fetchExtenderText, startExtenderProcess, writeSchedulerConfig } from './support/gpushare-extender.js';
import {
  boundAssignment,
  create,
  failedSchedulingMessages,
  gpuPod,
  gpuRequest,
  listPods,
  type TestPod,
} from './support/gpu-workloads.js';
import { kubeRequest, PATCH_TYPES, type KubeCredentials } from './support/kube-client.js';
import { useControlPlane } from './support/use-control-plane.js';

const DEPLOY = join(import.meta.dirname, '..', '..', 'deploy', 'kubernetes');
const NS = 'team-guard';
const NODE = 'guard-node';
const EXTENDER = 'system:serviceaccount:gpushare-system:gpushare-extender';
const POLICY_BINDING =
  '/apis/admissionregistration.k8s.io/v1/validatingadmissionpolicybindings/gpushare-assignment-writer';

/** The refusal the policy gives `user` writing pod `pod` through `through` (e.g. `pods/status UPDATE`). */
function refusal(pod: string, user: string, through: string): string {
  return (
    `pods "${pod}" is forbidden: ValidatingAdmissionPolicy` +
    " 'gpushare-assignment-writer' with binding 'gpushare-assignment-writer' denied " +
    `request: metadata.annotations[gpushare.io/assignment]: only the gpushare extender (${EXTENDER}) may set, ` +
    "change or remove a pod's assignment (gpushare.io/assignment, gpushare.io/assigned-gpus), through pods, " +
    `pods/status, pods/binding or bindings; ${user} may not (${through})`
  );
}

function binding(name: string, annotations: Record<string, string>): object {
  return {
    apiVersion: 'v1',
    kind: 'Binding',
    metadata: { name, namespace: NS, annotations },
    target: { apiVersion: 'v1', kind: 'Node', name: NODE },
  };
}

/** A GPU pod of `request` that no scheduler takes (only a Binding places it). */
function unscheduledPod(name: string, gpuMilli: number): object {
  const pod = gpuPod(name, gpuRequest({ gpuMilli, mode: gpuMilli === 1000 ? 'exclusive' : 'mps' })) as {
    spec: Record<string, unknown>;
  };
  return { ...pod, spec: { ...pod.spec, schedulerName: 'nobody' } };
}

describe.skipIf(!kubernetesAvailable())('who may write an assignment, on the real control plane', () => {
  const plane = useControlPlane({ scheduler: false });
  let extender: Awaited<ReturnType<typeof startExtenderProcess>>;
  const users: Record<'statusWriter' | 'binder', KubeCredentials> = {} as Record<
    'statusWriter' | 'binder',
    KubeCredentials
  >;
  let victim: TestPod;
  let signed: PodAssignment;

  beforeAll(async () => {
    const p = plane();
    const applied = await p.kubectl([
      'apply',
      ...['namespace.yaml', 'rbac-extender.yaml', 'assignment-policy.yaml'].flatMap((f) => [
        '--filename',
        join(DEPLOY, f),
      ]),
    ]);
    if (applied.code !== 0) throw new Error(`kubectl apply: ${applied.stderr}`);
    const keyFile = join(p.dir, 'assignment.key');
    writeFileSync(keyFile, randomBytes(32).toString('base64'), { mode: 0o600 });
    const kubeconfig = await p.serviceAccountKubeconfig('gpushare-system', 'gpushare-extender');
    extender = await startExtenderProcess({ dir: p.dir, kubeconfig, assignmentKeyFile: keyFile });
    await p.restartScheduler({ configPath: writeSchedulerConfig(p.dir, extender), identity: 'component' });
    await p.createNamespace(NS);
    // Two users with one right each (and reading pods).
    const rights = { statusWriter: ['pods/status', 'patch'], binder: ['pods/binding', 'create'] } as const;
    for (const [user, [resource, verb]] of Object.entries(rights) as [keyof typeof rights, readonly string[]][]) {
      const name = user === 'statusWriter' ? 'status-writer' : 'binder';
      users[user] = await p.serviceAccountCredentials(NS, name);
      const role = {
        apiVersion: 'rbac.authorization.k8s.io/v1',
        kind: 'Role',
        metadata: { name },
        rules: [
          // The binder also has the older bindings resource (the same Binding, another route).
          { apiGroups: [''], resources: user === 'binder' ? [resource, 'bindings'] : [resource], verbs: [verb] },
          { apiGroups: [''], resources: ['pods'], verbs: ['get'] },
        ],
      };
      const roleBinding = {
        apiVersion: 'rbac.authorization.k8s.io/v1',
        kind: 'RoleBinding',
        metadata: { name },
        roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'Role', name },
        subjects: [{ kind: 'ServiceAccount', name, namespace: NS }],
      };
      for (const [kind, body] of [
        ['roles', role],
        ['rolebindings', roleBinding],
      ] as const) {
        const res = await p.request('POST', `/apis/rbac.authorization.k8s.io/v1/namespaces/${NS}/${kind}`, body);
        if (res.status !== 201) throw new Error(`create ${kind} ${name}: ${res.status} ${res.text}`);
      }
    }
    await p.createNode({
      name: NODE,
      gpuInventory: gpusOf(NODE, 1),
      // More than the one GPU holds, so the kube-scheduler's own resource check passes every pod
      // here and the extender decides.
      allocatable: {
        'gpushare.io/gpu': '4',
        'gpushare.io/gpu-milli': '4000',
        'gpushare.io/gpu-memory-mib': String(4 * 81_920),
        'gpushare.io/gpu-slot': '64',
      },
    });
    // The victim: a whole GPU, bound by the extender through the policy.
    await create(p, NS, gpuPod('victim', gpuRequest({ gpuMilli: 1000, mode: 'exclusive' })));
    victim = await pollFor(
      'the victim bound with its assignment',
      async () => (await listPods(p, NS)).find((x) => x.metadata.name === 'victim' && boundAssignment(x) !== null),
      60_000,
    );
    signed = boundAssignment(victim)!;
  }, 240_000);

  afterAll(async () => {
    await extender?.kill();
  });

  it('the extender binds through the policy: its assignment is signed for the pod', () => {
    expect(signed.gpus.map((g) => [g.uuid, g.gpuMilli, g.accountedGpuMilli])).toEqual([
      ['GPU-guard-node-0', 1000, 1000],
    ]);
    expect(signed.signature).toMatch(/^hmac-sha256:[A-Za-z0-9_-]{43}$/);
  });

  it('a user with pods/status patch rights may not set, change or remove an assignment', async () => {
    const forged: PodAssignment = {
      ...signed,
      mode: 'mps',
      gpus: signed.gpus.map((g) => ({ ...g, gpuMilli: 1, accountedGpuMilli: 1 })),
    };
    const path = `/api/v1/namespaces/${NS}/pods/victim/status`;
    const user = `system:serviceaccount:${NS}:status-writer`;
    const patches = [
      { [POD_ANNOTATIONS.assignment]: JSON.stringify(forged) },
      { [POD_ANNOTATIONS.assignment]: null },
      { [POD_ANNOTATIONS.assignedGpus]: 'GPU-elsewhere' },
    ];
    for (const annotations of patches) {
      const res = await kubeRequest<{ message: string; reason: string }>(
        users.statusWriter,
        'PATCH',
        path,
        { metadata: { annotations } },
        PATCH_TYPES.merge,
      );
      expect([res.status, res.body?.reason, res.body?.message]).toEqual([
        403,
        'Forbidden',
        refusal('victim', user, 'pods/status UPDATE'),
      ]);
    }
    // The same user may write through pods/status what is not an assignment.
    const label = await kubeRequest(
      users.statusWriter,
      'PATCH',
      path,
      { metadata: { labels: { checked: 'yes' } } },
      PATCH_TYPES.merge,
    );
    expect(label.status).toBe(200);
    const now = (await listPods(plane(), NS)).find((x) => x.metadata.name === 'victim')!;
    expect(now.metadata.annotations?.[POD_ANNOTATIONS.assignment]).toBe(JSON.stringify(signed));
  });

  it('a user with pods/binding create rights may not bind with an assignment', async () => {
    const p = plane();
    // A pod without GPUs that no scheduler takes.
    const pod = {
      apiVersion: 'v1',
      kind: 'Pod',
      metadata: { name: 'plain' },
      spec: { schedulerName: 'nobody', containers: [{ name: 'main', image: 'registry.invalid/none:1' }] },
    };
    await create(p, NS, pod);
    const path = `/api/v1/namespaces/${NS}/pods/plain/binding`;
    const refused = await kubeRequest<{ message: string }>(
      users.binder,
      'POST',
      path,
      binding('plain', assignmentAnnotations(signed)),
    );
    expect([refused.status, refused.body?.message]).toEqual([
      403,
      refusal('plain', `system:serviceaccount:${NS}:binder`, 'pods/binding CREATE'),
    ]);
    // The older route to the same Binding, POST /api/v1/namespaces/<ns>/bindings, is refused the same way.
    const legacy = await kubeRequest<{ message: string }>(
      users.binder,
      'POST',
      `/api/v1/namespaces/${NS}/bindings`,
      binding('plain', assignmentAnnotations(signed)),
    );
    expect([
      legacy.status,
      legacy.body?.message.endsWith(`system:serviceaccount:${NS}:binder may not (bindings CREATE)`),
    ]).toEqual([403, true]);
    // An empty assignment is an assignment too: setting one where there was none is refused.
    const empty = await kubeRequest<{ message: string }>(
      users.statusWriter,
      'PATCH',
      `/api/v1/namespaces/${NS}/pods/plain/status`,
      { metadata: { annotations: { [POD_ANNOTATIONS.assignment]: '' } } },
      PATCH_TYPES.merge,
    );
    expect([empty.status, empty.body?.message]).toEqual([
      403,
      refusal('plain', `system:serviceaccount:${NS}:status-writer`, 'pods/status UPDATE'),
    ]);
    expect((await listPods(p, NS)).find((x) => x.metadata.name === 'plain')?.spec.nodeName).toBeUndefined();
    // The same Binding without the assignment is allowed: the user has the right, not the annotation.
    expect((await kubeRequest(users.binder, 'POST', path, binding('plain', {}))).status).toBe(201);
    expect((await listPods(p, NS)).find((x) => x.metadata.name === 'plain')?.spec.nodeName).toBe(NODE);
  });

  it(
    'with the policy off, planted assignments are not accounted: an Event on each pod, the GPU blocked ' +
      'until the pods are deleted',
    async () => {
      const p = plane();
      expect((await p.request('DELETE', POLICY_BINDING)).status).toBe(200);
      // A victim's share changed to 1 milli-GPU of MPS: refused until the API server drops the binding.
      const forged: PodAssignment = {
        ...signed,
        mode: 'mps',
        gpus: signed.gpus.map((g) => ({ ...g, gpuMilli: 1, accountedGpuMilli: 1 })),
      };
      await pollFor(
        'the admin writes the forged assignment (the policy binding gone)',
        async () => {
          const res = await p.request(
            'PATCH',
            `/api/v1/namespaces/${NS}/pods/victim/status`,
            { metadata: { annotations: { [POD_ANNOTATIONS.assignment]: JSON.stringify(forged) } } },
            PATCH_TYPES.merge,
          );
          return res.status === 200 ? true : undefined;
        },
        30_000,
      );
      // A copy of the victim's valid, signed assignment bound onto another pod with the same request.
      await create(p, NS, unscheduledPod('copycat', 1000));
      const copied = await p.request(
        'POST',
        `/api/v1/namespaces/${NS}/pods/copycat/binding`,
        binding('copycat', assignmentAnnotations(signed)),
      );
      expect(copied.status).toBe(201);

      const events = await pollFor(
        'the Warning Events of both pods',
        async () => {
          const res = await p.request<{
            items: { involvedObject: { name: string }; reason: string; type: string; message: string }[];
          }>('GET', `/api/v1/namespaces/${NS}/events?fieldSelector=${encodeURIComponent('type=Warning')}`);
          const mine = (res.body?.items ?? [])
            .filter((e) => e.reason.startsWith('assignment-'))
            .map((e) => [e.involvedObject.name, e.reason, e.message])
            .sort();
          return mine.length >= 2 ? mine : undefined;
        },
        30_000,
      );
      expect(events).toEqual([
        [
          'copycat',
          'assignment-bad-signature',
          'gpushare: the assignment on this pod is not accounted (assignment-bad-signature: field=signature, ' +
            `found=not the extender’s); blocked on node ${NODE} until the pod is deleted or its assignment ` +
            'fixed: GPU 0',
        ],
        [
          'victim',
          'assignment-request-mismatch',
          'gpushare: the assignment on this pod is not accounted (assignment-request-mismatch: field=mode, ' +
            `expected=exclusive, found=mps); blocked on node ${NODE} until the pod is deleted or its assignment ` +
            'fixed: GPU 0',
        ],
      ]);
      const metrics = await fetchExtenderText(`${extender.urlPrefix.replace(/\/scheduler$/, '')}/metrics`, extender);
      expect(
        metrics
          .split('\n')
          .filter((l) => l.startsWith('gpushare_extender_assignments_refused_total'))
          .sort(),
      ).toEqual([
        'gpushare_extender_assignments_refused_total{code="assignment-bad-signature"} 1',
        'gpushare_extender_assignments_refused_total{code="assignment-request-mismatch"} 1',
      ]);

      // Accounted at 1 milli-GPU, the GPU would take a 500 milli-GPU pod: blocked, it does not.
      await create(p, NS, gpuPod('newcomer', gpuRequest({ gpuMilli: 500, mode: 'mps' })));
      const reasons = await pollFor(
        "the newcomer's FailedScheduling",
        async () => {
          const messages = await failedSchedulingMessages(p, NS, 'newcomer');
          return messages.length > 0 ? messages : undefined;
        },
        60_000,
      );
      expect(reasons[0]).toContain(
        `blocked GPUs (assignment-refused): GPU 0 by pod ${NS}/copycat (assignment-bad-signature), ` +
          `GPU 0 by pod ${NS}/victim (assignment-request-mismatch)`,
      );
      expect((await listPods(p, NS)).find((x) => x.metadata.name === 'newcomer')?.spec.nodeName).toBeUndefined();

      // Resolved: both pods deleted, the GPU is free again and the newcomer binds there.
      for (const name of ['victim', 'copycat'])
        expect((await p.request('DELETE', `/api/v1/namespaces/${NS}/pods/${name}?gracePeriodSeconds=0`)).status).toBe(
          200,
        );
      // The extender's view holds both deletions once GPU 0 is schedulable again in its metrics.
      await pollFor(
        'GPU 0 schedulable again in the extender',
        async () => {
          const text = await fetchExtenderText(`${extender.urlPrefix.replace(/\/scheduler$/, '')}/metrics`, extender);
          const gauges = text.split('\n').filter((l) => l.startsWith('gpushare_gpu_schedulable{'));
          return gauges.length === 1 && gauges[0]!.endsWith(' 1') ? true : undefined;
        },
        30_000,
      );
      // The kube-scheduler retries a pod the extender refused at its next cluster event; one filtered
      // between the scheduler's seeing a deletion and the extender's waits for the next such event
      // (docs/kubernetes/extender.md, "Retry on freed room"). A label on the node is one.
      const touched = await p.request(
        'PATCH',
        `/api/v1/nodes/${NODE}`,
        { metadata: { labels: { 'gpushare.io/test-touched': 'yes' } } },
        PATCH_TYPES.merge,
      );
      expect(touched.status).toBe(200);
      const placed = await pollFor(
        'the newcomer bound',
        async () => {
          const pod = (await listPods(p, NS)).find((x) => x.metadata.name === 'newcomer');
          return pod && boundAssignment(pod) !== null ? boundAssignment(pod)! : undefined;
        },
        90_000,
      );
      expect(placed.gpus.map((g) => [g.uuid, g.accountedGpuMilli])).toEqual([['GPU-guard-node-0', 500]]);
    },
    240_000,
  );
});
