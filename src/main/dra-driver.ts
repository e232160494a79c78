/**
 * Composition root of `gpushare dra-driver`, run on each GPU node served by DRA (a DaemonSet on
 * nodes labelled gpushare.io/gpu-api=dra): discovers the GPUs (nvidia-smi, or `--simulate-gpus`),
 * publishes them as this node's ResourceSlices of driver gpu.gpushare.io and keeps them current
 * (GPU health is polled; a change republishes with the next pool generation), opens the claim
 * checkpoint in `--state-dir`, and serves the kubelet plugin (registration and DRA gRPC) that
 * prepares claims: CDI specs in `--cdi-dir`, MIG instances through the MIG manager (the stand-in
 * nvidia-smi for simulated GPUs, its state in `<state-dir>/simulated-nvidia-smi.json`), MPS
 * daemons under `--mps-dir` (simulated daemons for simulated GPUs). Stops on SIGTERM/SIGINT.
 */
import { existsSync, mkdirSync } from 'node:fs';
import { join } from 'node:path';
import pino from 'pino';
import type { GpuInventory, InventoryGpu } from '../app/ports/gpu-inventory.js';
import type { MigManager } from '../app/ports/mig-manager.js';
import { createGpuHealthPoller } from '../adapters/gpu/gpu-health-poller.js';
import { createNvidiaSmiInventory } from '../adapters/gpu/nvidia-smi-inventory.js';
import { createNvidiaSmiMigManager } from '../adapters/gpu/nvidia-smi-mig-manager.js';
import { createSimulatedMigManager } from '../adapters/gpu/simulated-mig-manager.js';
import { createSimulatedInventory, parseSimulatedGpuSpec } from '../adapters/gpu/simulated-gpus.js';
import { createSimulatedNvidiaSmiState, writeSimulatedNvidiaSmiState } from '../adapters/gpu/simulated-nvidia-smi.js';
import { createApiClaimReader } from '../adapters/kubernetes/dra/api-claim-reader.js';
import { openClaimCheckpoint } from '../adapters/kubernetes/dra/claim-checkpoint.js';
import { createClaimPreparer } from '../adapters/kubernetes/dra/claim-preparer.js';
import { GPU_API_LABEL, GPU_APIS } from '../adapters/kubernetes/dra/dra-names.js';
import { startKubeletPlugin } from '../adapters/kubernetes/dra/kubelet-plugin.js';
import { kubeRestFrom } from '../adapters/kubernetes/extender/kube-rest.js';
import type { SliceGpu } from '../adapters/kubernetes/dra/resource-slices.js';
import { createSlicePublisher } from '../adapters/kubernetes/dra/slice-publisher.js';
import { createMpsDaemonManager } from '../adapters/mps/mps-daemon-manager.js';
import { createSimulatedMpsDaemons } from '../adapters/mps/simulated-mps-daemons.js';
import { loadKubeConfig } from './kube-config.js';

/** Resolved options of the driver (the command's flags). */
export interface DraDriverOptions {
  readonly nodeName: string;
  /** The kubelet's root directory (plugins_registry/ and plugins/ are under it). */
  readonly kubeletDir: string;
  readonly cdiDir: string;
  /** Where the checkpoint (and the simulated GPUs' MIG state) is kept. */
  readonly stateDir: string;
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

/** A running driver. */
export interface RunningDraDriver {
  /** Resolves when the driver has stopped. */
  readonly closed: Promise<void>;
  stop(): Promise<void>;
}

function sliceGpus(list: readonly InventoryGpu[]): SliceGpu[] {
  return list.map((g) => ({
    index: g.index,
    uuid: g.uuid,
    model: g.model,
    gpuMemoryMiB: g.gpuMemoryMiB,
    migEnabled: g.migEnabled,
    healthy: g.healthy,
  }));
}

function simulatedMigManager(stateDir: string, spec: string): MigManager {
  const stateFile = join(stateDir, 'simulated-nvidia-smi.json');
  mkdirSync(stateDir, { recursive: true, mode: 0o700 });
  if (!existsSync(stateFile))
    writeSimulatedNvidiaSmiState(
      stateFile,
      createSimulatedNvidiaSmiState(
        parseSimulatedGpuSpec(spec).map((i) => ({ model: i.model, mig: i.mig, count: i.count })),
      ),
    );
  return createSimulatedMigManager(stateFile);
}

/**
 * Starts the driver. Rejects when GPUs cannot be discovered, the checkpoint cannot be read
 * (CheckpointError, the file is kept) or the kubelet plugin's sockets cannot be served.
 */
export async function startDraDriver(options: DraDriverOptions): Promise<RunningDraDriver> {
  const logger = pino({ level: options.logLevel }, pino.destination(2));
  const api = kubeRestFrom(loadKubeConfig(options.kubeconfig));
  const simulated = options.simulateGpus !== null;
  const inventory: GpuInventory = simulated
    ? createSimulatedInventory(parseSimulatedGpuSpec(options.simulateGpus!))
    : createNvidiaSmiInventory();
  const discovered = await inventory.list();
  const checkpoint = await openClaimCheckpoint(options.stateDir, options.nodeName);
  const mig = simulated ? simulatedMigManager(options.stateDir, options.simulateGpus!) : createNvidiaSmiMigManager();
  const mps = simulated
    ? createSimulatedMpsDaemons({ baseDirectory: options.mpsDir })
    : createMpsDaemonManager({ baseDirectory: options.mpsDir });

  let warnedLabel = false;
  const publisher = createSlicePublisher({
    api,
    nodeName: options.nodeName,
    onPublished: (generation, slices, why) =>
      logger.info({ node: options.nodeName, generation, slices, why }, 'published the ResourceSlices'),
    onError: (error) => logger.error({ err: error }, 'publishing the ResourceSlices failed; retrying'),
    onNodeLabels: (labels) => {
      if (labels[GPU_API_LABEL] !== GPU_APIS.dra && !warnedLabel) {
        warnedLabel = true;
        logger.warn(
          {
            node: options.nodeName,
            label: GPU_API_LABEL,
            value: labels[GPU_API_LABEL] ?? null,
            expected: GPU_APIS.dra,
          },
          'the node is not labelled for DRA: if the device plugin serves it too, its GPUs are given twice',
        );
      }
    },
  });
  const preparer = createClaimPreparer({
    nodeName: options.nodeName,
    gpus: discovered.map((g) => ({ index: g.index, uuid: g.uuid, model: g.model, gpuMemoryMiB: g.gpuMemoryMiB })),
    claims: createApiClaimReader(api),
    mig,
    mps,
    cdiDir: options.cdiDir,
    checkpoint,
  });
  const plugin = await startKubeletPlugin({
    kubeletDir: options.kubeletDir,
    preparer,
    events: {
      onRegistrationStatus: (status) => {
        if (!status.plugin_registered) {
          logger.error({ error: status.error }, 'the kubelet refused the registration');
          return;
        }
        logger.info('registered with the kubelet');
        // A starting kubelet deletes the node's slices: publish them again if it did.
        publisher.recheck();
      },
      onPrepared: (claim, result, created) =>
        result.error === ''
          ? logger.info(
              { claim: `${claim.namespace}/${claim.name}`, uid: claim.uid, created, devices: result.devices },
              'claim prepared',
            )
          : logger.warn(
              { claim: `${claim.namespace}/${claim.name}`, uid: claim.uid, error: result.error },
              'claim not prepared',
            ),
      onUnprepared: (uid, error) =>
        error === '' ? logger.info({ uid }, 'claim unprepared') : logger.warn({ uid, error }, 'claim not unprepared'),
    },
    onServed: (socket) => logger.info({ socket }, 'serving'),
    onError: (error) => logger.warn(error.message),
  });
  await publisher.publish(sliceGpus(discovered), 'start');

  const poller = createGpuHealthPoller({
    inventory,
    intervalMs: options.healthIntervalSeconds * 1000,
    onChange: async (list, changes) => {
      if (!changes.some((c) => c.previous !== null)) return;
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
      await publisher.publish(sliceGpus(list), 'GPU health changed');
    },
  });

  let stopped = false;
  let resolveClosed: () => void = () => undefined;
  const closed = new Promise<void>((resolve) => (resolveClosed = resolve));
  const stop = async (): Promise<void> => {
    if (stopped) return closed;
    stopped = true;
    publisher.stop();
    await poller.stop();
    await plugin.stop();
    api.close();
    logger.info('DRA driver stopped');
    resolveClosed();
  };
  for (const signal of ['SIGTERM', 'SIGINT'] as const) process.once(signal, () => void stop());
  logger.info(
    {
      node: options.nodeName,
      gpus: discovered.length,
      source: inventory.source,
      preparedClaims: checkpoint.uids().length,
      registrationSocket: plugin.registrationSocket,
      draSocket: plugin.draSocket,
    },
    'DRA driver running',
  );
  return { closed, stop };
}
