/**
 * Composition root of `gpushare node-agent`, run on each GPU node (a DaemonSet): discovers the GPUs
 * (nvidia-smi, with the MIG instances that exist, or `--simulate-gpus`), publishes them on the Node
 * (labels, inventory annotation, gpushare.io extended resources), serves the device plugin for
 * gpushare.io/gpu-slot to the kubelet, and keeps both current: GPU health is polled, a change is
 * pushed to ListAndWatch and republished on the Node, and every (re-)registration with the kubelet
 * republishes too (a kubelet that finds its node recreated zeroes every extended resource).
 * Stops on SIGTERM/SIGINT.
 */
import { loadKubeConfig } from './kube-config.js';
import pino from 'pino';
import type { GpuInventory, InventoryGpu } from '../app/ports/gpu-inventory.js';
import type { MigInstanceState } from '../app/ports/mig-manager.js';
import { createGpuHealthPoller } from '../adapters/gpu/gpu-health-poller.js';
import { createNvidiaSmiInventory } from '../adapters/gpu/nvidia-smi-inventory.js';
import { createNvidiaSmiMigManager } from '../adapters/gpu/nvidia-smi-mig-manager.js';
import { createSimulatedInventory, parseSimulatedGpuSpec } from '../adapters/gpu/simulated-gpus.js';
import { startDevicePlugin } from '../adapters/kubernetes/device-plugin/device-plugin.js';
import { createGpuHealthState } from '../adapters/kubernetes/device-plugin/gpu-health.js';
import { createApiPodSource } from '../adapters/kubernetes/node-agent/api-pod-source.js';
import { inventoryOfDiscovered } from '../adapters/kubernetes/node-agent/inventory-from-discovery.js';
import { createClientNodePatcher, publishNodeInventory } from '../adapters/kubernetes/node-agent/node-publisher.js';
import { createMpsDaemonManager } from '../adapters/mps/mps-daemon-manager.js';
import { createSimulatedMpsDaemons } from '../adapters/mps/simulated-mps-daemons.js';

/** Resolved options of the node agent (the command's flags). */
export interface NodeAgentOptions {
  readonly nodeName: string;
  /** The kubelet's device-plugins directory. */
  readonly kubeletDir: string;
  readonly podResourcesSocket: string;
  readonly cdiDir: string;
  readonly slotsPerGpu: number;
  /** `COUNTxMODEL[:mig],...`; null: discover with nvidia-smi. */
  readonly simulateGpus: string | null;
  /** Kubeconfig file; null: in-cluster (service account). */
  readonly kubeconfig: string | null;
  /** Base directory of the MPS daemons' pipe and log directories. */
  readonly mpsDir: string;
  /** GPU health poll interval, s. */
  readonly healthIntervalSeconds: number;
  readonly logLevel: string;
}

/** A running node agent. */
export interface RunningNodeAgent {
  /** Resolves when the agent has stopped. */
  readonly closed: Promise<void>;
  stop(): Promise<void>;
}

const REPUBLISH_RETRY_MS = 10_000;

/** Starts the node agent. Rejects when GPUs cannot be discovered or the device plugin cannot serve. */
export async function startNodeAgent(options: NodeAgentOptions): Promise<RunningNodeAgent> {
  const logger = pino({ level: options.logLevel }, pino.destination(2));
  const kubeConfig = loadKubeConfig(options.kubeconfig);

  const simulated = options.simulateGpus !== null;
  const inventory: GpuInventory = simulated
    ? createSimulatedInventory(parseSimulatedGpuSpec(options.simulateGpus!))
    : createNvidiaSmiInventory();
  const discovered = await inventory.list();
  const migInstances = new Map<number, MigInstanceState[]>();
  if (!simulated) {
    const mig = createNvidiaSmiMigManager();
    for (const gpu of discovered.filter((g) => g.migEnabled)) {
      try {
        migInstances.set(gpu.index, await mig.listInstances(gpu.index));
      } catch (error) {
        logger.warn({ gpu: gpu.index, err: error }, 'cannot list the MIG instances of a GPU: none published');
      }
    }
  }
  let latest: readonly InventoryGpu[] = discovered;
  const published = (): ReturnType<typeof inventoryOfDiscovered> => inventoryOfDiscovered(latest, migInstances);
  for (const warning of published().warnings) logger.warn(warning);

  const patcher = createClientNodePatcher(kubeConfig);
  let retry: NodeJS.Timeout | null = null;
  let stopped = false;
  const publish = async (why: string): Promise<void> => {
    if (retry !== null) clearTimeout(retry);
    retry = null;
    try {
      await publishNodeInventory(patcher, options.nodeName, published().gpus);
      logger.info({ node: options.nodeName, why }, "published the node's GPUs");
    } catch (error) {
      logger.error({ err: error }, `publishing the node's GPUs failed; retrying in ${REPUBLISH_RETRY_MS / 1000} s`);
      if (!stopped) retry = setTimeout(() => void publish('retry'), REPUBLISH_RETRY_MS);
    }
  };

  const health = createGpuHealthState(discovered.map((g) => [g.index, g.healthy] as const));
  // Simulated GPUs get simulated MPS daemons: their directories, no process (simulated-mps-daemons.ts).
  const mps = simulated
    ? createSimulatedMpsDaemons({ baseDirectory: options.mpsDir })
    : createMpsDaemonManager({ baseDirectory: options.mpsDir });
  const plugin = await startDevicePlugin({
    nodeName: options.nodeName,
    gpus: discovered,
    slotsPerGpu: options.slotsPerGpu,
    health,
    pods: createApiPodSource(kubeConfig),
    podResourcesSocket: options.podResourcesSocket,
    pluginDir: options.kubeletDir,
    cdiDir: options.cdiDir,
    mps,
    onRegistered: (count) => {
      logger.info({ registrations: count }, 'registered gpushare.io/gpu-slot with the kubelet');
      void publish('registered with the kubelet');
    },
    onPreStart: (ids, outcome) => {
      if (outcome instanceof Error) logger.warn({ slots: ids, code: outcome.code }, outcome.message);
      else
        logger.info(
          {
            slots: ids,
            pod: `${outcome.holder.namespace}/${outcome.holder.pod}`,
            container: outcome.holder.container,
            devices: outcome.deviceIds,
          },
          'container prepared',
        );
    },
    onError: (error) => logger.warn(error.message),
  });
  await publish('start');

  const poller = createGpuHealthPoller({
    inventory,
    intervalMs: options.healthIntervalSeconds * 1000,
    onChange: async (list, changes) => {
      latest = list;
      for (const gpu of list) health.set(gpu.index, gpu.healthy);
      if (changes.some((c) => c.previous !== null)) {
        logger.warn(
          {
            changes: changes.map((c) => ({
              kind: c.kind,
              gpu: c.gpu.index,
              healthy: c.gpu.healthy,
              reason: c.gpu.healthReason,
            })),
          },
          'GPU health changed',
        );
        await publish('GPU health changed');
      }
    },
  });

  let resolveClosed: () => void = () => undefined;
  const closed = new Promise<void>((resolve) => (resolveClosed = resolve));
  const stop = async (): Promise<void> => {
    if (stopped) return closed;
    stopped = true;
    if (retry !== null) clearTimeout(retry);
    await poller.stop();
    await plugin.stop();
    logger.info('node agent stopped');
    resolveClosed();
  };
  for (const signal of ['SIGTERM', 'SIGINT'] as const) process.once(signal, () => void stop());
  logger.info(
    { node: options.nodeName, gpus: discovered.length, source: inventory.source, socket: plugin.socketPath },
    'node agent running',
  );
  return { closed, stop };
}
