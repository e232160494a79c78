/**
 * Creating the comparison's pods (placement-arms.ts makes them) and reading what a placement did:
 * waiting until every pod is bound or definitely unschedulable, and the GPU shares it gave, from
 * the extender's assignments or from the claims' allocation results.
 */
import { GPU_MILLI_PER_GPU } from '../../../src/core/index.js';
import { DRA_DRIVER } from '../../../src/adapters/kubernetes/dra/dra-names.js';
import type { GpuShare, PlacementOutcome } from '../../../src/bench/dra-placement-metrics.js';
import type { PlacementPod } from '../../../src/bench/dra-placement-workload.js';
import type { ControlPlane } from './control-plane.js';
import { boundAssignment, listPods, type TestPod } from './gpu-workloads.js';

/** Pods created at once. */
export const CREATE_CONCURRENCY = 8;

/**
 * Creates the pods in arrival order, {@link CREATE_CONCURRENCY} at a time; or, `oneByOne`, each
 * after the one before is bound or marked Unschedulable (an exact order, for small cases).
 */
export async function createPods(
  plane: ControlPlane,
  namespace: string,
  pods: readonly PlacementPod[],
  make: (pod: PlacementPod) => object,
  options: { readonly oneByOne: boolean; readonly bounds: SettleBounds },
): Promise<void> {
  let next = 0;
  await Promise.all(
    Array.from({ length: options.oneByOne ? 1 : CREATE_CONCURRENCY }, async () => {
      while (next < pods.length) {
        const pod = pods[next++]!;
        const res = await plane.request('POST', `/api/v1/namespaces/${namespace}/pods`, make(pod));
        if (res.status !== 201) throw new Error(`create pod ${pod.name}: ${res.status} ${res.text}`);
        if (options.oneByOne) await waitDecided(plane, namespace, pod.name, options.bounds);
      }
    }),
  );
}

/** Waits until pod `name` is bound or marked Unschedulable. @throws Error after `bounds.timeoutMs` */
async function waitDecided(plane: ControlPlane, namespace: string, name: string, bounds: SettleBounds): Promise<void> {
  const deadline = performance.now() + bounds.timeoutMs;
  for (;;) {
    const res = await plane.request<TestPod>('GET', `/api/v1/namespaces/${namespace}/pods/${name}`);
    if (res.status === 200 && (res.body!.spec.nodeName !== undefined || unschedulable(res.body!))) return;
    if (performance.now() > deadline)
      throw new Error(`pod ${name} neither bound nor unschedulable within ${bounds.timeoutMs} ms`);
    await new Promise((r) => setTimeout(r, bounds.pollMs));
  }
}

function unschedulable(pod: TestPod): boolean {
  return (
    pod.status?.conditions?.some(
      (c) => c.type === 'PodScheduled' && c.status === 'False' && c.reason === 'Unschedulable',
    ) ?? false
  );
}

/** Bounds of {@link waitSettled}. */
export interface SettleBounds {
  /** Done when no pod was bound for this long and every unbound pod is marked Unschedulable. */
  readonly quietMs: number;
  /** Give up (throw) after this long. */
  readonly timeoutMs: number;
  /** Between two looks at the pods. */
  readonly pollMs: number;
}

/** The bounds of the measurement. */
export const DEFAULT_SETTLE: SettleBounds = { quietMs: 15_000, timeoutMs: 300_000, pollMs: 300 };

/**
 * Waits until all `count` pods of `namespace` are bound, or none was bound for `quietMs` and the
 * scheduler has marked every unbound one `PodScheduled=False, Unschedulable`.
 * @returns the pods at the end and when the last bind was seen (performance.now() ms)
 * @throws Error after `timeoutMs`, with the counts
 */
export async function waitSettled(
  plane: ControlPlane,
  namespace: string,
  count: number,
  bounds: SettleBounds = DEFAULT_SETTLE,
): Promise<{ pods: TestPod[]; lastBindMs: number }> {
  const start = performance.now();
  let lastBound = -1;
  let lastBindMs = start;
  for (;;) {
    const pods = await listPods(plane, namespace);
    const now = performance.now();
    const bound = pods.filter((p) => p.spec.nodeName !== undefined).length;
    if (bound !== lastBound) {
      lastBound = bound;
      lastBindMs = now;
    }
    const unbound = pods.filter((p) => p.spec.nodeName === undefined);
    if (pods.length === count && bound === count) return { pods, lastBindMs };
    if (pods.length === count && now - lastBindMs >= bounds.quietMs && unbound.every(unschedulable))
      return { pods, lastBindMs };
    if (now - start > bounds.timeoutMs)
      throw new Error(
        `${namespace}: ${bound} of ${count} pods bound, ${unbound.filter(unschedulable).length} unschedulable, ` +
          `not settled within ${bounds.timeoutMs} ms`,
      );
    await new Promise((r) => setTimeout(r, bounds.pollMs));
  }
}

/** The shares in the extender's assignments of the bound pods. */
export function extenderShares(pods: readonly TestPod[]): GpuShare[] {
  return pods.flatMap((pod) => {
    const assignment = boundAssignment(pod);
    if (assignment === null) return [];
    return assignment.gpus.map((g) => ({
      pod: pod.metadata.name,
      node: assignment.node,
      gpuIndex: g.index,
      gpuMilli: g.accountedGpuMilli,
    }));
  });
}

/** A ResourceClaim as read here. */
interface AllocatedClaim {
  metadata: { name: string; ownerReferences?: { kind: string; name: string }[] };
  status?: {
    allocation?: {
      devices: {
        results: { driver: string; pool: string; device: string; consumedCapacity?: Record<string, string> }[];
      };
    };
  };
}

const DEVICE_NAME = /^gpu-(\d+)(-shared)?$/;

/**
 * The shares in the allocations of the claims of `namespace`: a shared device's consumed
 * `gpuMilli`, 1000 for a whole device.
 * @throws Error for a device of another driver or name (the placement must use only gpushare's)
 */
export async function draShares(plane: ControlPlane, namespace: string): Promise<GpuShare[]> {
  const res = await plane.request<{ items: AllocatedClaim[] }>(
    'GET',
    `/apis/resource.k8s.io/v1/namespaces/${namespace}/resourceclaims`,
  );
  if (res.status !== 200) throw new Error(`list claims: ${res.status} ${res.text}`);
  return res.body!.items.flatMap((claim) => {
    const pod = claim.metadata.ownerReferences?.find((o) => o.kind === 'Pod')?.name ?? claim.metadata.name;
    return (claim.status?.allocation?.devices.results ?? []).map((r) => {
      const match = DEVICE_NAME.exec(r.device);
      if (r.driver !== DRA_DRIVER || match === null)
        throw new Error(`claim ${claim.metadata.name}: unexpected device ${r.driver}/${r.device}`);
      const shared = match[2] !== undefined;
      return {
        pod,
        node: r.pool,
        gpuIndex: Number(match[1]),
        gpuMilli: shared ? Number(r.consumedCapacity?.gpuMilli ?? '0') : GPU_MILLI_PER_GPU,
      };
    });
  });
}

/** An outcome from the pods at the end, their shares and the times. */
export function outcomeOf(
  pods: readonly TestPod[],
  shares: readonly GpuShare[],
  firstCreateMs: number,
  lastBindMs: number,
): PlacementOutcome {
  return {
    pods: pods.length,
    boundPods: pods.filter((p) => p.spec.nodeName !== undefined).length,
    seconds: (lastBindMs - firstCreateMs) / 1000,
    shares,
    unbound: pods
      .filter((p) => p.spec.nodeName === undefined)
      .map((p) => ({
        pod: p.metadata.name,
        message: p.status?.conditions?.find((c) => c.type === 'PodScheduled')?.message ?? '',
      })),
  };
}
