/**
 * Keeps this node's ResourceSlices of driver `gpu.gpushare.io` equal to
 * resourceSlicesFor(node, GPUs, generation) (resource-slices.ts): creates the missing slices,
 * replaces the others, deletes slices of the pool it no longer publishes, and bumps the pool's
 * generation on every publish (the highest generation seen in the pool + 1, so a restarted driver
 * never reuses one). Slices are owned by the Node (ownerReferences), so they go with it.
 *
 * Publishes are serialised; a failed one is retried after `retryMs`, and a resync every
 * `resyncMs` republishes when the pool in the API server is not what was published (a slice
 * deleted or changed by someone else).
 *
 * API calls (RBAC: list/create/update/delete resourceslices, get nodes):
 * GET/POST /apis/resource.k8s.io/v1/resourceslices (fieldSelector spec.driver, spec.nodeName),
 * PUT/DELETE .../resourceslices/{name}, GET /api/v1/nodes/{name}.
 * Facts: pool generation and resourceSliceCount semantics, field selectors: ../shared docs
 * K8S-DRA-CONTRACTS.md §1.1.
 */
import { DRA_DRIVER } from './dra-names.js';
import { statusMessage, type KubeRest } from '../extender/kube-rest.js';
import { resourceSlicesFor, type ResourceSlice, type SliceGpu } from './resource-slices.js';

const SLICES = '/apis/resource.k8s.io/v1/resourceslices';

/** A slice as listed: name, resourceVersion and pool generation. */
interface ListedSlice {
  readonly metadata: { readonly name: string; readonly resourceVersion?: string };
  readonly spec: { readonly pool: { readonly generation: number } };
}

/** Options of {@link createSlicePublisher}. */
export interface SlicePublisherOptions {
  readonly api: KubeRest;
  readonly nodeName: string;
  /** Wait before retrying a failed publish, ms. @defaultValue 5000 */
  readonly retryMs?: number;
  /** Interval of the check that the published pool is still there, ms. @defaultValue 60000 */
  readonly resyncMs?: number;
  /** Unit of the delays of {@link SlicePublisher.recheck}, ms. @defaultValue 1000 */
  readonly recheckMs?: number;
  /** Told of each publish that succeeded. */
  readonly onPublished?: (generation: number, slices: readonly string[], why: string) => void;
  /** Told of the Node's labels each time it is read (before each publish). */
  readonly onNodeLabels?: (labels: Readonly<Record<string, string>>) => void;
  /** Told of each failed publish (it is retried). */
  readonly onError?: (error: Error) => void;
}

/** A running publisher. */
export interface SlicePublisher {
  /** Publishes `gpus` (now, after any publish in flight); resolves when published or failed (then retried). */
  publish(gpus: readonly SliceGpu[], why: string): Promise<void>;
  /** The generation last published (0 before the first). */
  generation(): number;
  /**
   * Checks the pool in the API server now and again after 1, 2, 4, 8 and 16 s (the delays are
   * `recheckMs` times 1, 2, 4, 8, 16), republishing when it is not what was published. For the
   * kubelet's (re-)registration of the plugin: a starting kubelet deletes every ResourceSlice of
   * its node (kubelet `DRAPluginManager.wipeResourceSlices`, in the background, about when the
   * plugin registers), and without this the pool stays missing until the next resync.
   */
  recheck(): void;
  /** Stops the retries, the rechecks and the resync. */
  stop(): void;
}

/** The selector of this node's slices of the driver. */
export function sliceSelector(nodeName: string): string {
  return encodeURIComponent(`spec.driver=${DRA_DRIVER},spec.nodeName=${nodeName}`);
}

/** Creates the publisher (nothing is published until {@link SlicePublisher.publish}). */
export function createSlicePublisher(options: SlicePublisherOptions): SlicePublisher {
  const { api, nodeName } = options;
  const retryMs = options.retryMs ?? 5000;
  const resyncMs = options.resyncMs ?? 60_000;
  let generation = 0;
  let published: string[] = [];
  let latest: { gpus: readonly SliceGpu[]; why: string } | null = null;
  let retry: NodeJS.Timeout | null = null;
  let stopped = false;
  let queue: Promise<void> = Promise.resolve();
  const recheckMs = options.recheckMs ?? 1000;
  const rechecks = new Set<NodeJS.Timeout>();

  async function list(): Promise<ListedSlice[]> {
    const answer = await api.request('GET', `${SLICES}?fieldSelector=${sliceSelector(nodeName)}`);
    if (answer.status !== 200)
      throw new Error(`listing the ResourceSlices of node ${nodeName}: ${statusMessage(answer)}`);
    return (answer.body as { items?: ListedSlice[] }).items ?? [];
  }

  async function ownerOf(): Promise<object[] | undefined> {
    const answer = await api.request('GET', `/api/v1/nodes/${encodeURIComponent(nodeName)}`);
    if (answer.status === 404) return undefined;
    if (answer.status !== 200) throw new Error(`reading node ${nodeName}: ${statusMessage(answer)}`);
    const metadata = (answer.body as { metadata?: { uid?: string; labels?: Record<string, string> } }).metadata;
    options.onNodeLabels?.(metadata?.labels ?? {});
    const uid = metadata?.uid;
    return uid === undefined ? undefined : [{ apiVersion: 'v1', kind: 'Node', name: nodeName, uid, controller: true }];
  }

  async function publishOnce(gpus: readonly SliceGpu[], why: string): Promise<void> {
    const existing = await list();
    const next = Math.max(generation, ...existing.map((s) => s.spec.pool.generation)) + 1;
    const owners = await ownerOf();
    const desired: ResourceSlice[] = resourceSlicesFor(nodeName, gpus, next);
    const byName = new Map(existing.map((s) => [s.metadata.name, s]));
    for (const slice of desired) {
      const before = byName.get(slice.metadata.name);
      const metadata = {
        ...slice.metadata,
        ...(owners ? { ownerReferences: owners } : {}),
        ...(before?.metadata.resourceVersion ? { resourceVersion: before.metadata.resourceVersion } : {}),
      };
      const body = { ...slice, metadata };
      const answer =
        before === undefined
          ? await api.request('POST', SLICES, body)
          : await api.request('PUT', `${SLICES}/${encodeURIComponent(slice.metadata.name)}`, body);
      if (answer.status !== 200 && answer.status !== 201)
        throw new Error(
          `${before === undefined ? 'creating' : 'replacing'} ResourceSlice ${slice.metadata.name}: ` +
            statusMessage(answer),
        );
    }
    const wanted = new Set(desired.map((s) => s.metadata.name));
    for (const stale of existing.filter((s) => !wanted.has(s.metadata.name))) {
      const answer = await api.request('DELETE', `${SLICES}/${encodeURIComponent(stale.metadata.name)}`);
      if (answer.status !== 200 && answer.status !== 202 && answer.status !== 404)
        throw new Error(`deleting ResourceSlice ${stale.metadata.name}: ${statusMessage(answer)}`);
    }
    generation = next;
    published = desired.map((s) => s.metadata.name);
    options.onPublished?.(generation, published, why);
  }

  function run(): Promise<void> {
    queue = queue.then(async () => {
      if (stopped || latest === null) return;
      if (retry !== null) clearTimeout(retry);
      retry = null;
      const { gpus, why } = latest;
      try {
        await publishOnce(gpus, why);
      } catch (error) {
        options.onError?.(error instanceof Error ? error : new Error(String(error)));
        if (!stopped) retry = setTimeout(() => void run(), retryMs);
      }
    });
    return queue;
  }

  async function resync(why = 'the published slices changed in the API server'): Promise<void> {
    if (stopped || latest === null || generation === 0) return;
    try {
      const existing = await list();
      const same =
        existing.length === published.length &&
        existing.every((s) => published.includes(s.metadata.name) && s.spec.pool.generation === generation);
      if (!same) {
        latest = { gpus: latest.gpus, why };
        await run();
      }
    } catch (error) {
      options.onError?.(error instanceof Error ? error : new Error(String(error)));
    }
  }
  const resyncTimer = setInterval(() => void resync(), resyncMs);
  resyncTimer.unref();

  return {
    publish(gpus, why) {
      latest = { gpus, why };
      return run();
    },
    generation: () => generation,
    recheck() {
      const why = 'the published slices changed in the API server (checked after a registration)';
      void resync(why);
      for (const factor of [1, 2, 4, 8, 16]) {
        const timer = setTimeout(() => {
          rechecks.delete(timer);
          void resync(why);
        }, factor * recheckMs);
        timer.unref();
        rechecks.add(timer);
      }
    },
    stop() {
      stopped = true;
      for (const timer of rechecks) clearTimeout(timer);
      rechecks.clear();
      clearInterval(resyncTimer);
      if (retry !== null) clearTimeout(retry);
      retry = null;
    },
  };
}
