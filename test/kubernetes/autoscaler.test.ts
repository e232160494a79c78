/**
 * `gpushare autoscaler` with the kubernetes provider on the real control plane, beside the real
 * kube-scheduler and `gpushare extender`: a stand-in for Cluster API (support/cluster-api.ts: the
 * MachineDeployment CRD with the `/scale` subresource, the Machine CRD; the test creates and deletes
 * Machines and Nodes as Cluster API would). The autoscaler runs as its ServiceAccount under
 * deploy/kubernetes/rbac-autoscaler.yaml. Its writes are counted in the kube-apiserver's audit log,
 * where the API server recorded them, never by the autoscaler's own account.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { KubeConfig } from '@kubernetes/client-node';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { kubeRestFrom, type KubeRest } from '../../src/adapters/kubernetes/extender/kube-rest.js';
import { DELETE_MACHINE_ANNOTATION } from '../../src/adapters/kubernetes/autoscaler/kubernetes-provider.js';
import type { AutoscalerRecord } from '../../src/app/ports/autoscaler-store.js';
import { gpusOf } from '../../src/adapters/kubernetes/testing/kube-fixtures.js';
import { parseAutoscalerConfig } from '../../src/config/autoscaler-config.js';
import { buildAutoscaler } from '../../src/main/autoscaler.js';
import { pollFor } from '../e2e/support/serve-harness.js';
import { kubernetesAvailable } from './support/binaries.js';
import {
  auditedWrites,
  createMachine,
  createMachineDeployment,
  deleteMachine,
  installClusterApiCrds,
  machines,
  replicasOf,
  writeAuditPolicy,
} from './support/cluster-api.js';
import {
  metric,
  recordingRest,
  startAutoscalerProcess,
  type AutoscalerProcess,
} from './support/gpushare-autoscaler.js';
import { startExtenderProcess, writeSchedulerConfig } from './support/gpushare-extender.js';
import { boundAssignment, create, gpuPod, gpuRequest, listPods, type TestPod } from './support/gpu-workloads.js';
import { useControlPlane } from './support/use-control-plane.js';

const DEPLOY = join(import.meta.dirname, '..', '..', 'deploy', 'kubernetes');
const NS = 'team-a';
const CAPI_NS = 'capi';
const MD = 'gpu-a100';
const TEMPLATE = 'a100x2';
const AUTOSCALER_USER = 'system:serviceaccount:gpushare-system:gpushare-autoscaler';
const A100_MIB = 81_920;
const CONFIG = `# 2 × A100 nodes from the MachineDeployment capi/gpu-a100
templates:
  - name: ${TEMPLATE}
    gpuModel: A100-80GB
    gpuCount: 2
    pricePerHour: 4.1
    minCount: 0
    maxCount: 4
    bootSeconds: 300
policy:
  # Short for the test, long enough for the kube-scheduler to bind pods to a node that just came up.
  scaleDownDelaySeconds: 5
provider:
  kind: kubernetes
  scaleTarget:
    apiVersion: cluster.x-k8s.io/v1beta1
    resource: machinedeployments
    kind: MachineDeployment
    namespace: ${CAPI_NS}
  targets:
    ${TEMPLATE}: ${MD}
`;

const AUDIT_DIR = mkdtempSync(join(tmpdir(), 'gpushare-autoscaler-audit-'));
const AUDIT_LOG = join(AUDIT_DIR, 'audit.log');
writeAuditPolicy(join(AUDIT_DIR, 'audit-policy.json'), AUTOSCALER_USER);

/** The autoscaler's successful writes the API server recorded, by kind. */
function writes() {
  const all = auditedWrites(AUDIT_LOG).filter((w) => w.code === 200 || w.code === 201);
  return {
    all,
    scales: all.filter((w) => w.resource === 'machinedeployments/scale' && w.verb === 'update'),
    machinePatches: all.filter((w) => w.resource === 'machines' && w.verb === 'patch'),
    nodePatches: all.filter((w) => w.resource === 'nodes' && w.verb === 'patch'),
  };
}

/** Node allocatable as the node agent and the kubelet would publish it. */
function gpuAllocatable(gpus: number): Record<string, string> {
  return {
    'gpushare.io/gpu': String(gpus),
    'gpushare.io/gpu-milli': String(gpus * 1000),
    'gpushare.io/gpu-memory-mib': String(gpus * A100_MIB),
    'gpushare.io/gpu-slot': String(gpus * 16),
  };
}

describe.skipIf(!kubernetesAvailable())(
  'gpushare autoscaler with the kubernetes provider on the real control plane',
  () => {
    const plane = useControlPlane({
      scheduler: false,
      apiServerArgs: [`--audit-policy-file=${join(AUDIT_DIR, 'audit-policy.json')}`, `--audit-log-path=${AUDIT_LOG}`],
    });
    let extender: Awaited<ReturnType<typeof startExtenderProcess>>;
    let autoscaler: AutoscalerProcess | undefined;
    let autoscalerKubeconfig = '';
    let configFile = '';
    const poll = <T>(what: string, check: () => Promise<T | undefined>, timeoutMs = 90_000) =>
      pollFor(what, check, timeoutMs);
    /** Pods of NS bound where their assignment says, by node. */
    const podsByNode = async (): Promise<Map<string, TestPod[]>> => {
      const byNode = new Map<string, TestPod[]>();
      for (const pod of await listPods(plane(), NS))
        if (boundAssignment(pod) !== null)
          byNode.set(pod.spec.nodeName!, [...(byNode.get(pod.spec.nodeName!) ?? []), pod]);
      return byNode;
    };
    /** The autoscaler's record in its ConfigMap. */
    const record = async (): Promise<AutoscalerRecord> => {
      const res = await plane().request<{ data: Record<string, string> }>(
        'GET',
        '/api/v1/namespaces/gpushare-system/configmaps/gpushare-autoscaler',
      );
      return JSON.parse(res.body.data['record.json']!) as AutoscalerRecord;
    };
    /** Reasons and messages of the Events on object `name` in `namespace`. */
    const eventsOn = async (namespace: string, name: string): Promise<[string, string][]> => {
      const selector = encodeURIComponent(`involvedObject.name=${name}`);
      const res = await plane().request<{ items: { reason: string; message: string }[] }>(
        'GET',
        `/api/v1/namespaces/${namespace}/events?fieldSelector=${selector}`,
      );
      return res.body.items.map((e) => [e.reason, e.message]);
    };
    /** Boots node `index`: its Machine and its Node (labelled, GPUs published), as Cluster API would. */
    const boot = async (index: number): Promise<string> => {
      const node = `a100-node-${index}`;
      await createMachine(plane(), CAPI_NS, `${MD}-m${index}`, node);
      await plane().createNode({
        name: node,
        gpuInventory: gpusOf(node, 2),
        allocatable: gpuAllocatable(2),
        labels: { 'gpushare.io/node-template': TEMPLATE },
      });
      return node;
    };

    beforeAll(async () => {
      const p = plane();
      const applied = await p.kubectl([
        'apply',
        ...['namespace.yaml', 'rbac-extender.yaml', 'rbac-autoscaler.yaml'].flatMap((f) => [
          '--filename',
          join(DEPLOY, f),
        ]),
      ]);
      if (applied.code !== 0) throw new Error(`kubectl apply: ${applied.stderr}`);
      // The shipped Deployment and its config, checked by the API server without being run.
      const dryRun = await p.kubectl(['apply', '--dry-run=server', '--filename', join(DEPLOY, 'autoscaler.yaml')]);
      if (dryRun.code !== 0) throw new Error(`kubectl apply --dry-run=server autoscaler.yaml: ${dryRun.stderr}`);
      await installClusterApiCrds(p, poll);
      await p.createNamespace(CAPI_NS);
      await createMachineDeployment(p, CAPI_NS, MD, 0);
      extender = await startExtenderProcess({
        dir: p.dir,
        kubeconfig: await p.serviceAccountKubeconfig('gpushare-system', 'gpushare-extender'),
      });
      await p.restartScheduler({ configPath: writeSchedulerConfig(p.dir, extender), identity: 'component' });
      await p.createNamespace(NS);
      autoscalerKubeconfig = await p.serviceAccountKubeconfig('gpushare-system', 'gpushare-autoscaler');
      configFile = join(p.dir, 'autoscaler.yaml');
      writeFileSync(configFile, CONFIG);
    }, 240_000);

    afterAll(async () => {
      await autoscaler?.kill();
      await extender?.kill();
      rmSync(AUDIT_DIR, { recursive: true, force: true });
    });

    it(
      'raises replicas to 3 through /scale for 5 pending pods of 0.6 GPU, the booted nodes take them, and the node ' +
        'left idle is cordoned and its Machine marked before replicas go to 2; busy nodes are never touched',
      async () => {
        const p = plane();
        for (let i = 1; i <= 5; i++)
          await create(p, NS, gpuPod(`train-${i}`, gpuRequest({ gpuMilli: 600, mode: 'mps' })));
        // Started once all 5 are there: pods that come one by one may take two scale-ups.
        autoscaler = await startAutoscalerProcess({ configFile, kubeconfig: autoscalerKubeconfig });
        const a = autoscaler;
        const rounds = async () =>
          metric(await a.metrics(), 'gpushare_autoscaler_rounds_total', { outcome: 'ok' }) ?? 0;

        // Scale-up: 5 GPUs' worth of 0.6-GPU pods (no two share a GPU) = 3 nodes of 2 GPUs.
        await poll('replicas 3', async () => ((await replicasOf(p, CAPI_NS, MD)) === 3 ? true : undefined)).catch(
          (e) => {
            throw new Error(`${(e as Error).message}\nautoscaler log:\n${a.log()}`);
          },
        );
        expect(writes().scales).toEqual([
          { verb: 'update', resource: 'machinedeployments/scale', name: MD, code: 200 },
        ]);
        // While the nodes boot they count: three more rounds ask for nothing.
        const seen = await rounds();
        await poll('3 more rounds', async () => ((await rounds()) >= seen + 3 ? true : undefined));
        expect(writes().scales).toHaveLength(1);
        expect(await eventsOn(CAPI_NS, MD)).toContainEqual([
          'unschedulable-jobs',
          '5 pending job(s) fit no node of the pool: adding 3 node(s) of template a100x2',
        ]);

        // The nodes boot; the kube-scheduler and the extender place the pods on them.
        const nodes = [await boot(1), await boot(2), await boot(3)];
        const placed = await poll('5 pods bound to the new nodes', async () => {
          const byNode = await podsByNode();
          return [...byNode.values()].flat().length === 5 ? byNode : undefined;
        });
        expect([...placed.keys()].every((n) => nodes.includes(n))).toBe(true);
        expect([...placed.values()].map((pods) => pods.length).sort()).toEqual([1, 2, 2]);
        const gpus = [...placed.values()]
          .flat()
          .map((pod) => `${pod.spec.nodeName}/${boundAssignment(pod)!.gpus[0]!.uuid}`);
        expect(new Set(gpus).size).toBe(5);
        let text = await a.metrics();
        expect(
          metric(text, 'gpushare_autoscaler_actions_total', {
            action: 'scale-up',
            template: TEMPLATE,
            reason: 'unschedulable-jobs',
          }),
        ).toBe(1);
        expect(metric(text, 'gpushare_autoscaler_desired_nodes', { template: TEMPLATE })).toBe(3);

        // The pod alone on its node ends: that node goes, the two busy ones stay.
        const [idle, [lonely]] = [...placed.entries()].find(([, pods]) => pods.length === 1)!;
        const busy = nodes.filter((n) => n !== idle);
        const res = await p.request(
          'DELETE',
          `/api/v1/namespaces/${NS}/pods/${lonely!.metadata.name}?gracePeriodSeconds=0`,
        );
        expect(res.status).toBe(200);
        await poll('replicas 2', async () => ((await replicasOf(p, CAPI_NS, MD)) === 2 ? true : undefined));
        const w = writes();
        const idleMachine = `${MD}-m${idle.slice(-1)}`;
        expect(w.scales).toHaveLength(2);
        expect(w.machinePatches.map((x) => x.name)).toEqual([idleMachine]);
        expect(new Set(w.nodePatches.map((x) => x.name))).toEqual(new Set([idle]));
        // Cordoned, then marked, then replicas lowered.
        expect(w.all.indexOf(w.nodePatches[0]!)).toBeLessThan(w.all.indexOf(w.machinePatches[0]!));
        expect(w.all.indexOf(w.machinePatches[0]!)).toBeLessThan(w.all.indexOf(w.scales[1]!));
        const marked = await machines(p, CAPI_NS);
        expect(
          [...marked.values()]
            .filter((m) => m.metadata.annotations?.[DELETE_MACHINE_ANNOTATION])
            .map((m) => m.metadata.name),
        ).toEqual([idleMachine]);
        const nodeList = await p.request<{
          items: { metadata: { name: string }; spec?: { unschedulable?: boolean } }[];
        }>('GET', '/api/v1/nodes');
        expect(nodeList.body.items.map((n) => [n.metadata.name, n.spec?.unschedulable === true]).sort()).toEqual(
          nodes.map((n) => [n, n === idle]).sort(),
        );
        const stillPlaced = await podsByNode();
        expect(busy.map((n) => stillPlaced.get(n)?.length)).toEqual([2, 2]);

        const nodeEvents = await eventsOn('default', idle);
        expect(nodeEvents.map(([reason]) => reason)).toEqual(['node-idle', 'node-idle']);
        expect(nodeEvents[0]![1]).toMatch(new RegExp(`^node ${idle} \\(template a100x2\\) held no job for \\d+ s$`));
        expect((await eventsOn(CAPI_NS, MD)).map(([reason]) => reason).sort()).toEqual([
          'node-idle',
          'unschedulable-jobs',
        ]);
        text = await a.metrics();
        for (const action of ['scale-down', 'cordon', 'remove'])
          expect(
            metric(text, 'gpushare_autoscaler_actions_total', { action, template: TEMPLATE, reason: 'node-idle' }),
          ).toBe(1);
        expect(metric(text, 'gpushare_autoscaler_desired_nodes', { template: TEMPLATE })).toBe(2);
        expect(metric(text, 'gpushare_autoscaler_provider_failures_total', { template: TEMPLATE })).toBeUndefined();

        // Cluster API removes the marked Machine and its Node; the autoscaler does nothing more.
        await deleteMachine(p, CAPI_NS, idleMachine);
        await p.request('DELETE', `/api/v1/nodes/${idle}`);
        const after = await rounds();
        await poll('3 more rounds', async () => ((await rounds()) >= after + 3 ? true : undefined));
        expect(await replicasOf(p, CAPI_NS, MD)).toBe(2);
        expect(writes().all).toHaveLength(w.all.length);
        expect(await record()).toMatchObject({
          inFlight: null,
          groups: { [TEMPLATE]: { desiredCount: 2, removedNodes: [] } },
        });
        await a.kill();
        autoscaler = undefined;
      },
      240_000,
    );

    it(
      'an autoscaler that dies after marking a Machine, or after raising replicas, is restarted and finishes the ' +
        'decision without a second annotation or scale write',
      async () => {
        const p = plane();
        const config = parseAutoscalerConfig(CONFIG, 'autoscaler.yaml');
        const kubeconfig = new KubeConfig();
        kubeconfig.loadFromFile(autoscalerKubeconfig);
        const lines: string[] = [];
        /** An autoscaler process, in this one: the same parts as `gpushare autoscaler`, over `rest`. */
        const incarnation = (rest: KubeRest) =>
          buildAutoscaler(config, rest, {
            namespace: 'gpushare-system',
            stateConfigMap: 'gpushare-autoscaler',
            identity: 'test-in-process',
            version: 'test',
            log: { info: (m) => void lines.push(m), warn: (m) => void lines.push(m) },
          }).loop;
        /** Runs rounds of `loop` until one fails (the crash), bounded. */
        const roundsUntilCrash = (loop: ReturnType<typeof incarnation>) =>
          poll('the autoscaler dies', async () => {
            try {
              await loop.round();
              return undefined;
            } catch (err) {
              return (err as Error).message;
            }
          });
        const before = writes();
        const [nodeY, nodeZ] = [...(await podsByNode()).keys()].sort();
        const machineY = `${MD}-m${nodeY!.slice(-1)}`;
        const podsOnZ = (await podsByNode())
          .get(nodeZ!)!
          .map((pod) => pod.metadata.name)
          .sort();

        // 1. Scale-down: node Y's pods end; the autoscaler dies right after marking its Machine.
        for (const pod of (await podsByNode()).get(nodeY!)!)
          await p.request('DELETE', `/api/v1/namespaces/${NS}/pods/${pod.metadata.name}?gracePeriodSeconds=0`);
        const a = recordingRest(
          kubeRestFrom(kubeconfig),
          (method, path, status) => method === 'PATCH' && path.includes('/machines/') && status === 200,
        );
        expect(await roundsUntilCrash(incarnation(a.rest))).toContain('the autoscaler process is gone');
        expect(a.crashed()).toBe(true);
        expect((await machines(p, CAPI_NS)).get(machineY)!.metadata.annotations?.[DELETE_MACHINE_ANNOTATION]).toMatch(
          /^gpushare /,
        );
        expect(await replicasOf(p, CAPI_NS, MD)).toBe(2);
        const left = await record();
        expect(left.inFlight!.steps).toMatchObject([
          { template: TEMPLATE, fromCount: 2, desiredCount: 1, done: false },
        ]);

        const b = recordingRest(kubeRestFrom(kubeconfig));
        const loopB = incarnation(b.rest);
        const resumed = await loopB.round();
        expect(resumed.resumed).toBe(left.inFlight!.id);
        expect(b.calls.filter((c) => c.method === 'PATCH' && c.path.includes('/machines/'))).toEqual([]);
        expect(b.calls.filter((c) => c.method === 'PUT' && c.path.endsWith('/scale')).map((c) => c.status)).toEqual([
          200,
        ]);
        expect(await replicasOf(p, CAPI_NS, MD)).toBe(1);
        // The next round: node Y still exists (Cluster API has not removed it) but is not removed again.
        await loopB.round();
        const writesOfB = b.calls
          .filter((x) => x.method !== 'GET' && !x.path.includes('/events') && !x.path.includes('/configmaps'))
          .map((x) => `${x.method} ${x.path}`);
        expect(writesOfB).toEqual([
          `PATCH /api/v1/nodes/${nodeY}`,
          `PUT /apis/cluster.x-k8s.io/v1beta1/namespaces/${CAPI_NS}/machinedeployments/${MD}/scale`,
        ]);
        const w1 = writes();
        expect(w1.machinePatches.slice(before.machinePatches.length).map((x) => x.name)).toEqual([machineY]);
        expect(w1.scales).toHaveLength(before.scales.length + 1);

        // 2. Scale-up: Cluster API removes node Y; 2 new pods need a node (Z's 2 GPUs are taken); the
        // autoscaler dies right after raising replicas.
        await deleteMachine(p, CAPI_NS, machineY);
        await p.request('DELETE', `/api/v1/nodes/${nodeY}`);
        for (const i of [6, 7]) await create(p, NS, gpuPod(`train-${i}`, gpuRequest({ gpuMilli: 600, mode: 'mps' })));
        const c = recordingRest(
          kubeRestFrom(kubeconfig),
          (method, path, status) => method === 'PUT' && path.endsWith('/scale') && status === 200,
        );
        expect(await roundsUntilCrash(incarnation(c.rest))).toContain('the autoscaler process is gone');
        expect(await replicasOf(p, CAPI_NS, MD)).toBe(2);
        const leftUp = await record();
        expect(leftUp.inFlight!.steps).toMatchObject([
          { template: TEMPLATE, fromCount: 1, desiredCount: 2, done: false },
        ]);

        const d = recordingRest(kubeRestFrom(kubeconfig));
        const loopD = incarnation(d.rest);
        expect((await loopD.round()).resumed).toBe(leftUp.inFlight!.id);
        await loopD.round();
        expect(d.calls.filter((x) => x.method === 'PUT' && x.path.endsWith('/scale'))).toEqual([]);
        expect(await replicasOf(p, CAPI_NS, MD)).toBe(2);
        const w2 = writes();
        expect(w2.scales).toHaveLength(before.scales.length + 2);
        expect(w2.machinePatches).toHaveLength(before.machinePatches.length + 1);
        expect(await record()).toMatchObject({ inFlight: null, groups: { [TEMPLATE]: { desiredCount: 2 } } });
        // Node Z, busy throughout, keeps its pods and its Machine unmarked.
        expect(
          (await podsByNode())
            .get(nodeZ!)!
            .map((pod) => pod.metadata.name)
            .sort(),
        ).toEqual(podsOnZ);
        expect(
          (await machines(p, CAPI_NS)).get(`${MD}-m${nodeZ!.slice(-1)}`)!.metadata.annotations?.[
            DELETE_MACHINE_ANNOTATION
          ],
        ).toBe(undefined);
        for (const r of [a, b, c, d]) r.rest.close();
      },
      240_000,
    );
  },
);
