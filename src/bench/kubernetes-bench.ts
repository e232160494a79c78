/**
 * The Kubernetes section of `npm run bench`: the extender's filter + prioritize latency per pod with
 * 500 and 5,000 nodes of 8 GPUs (extender-bench.ts), and pods bound per second through a real
 * kube-scheduler (bind-throughput-bench.ts, when the control plane is built).
 */
import { formatBindThroughput, measureBindThroughput } from './bind-throughput.js';
import { formatExtenderLatency, measureExtenderLatency, type ExtenderLatencyFigure } from './extender-bench.js';

/** Cluster sizes, pods measured, and node names per pod (null: every node). */
const SIZES = [
  { nodes: 500, pods: 500, candidates: null },
  { nodes: 5000, pods: 300, candidates: null },
  { nodes: 5000, pods: 300, candidates: 500 },
] as const;

/** Runs the section. */
export async function runKubernetesBench(
  progress: (m: string) => void,
): Promise<{ lines: string[]; results: Record<string, unknown> }> {
  const latency: ExtenderLatencyFigure[] = [];
  for (const size of SIZES)
    latency.push(await measureExtenderLatency(size.nodes, size.pods, progress, size.candidates));
  const throughput = measureBindThroughput(progress);
  return {
    lines: [
      'gpushare benchmark — Kubernetes',
      '',
      ...formatExtenderLatency(latency, '7a. Extender latency'),
      '',
      ...formatBindThroughput(throughput, '7b. Bind throughput'),
    ],
    results: { extenderLatency: latency, bindThroughput: throughput },
  };
}
