/**
 * Keeps the extender's cluster view current: lists Nodes and Pods from the API server, then
 * watches them (@kubernetes/client-node informers: list, watch from the list's resourceVersion,
 * list again after an error, deleting what vanished in between). The view counts as synced once
 * both initial lists are in, and again after a broken watch has listed anew.
 */
import { makeInformer, type KubeConfig, type KubernetesObject } from '@kubernetes/client-node';
import type { KubeNode, KubePod } from '../schema/kube-objects.js';
import type { ClusterView } from './cluster-view.js';
import { statusMessage, type KubeRest } from './kube-rest.js';

/** The running watch. */
export interface ClusterWatch {
  /** True once both lists are in and no watch is broken. */
  synced(): boolean;
  /** Stops both watches. */
  stop(): Promise<void>;
}

/** Where the watch reports what it does. */
export interface WatchLog {
  info(message: string): void;
  warn(message: string): void;
}

/** Delay before a broken watch lists again, ms. */
const RESTART_DELAY_MS = 1000;

/**
 * Starts watching; resolves after the first attempt at both lists (`synced` tells whether they worked; failed ones are
 * retried).
 * @param onPod told of every pod the watch shows after the view has it (`deleted` for a delete event); none when null
 */
export async function watchCluster(
  kubeconfig: KubeConfig,
  rest: KubeRest,
  view: ClusterView,
  log: WatchLog,
  onPod: ((pod: KubePod, deleted: boolean) => void) | null = null,
): Promise<ClusterWatch> {
  const list = (path: string) => async () => {
    const answer = await rest.request('GET', path);
    if (answer.status !== 200) throw new Error(`GET ${path}: ${statusMessage(answer)}`);
    // The informer needs the list's resourceVersion too, not only its items.
    return answer.body as { metadata?: { resourceVersion?: string }; items: KubernetesObject[] };
  };
  const nodes = makeInformer(kubeconfig, '/api/v1/nodes', list('/api/v1/nodes'));
  const pods = makeInformer(kubeconfig, '/api/v1/pods', list('/api/v1/pods'));
  const broken = new Set<string>();
  const errors = new Map<string, number>();
  let stopped = false;
  nodes.on('add', (n) => report(view.upsertNode(n as KubeNode)));
  nodes.on('update', (n) => report(view.upsertNode(n as KubeNode)));
  nodes.on('delete', (n) => view.deleteNode(n.metadata?.name ?? ''));
  const seen = (pod: KubePod, deleted: boolean): void => onPod?.(pod, deleted);
  pods.on('add', (p) => {
    view.upsertPod(p as KubePod);
    seen(p as KubePod, false);
  });
  pods.on('update', (p) => {
    view.upsertPod(p as KubePod);
    seen(p as KubePod, false);
  });
  pods.on('delete', (p) => {
    view.deletePod(p.metadata?.uid ?? '');
    seen(p as KubePod, true);
  });
  function report(error: string | null): void {
    if (error !== null) log.warn(error);
  }
  /** Starts (or restarts) one informer; it counts as working when no error came during the start. */
  async function run(name: string, informer: typeof nodes): Promise<void> {
    const before = errors.get(name) ?? 0;
    await informer.start();
    if ((errors.get(name) ?? 0) === before) broken.delete(name);
  }
  for (const [name, informer] of [
    ['nodes', nodes],
    ['pods', pods],
  ] as const) {
    broken.add(name);
    informer.on('error', (err: unknown) => {
      errors.set(name, (errors.get(name) ?? 0) + 1);
      broken.add(name);
      if (stopped) return;
      log.warn(
        `watch of ${name} broke (${(err as Error)?.message ?? String(err)}); starting again in ${RESTART_DELAY_MS} ms`,
      );
      setTimeout(() => {
        if (!stopped)
          void run(name, informer).then(
            () => !broken.has(name) && log.info(`watch of ${name} resumed`),
            () => undefined,
          );
      }, RESTART_DELAY_MS);
    });
  }
  await run('nodes', nodes);
  await run('pods', pods);
  if (broken.size === 0) log.info(`cluster view synced: ${view.nodeNames().length} gpushare nodes`);
  return {
    synced: () => broken.size === 0,
    async stop() {
      stopped = true;
      await Promise.all([nodes.stop(), pods.stop()]);
    },
  };
}
