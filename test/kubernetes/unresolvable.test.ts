/**
 * A request no node could ever hold, on the real control plane: the extender's filter answers it as
 * unresolvable on every node (`fits-no-node`, naming the largest node), so the real kube-scheduler
 * tries no preemption for it, even with lower-priority pods on every node it could evict.
 */
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { gpusOf } from '../../src/adapters/kubernetes/testing/kube-fixtures.js';
import { pollFor } from '../e2e/support/serve-harness.js';
import { kubernetesAvailable } from './support/binaries.js';
import { startExtenderProcess, writeSchedulerConfig } from './support/gpushare-extender.js';
import {
  boundAssignment,
  create,
  failedSchedulingMessages,
  gpuPod,
  gpuRequest,
  listPods,
} from './support/gpu-workloads.js';
import { useControlPlane } from './support/use-control-plane.js';

const DEPLOY = join(import.meta.dirname, '..', '..', 'deploy', 'kubernetes');
const NS = 'team-a';
const A10_MIB = 24_576;

/** A pod of `request` with PriorityClass `priorityClassName`, on node `node` when given (node affinity). */
function prioritizedPod(
  name: string,
  request: ReturnType<typeof gpuRequest>,
  priorityClassName: string,
  node?: string,
): object {
  const pod = gpuPod(name, request) as { spec: object };
  const affinity =
    node === undefined
      ? {}
      : {
          affinity: {
            nodeAffinity: {
              requiredDuringSchedulingIgnoredDuringExecution: {
                nodeSelectorTerms: [{ matchFields: [{ key: 'metadata.name', operator: 'In', values: [node] }] }],
              },
            },
          },
        };
  return { ...pod, spec: { ...pod.spec, priorityClassName, ...affinity } };
}

describe.skipIf(!kubernetesAvailable())('a request no node could ever hold, on the real control plane', () => {
  const plane = useControlPlane({ scheduler: false });
  let extender: Awaited<ReturnType<typeof startExtenderProcess>>;
  const poll = <T>(what: string, check: () => Promise<T | undefined>, timeoutMs = 60_000) =>
    pollFor(what, check, timeoutMs);

  beforeAll(async () => {
    const p = plane();
    const applied = await p.kubectl([
      'apply',
      ...['namespace.yaml', 'rbac-extender.yaml'].flatMap((f) => ['--filename', join(DEPLOY, f)]),
    ]);
    if (applied.code !== 0) throw new Error(`kubectl apply: ${applied.stderr}`);
    const kubeconfig = await p.serviceAccountKubeconfig('gpushare-system', 'gpushare-extender');
    extender = await startExtenderProcess({ dir: p.dir, kubeconfig });
    await p.restartScheduler({ configPath: writeSchedulerConfig(p.dir, extender), identity: 'component' });
    await p.createNamespace(NS);
    for (const [name, value] of [
      ['gpushare-low', 100],
      ['gpushare-high', 100_000],
    ] as const) {
      const res = await p.request('POST', '/apis/scheduling.k8s.io/v1/priorityclasses', {
        apiVersion: 'scheduling.k8s.io/v1',
        kind: 'PriorityClass',
        metadata: { name },
        value,
      });
      if (res.status !== 201) throw new Error(`create PriorityClass ${name}: ${res.status} ${res.text}`);
    }
  }, 240_000);

  afterAll(async () => {
    await extender?.kill();
  });

  it(
    'refuses 3 GPUs on 2-GPU nodes as unresolvable, naming the largest node, and the scheduler evicts ' +
      'and nominates nothing',
    async () => {
      const p = plane();
      for (const name of ['gpu-b', 'gpu-a'])
        await p.createNode({
          name,
          gpuInventory: gpusOf(name, 2, 'A10', A10_MIB),
          allocatable: {
            'gpushare.io/gpu': '2',
            'gpushare.io/gpu-milli': '2000',
            'gpushare.io/gpu-memory-mib': String(2 * A10_MIB),
            'gpushare.io/gpu-slot': '32',
          },
        });
      // A lower-priority whole-GPU pod on each node: victims the scheduler could evict.
      const whole = gpuRequest({ gpuMilli: 1000, mode: 'exclusive' });
      for (const [name, node] of [
        ['low-a', 'gpu-a'],
        ['low-b', 'gpu-b'],
      ] as const)
        await create(p, NS, prioritizedPod(name, whole, 'gpushare-low', node));
      const low = await poll('both low-priority pods bound', async () => {
        const pods = (await listPods(p, NS)).filter((x) => boundAssignment(x) !== null);
        return pods.length === 2 ? pods : undefined;
      });
      expect(low.map((x) => x.spec.nodeName).sort()).toEqual(['gpu-a', 'gpu-b']);

      await create(
        p,
        NS,
        prioritizedPod('three', gpuRequest({ gpuCount: 3, gpuMilli: 1000, mode: 'exclusive' }), 'gpushare-high'),
      );
      const events = await poll('a FailedScheduling event for the 3-GPU pod', async () => {
        const messages = await failedSchedulingMessages(p, NS, 'three');
        return messages.length > 0 ? messages : undefined;
      });
      const expected =
        '0/2 nodes are available: 2 gpushare: no node could ever hold it, even empty (2 node(s)); the largest ' +
        'for it, gpu-a (2 GPU(s) A10 of up to 24576 MiB): only 2 of the 3 GPU(s) needed could hold its share ' +
        '(1000 milli-GPU in exclusive mode). preemption: 0/2 nodes are available: 2 Preemption is not helpful ' +
        'for scheduling.';
      process.stdout.write(`FailedScheduling event of the 3-GPU pod: ${events[0]}\n`);
      expect(events[0]).toBe(expected);
      const pods = await listPods(p, NS);
      const three = pods.find((x) => x.metadata.name === 'three')!;
      expect(three.spec.nodeName).toBeUndefined();
      expect(three.status?.conditions?.find((c) => c.type === 'PodScheduled')).toMatchObject({
        status: 'False',
        reason: 'Unschedulable',
        message: expected,
      });
      // Nothing evicted, nothing nominated: both victims still bound, none being deleted.
      expect((three.status as { nominatedNodeName?: string } | undefined)?.nominatedNodeName).toBeUndefined();
      expect(
        pods
          .filter((x) => x.metadata.name.startsWith('low-'))
          .map((x) => [x.metadata.name, x.spec.nodeName !== undefined, x.metadata.deletionTimestamp ?? null])
          .sort(),
      ).toEqual([
        ['low-a', true, null],
        ['low-b', true, null],
      ]);
      const preempted = await p.request<{ items: unknown[] }>(
        'GET',
        `/api/v1/namespaces/${NS}/events?fieldSelector=${encodeURIComponent('reason=Preempted')}`,
      );
      expect(preempted.body?.items).toEqual([]);
    },
  );
});
