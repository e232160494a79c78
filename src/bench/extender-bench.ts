/**
 * Extender latency (`npm run bench -- --only kubernetes`): the real extender HTTP server (Fastify on
 * 127.0.0.1, plain HTTP, node-cache-capable payloads) over a cluster view of N nodes × 8 A100-80GB,
 * half of whose GPUs already hold shares. For each of `pods` fractional pods the client sends
 * filter then prioritize with every node name, as the kube-scheduler does, and then holds the pod
 * on the best node (the in-memory part of bind). Latency per pod = the filter and the prioritize
 * round trips on the wire, each from sending its encoded body to the answer's last byte (the
 * client's own JSON encoding and decoding, the scheduler's work, is not counted). Baseline of the
 * same run: the round trip of `GET /healthz` on the same server.
 */
import http from 'node:http';
import { ClusterView } from '../adapters/kubernetes/extender/cluster-view.js';
import { createExtenderMetrics } from '../adapters/metrics/extender-metrics.js';
import { buildExtenderServer } from '../adapters/kubernetes/extender/extender-server.js';
import type { KubeRest } from '../adapters/kubernetes/extender/kube-rest.js';
import { PodBinder } from '../adapters/kubernetes/extender/pod-binder.js';
import { formatInventory } from '../adapters/kubernetes/schema/node-inventory.js';
import { NODE_ANNOTATIONS } from '../adapters/kubernetes/schema/names.js';
import { requestAnnotations } from '../adapters/kubernetes/schema/pod-request.js';
import { assignmentAnnotations } from '../adapters/kubernetes/schema/pod-assignment.js';
import { nearestRank } from '../lib/statistics.js';
import { formatTable } from '../lib/text-table.js';
import { num, times } from './format.js';

/** One cluster size's figures. */
export interface ExtenderLatencyFigure {
  readonly nodes: number;
  /** Node names sent per pod (all nodes, or the kube-scheduler's sample). */
  readonly candidates: number;
  readonly gpus: number;
  readonly pods: number;
  /** Slowest first call of a request shape (every node scored), ms. */
  readonly coldMaxMs: number;
  readonly p50Ms: number;
  readonly p99Ms: number;
  readonly healthzP50Ms: number;
  readonly healthzP99Ms: number;
  readonly targetP99Ms: number;
}

const GPUS_PER_NODE = 8;
const SHAPES = [
  { milli: 250, memory: 20_480 },
  { milli: 500, memory: 40_960 },
  { milli: 100, memory: 8_192 },
  { milli: 1000, memory: null },
] as const;
const TARGET_P99_MS = 10;

/** The p-th percentile (nearest rank) of `values`. */
function percentile(values: readonly number[], p: number): number {
  return (
    nearestRank(
      [...values].sort((a, b) => a - b),
      p,
    ) ?? Number.NaN
  );
}

/**
 * One request with a body already encoded; resolves with the answer's text and the round trip in
 * ms, from sending to the answer's last byte (the client's own JSON work is not in it).
 */
function post(
  agent: http.Agent,
  port: number,
  path: string,
  payload: string | null,
): Promise<{ text: string; ms: number }> {
  const body = payload === null ? undefined : Buffer.from(payload);
  return new Promise((resolve, reject) => {
    const t0 = process.hrtime.bigint();
    const req = http.request(
      {
        host: '127.0.0.1',
        port,
        path,
        method: body === undefined ? 'GET' : 'POST',
        agent,
        headers: body === undefined ? {} : { 'content-type': 'application/json', 'content-length': body.length },
      },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () =>
          resolve({ text: Buffer.concat(chunks).toString('utf8'), ms: Number(process.hrtime.bigint() - t0) / 1e6 }),
        );
      },
    );
    req.on('error', reject);
    req.end(body);
  });
}

/** Fills half of the cluster's GPUs with bound pods (assignments as the extender writes them). */
function seedView(nodeCount: number): { view: ClusterView; names: string[] } {
  const view = new ClusterView();
  const names = Array.from({ length: nodeCount }, (_, i) => `node-${String(i).padStart(5, '0')}`);
  for (const name of names) {
    const gpus = Array.from({ length: GPUS_PER_NODE }, (_, index) => ({
      index,
      uuid: `GPU-${name}-${index}`,
      model: 'A100-80GB',
      gpuMemoryMiB: 81_920,
      healthy: true,
      migEnabled: false,
      migInstances: [],
    }));
    view.upsertNode({ metadata: { name, annotations: { [NODE_ANNOTATIONS.gpus]: formatInventory(gpus) } } });
  }
  let uid = 0;
  names.forEach((name, n) => {
    for (let index = 0; index < GPUS_PER_NODE / 2; index++) {
      const shape = SHAPES[(n + index) % 3]! as { milli: number; memory: number };
      const gpu = { gpuCount: 1, gpuMilli: shape.milli, gpuMemoryMiB: shape.memory, mode: 'mps' as const };
      const assignment = {
        schema: 'v1' as const,
        node: name,
        mode: 'mps' as const,
        gpus: [
          {
            index,
            uuid: `GPU-${name}-${index}`,
            gpuMilli: shape.milli,
            accountedGpuMilli: shape.milli,
            gpuMemoryMiB: shape.memory,
            mig: null,
          },
        ],
      };
      view.upsertPod({
        metadata: {
          uid: `seed-${uid++}`,
          name: `seed-${uid}`,
          namespace: `team-${n % 4}`,
          annotations: { ...requestAnnotations({ gpu, container: 'main' }), ...assignmentAnnotations(assignment) },
        },
        spec: { nodeName: name },
        status: { phase: 'Running' },
      });
    }
  });
  return { view, names };
}

/** Measures one cluster size. */
export async function measureExtenderLatency(
  nodeCount: number,
  pods: number,
  progress: (m: string) => void,
  candidatesPerPod: number | null = null,
): Promise<ExtenderLatencyFigure> {
  const { view, names: allNames } = seedView(nodeCount);
  let start = 0;
  /**
   * The candidates of the next pod: every node, or a window that moves on each pod as the kube-scheduler's sample does.
   */
  const nextCandidates = (): string[] => {
    if (candidatesPerPod === null || candidatesPerPod >= allNames.length) return allNames;
    const window = Array.from({ length: candidatesPerPod }, (_, k) => allNames[(start + k) % allNames.length]!);
    start = (start + candidatesPerPod) % allNames.length;
    return window;
  };
  const unusedRest: KubeRest = {
    request: () => Promise.reject(new Error('no API server in this benchmark')),
    close: () => undefined,
  };
  const metrics = createExtenderMetrics(() => ({ gpus: view.gpuSnapshot(), active: true, synced: true }), 'bench');
  const app = buildExtenderServer({ view, binder: new PodBinder(view, unusedRest), metrics, notReady: () => null });
  await app.listen({ host: '127.0.0.1', port: 0 });
  const port = (app.server.address() as { port: number }).port;
  const agent = new http.Agent({ keepAlive: true, maxSockets: 1 });
  try {
    const latencies: number[] = [];
    const healthz: number[] = [];
    // Warm-up: the first pod of each shape scores every node once (later pods re-score only the
    // nodes that changed); that cold call is reported apart.
    const cold: number[] = [];
    // One warm-up pod per request shape and candidate window (the steady state of a cluster whose
    // nodes have all been scored for its common shapes once).
    const windows = candidatesPerPod === null ? 1 : Math.ceil(allNames.length / candidatesPerPod);
    const mod = (a: number, n: number): number => ((a % n) + n) % n;
    for (let i = -SHAPES.length * windows; i < pods; i++) {
      const shape = SHAPES[mod(i, SHAPES.length)]!;
      const gpu =
        shape.milli === 1000
          ? { gpuCount: 1, gpuMilli: 1000, gpuMemoryMiB: null, mode: 'auto' as const }
          : { gpuCount: 1, gpuMilli: shape.milli, gpuMemoryMiB: shape.memory, mode: 'mps' as const };
      const warmUp = i < 0;
      const pod = {
        metadata: {
          uid: `bench-${i}`,
          name: `bench-${i}`,
          namespace: `team-${mod(i, 4)}`,
          annotations: requestAnnotations({ gpu, container: 'main' }),
        },
        spec: {},
        status: { phase: 'Pending' },
      };
      // The watch has shown the pod before the scheduler filters it.
      if (!warmUp) view.upsertPod(pod);
      const filterBody = JSON.stringify({ Pod: pod, Nodes: null, NodeNames: nextCandidates() });
      healthz.push((await post(agent, port, '/healthz', null)).ms);
      const filtered = await post(agent, port, '/scheduler/filter', filterBody);
      const prioritizeBody = JSON.stringify({
        Pod: pod,
        Nodes: null,
        NodeNames: (JSON.parse(filtered.text) as { NodeNames: string[] }).NodeNames,
      });
      const prioritized = await post(agent, port, '/scheduler/prioritize', prioritizeBody);
      (warmUp ? cold : latencies).push(filtered.ms + prioritized.ms);
      const scores = JSON.parse(prioritized.text) as { Host: string; Score: number }[];
      const best = scores.reduce<{ Host: string; Score: number } | null>(
        (b, x) => (b === null || x.Score > b.Score ? x : b),
        null,
      );
      if (best !== null && !warmUp) {
        const reserved = view.reserve(`bench-${i}`, best.Host);
        if ('error' in reserved) throw new Error(`bench pod ${i}: ${reserved.error}`);
      }
      if ((i + 1) % 100 === 0) progress(`extender ${nodeCount} nodes: ${i + 1}/${pods} pods`);
    }
    return {
      nodes: nodeCount,
      candidates: candidatesPerPod ?? nodeCount,
      gpus: nodeCount * GPUS_PER_NODE,
      pods,
      coldMaxMs: Math.max(...cold),
      p50Ms: percentile(latencies, 50),
      p99Ms: percentile(latencies, 99),
      healthzP50Ms: percentile(healthz, 50),
      healthzP99Ms: percentile(healthz, 99),
      targetP99Ms: TARGET_P99_MS,
    };
  } finally {
    agent.destroy();
    await app.close();
  }
}

/** The report lines. */
export function formatExtenderLatency(figures: readonly ExtenderLatencyFigure[], title: string): string[] {
  return [
    `${title}: filter + prioritize round trips per pod over HTTP (node-cache-capable, all nodes as ` +
      `candidates; the client's JSON work not counted), half the GPUs already shared; baseline GET /healthz ` +
      `on the same server`,
    formatTable(
      [
        [
          'nodes',
          'candidates per pod',
          'GPUs',
          'pods',
          'first of a shape (ms)',
          'p50 (ms)',
          'p99 (ms)',
          'healthz p50 (ms)',
          'healthz p99 (ms)',
          'p99 ÷ healthz p99',
          'target p99 (ms)',
          'within target',
        ],
        ...figures.map((f) => [
          String(f.nodes),
          String(f.candidates),
          String(f.gpus),
          String(f.pods),
          num(f.coldMaxMs, 1),
          num(f.p50Ms, 2),
          num(f.p99Ms, 2),
          num(f.healthzP50Ms, 3),
          num(f.healthzP99Ms, 3),
          times(f.p99Ms / f.healthzP99Ms, 1),
          num(f.targetP99Ms, 0),
          f.p99Ms <= f.targetP99Ms ? 'yes' : 'no',
        ]),
      ],
      { right: [true, true, true, true, true, true, true, true, true, true, true, false] },
    ),
    '(first of a shape: the slowest first filter + prioritize of each of the 4 request shapes (and ' +
      'candidate window), every candidate scored; p50/p99 over the later pods, which re-score only nodes ' +
      'that changed.',
    ' candidates per pod 500 of 5,000: the window of nodes a default kube-scheduler sends, ' +
      'percentageOfNodesToScore adaptive = 10 % at 5,000 nodes, moving on each pod)',
  ];
}
