/**
 * The node agent's device plugin for `gpushare.io/gpu-slot`, run over real gRPC on unix sockets:
 * serves `v1beta1.DevicePlugin` on `<pluginDir>/<socketName>`, then registers with the kubelet on
 * `<pluginDir>/kubelet.sock`, and keeps that true: when the kubelet restarts it deletes every socket
 * in its directory and recreates kubelet.sock (contracts §2.4), so when the plugin's socket is gone
 * or replaced it serves again, and when kubelet.sock is new it registers again. Changes are seen
 * through fs.watch on the directory, with a poll every `pollIntervalMs` as the fallback (a watch can
 * miss events, or die with its directory). Checks are serialised: one at a time.
 */
import { statSync, watch, type FSWatcher } from 'node:fs';
import { rm } from 'node:fs/promises';
import { join } from 'node:path';
import * as grpc from '@grpc/grpc-js';
import { RESOURCES } from '../schema/names.js';
import { DEFAULT_CDI_DIR } from './cdi-writer.js';
import {
  createDevicePluginService,
  GPU_SLOT_PLUGIN_OPTIONS,
  type DevicePluginService,
} from './device-plugin-service.js';
import type { GpuHealthSource } from './gpu-health.js';
import { registerWithKubelet } from './kubelet-registration.js';
import { coalescingLister, createPodResourcesLister, type PodResourcesLister } from './pod-resources-client.js';
import type { PodSource } from './pod-source.js';
import {
  DevicePluginCallError,
  prepareContainer,
  type MpsDaemons,
  type PreparedContainer,
} from './prepare-container.js';
import { loadDevicePluginApi, unixTarget } from './protos.js';
import { checkAdvertisedDevices, checkSlotsPerGpu, DEFAULT_SLOTS_PER_GPU, type SlotGpu } from './slots.js';
import {
  DEFAULT_DEVICE_PLUGIN_DIR,
  DEFAULT_POD_RESOURCES_SOCKET,
  DEVICE_PLUGIN_API_VERSION,
  KUBELET_SOCKET_NAME,
  type Device,
} from './wire-types.js';

/** Default file name of the plugin's socket in the kubelet's directory. */
export const DEFAULT_PLUGIN_SOCKET_NAME = 'gpushare-gpu-slot.sock';

/** Configuration of {@link startDevicePlugin}. */
export interface DevicePluginConfig {
  /** This node's name (assignments naming another node are refused). */
  readonly nodeName: string;
  /** The discovered GPUs (index and UUID); each gets `slotsPerGpu` slots. */
  readonly gpus: readonly SlotGpu[];
  /** Slots per GPU, 1..1000. @defaultValue 16 */
  readonly slotsPerGpu?: number;
  /** GPU health by index; changes push a ListAndWatch update. */
  readonly health: GpuHealthSource;
  /** Reads pods' annotations (their assignments). */
  readonly pods: PodSource;
  /**
   * The kubelet's PodResources API (calls are coalesced and retried, see coalescingLister). @defaultValue a lister on
   * `podResourcesSocket`
   */
  readonly podResources?: PodResourcesLister;
  /** @defaultValue /var/lib/kubelet/pod-resources/kubelet.sock */
  readonly podResourcesSocket?: string;
  /** The kubelet's device-plugins directory. @defaultValue /var/lib/kubelet/device-plugins */
  readonly pluginDir?: string;
  /** @defaultValue gpushare-gpu-slot.sock */
  readonly socketName?: string;
  /** Where CDI specs are written. @defaultValue /var/run/cdi */
  readonly cdiDir?: string;
  /** MPS daemons for `mps` pods; absent or null: `mps` pods fail PreStartContainer. */
  readonly mps?: MpsDaemons | null;
  /** Watch the directory with fs.watch (false: rely on the poll alone). @defaultValue true */
  readonly watchDirectory?: boolean;
  /** Fallback poll of the sockets, ms. @defaultValue 1000 */
  readonly pollIntervalMs?: number;
  /** Limit of one Register call, ms. @defaultValue 5000 */
  readonly registerTimeoutMs?: number;
  /** Wait after a failed Register before the next try, ms. @defaultValue 2000 */
  readonly registerRetryMs?: number;
  /** Called after each successful registration (the node agent republishes the node's resources). */
  readonly onRegistered?: (count: number) => void;
  /** Told of every finished PreStartContainer. */
  readonly onPreStart?: (slotIds: readonly string[], outcome: PreparedContainer | DevicePluginCallError) => void;
  /** Told of errors that are retried (serve or Register failures). */
  readonly onError?: (error: Error) => void;
}

/** A running device plugin. */
export interface RunningDevicePlugin {
  /** Absolute path of the plugin's socket. */
  readonly socketPath: string;
  /** The device list advertised now. */
  devices(): Device[];
  /** Successful registrations so far. */
  registrations(): number;
  /** Checks the sockets now (as a watch event would) and resolves when that check is done. */
  checkNow(): Promise<void>;
  /** Stops watching, ends the streams, stops serving and removes the socket. Idempotent. */
  stop(): Promise<void>;
}

/** Identity of a file (device, inode, change time), or null when absent. */
function identityOf(path: string): string | null {
  try {
    const s = statSync(path, { bigint: true });
    return `${s.dev}:${s.ino}:${s.ctimeNs}`;
  } catch {
    return null;
  }
}

function asError(e: unknown): Error {
  return e instanceof Error ? e : new Error(String(e));
}

const MAX_CHECKS_PER_TRIGGER = 10;

/**
 * Checks the configuration and what will be advertised (slots = GPUs × slotsPerGpu, ids unique),
 * serves the plugin socket, and starts registering (resolves once serving, without waiting for the
 * kubelet: a missing kubelet.sock is waited for).
 * @throws RangeError for a bad slotsPerGpu or poll interval; Error when the advertised devices do not
 *   match the GPUs, or the socket cannot be served
 */
export async function startDevicePlugin(config: DevicePluginConfig): Promise<RunningDevicePlugin> {
  const slotsPerGpu = config.slotsPerGpu ?? DEFAULT_SLOTS_PER_GPU;
  checkSlotsPerGpu(slotsPerGpu);
  const pollIntervalMs = config.pollIntervalMs ?? 1000;
  if (!Number.isFinite(pollIntervalMs) || pollIntervalMs < 10)
    throw new RangeError(`pollIntervalMs must be at least 10, got ${pollIntervalMs}`);
  const pluginDir = config.pluginDir ?? DEFAULT_DEVICE_PLUGIN_DIR;
  const socketName = config.socketName ?? DEFAULT_PLUGIN_SOCKET_NAME;
  const socketPath = join(pluginDir, socketName);
  const kubeletSocket = join(pluginDir, KUBELET_SOCKET_NAME);
  const registerTimeoutMs = config.registerTimeoutMs ?? 5000;
  const registerRetryMs = config.registerRetryMs ?? 2000;
  const api = loadDevicePluginApi();
  const podResources = coalescingLister(
    config.podResources ?? createPodResourcesLister(config.podResourcesSocket ?? DEFAULT_POD_RESOURCES_SOCKET),
  );
  const deps = {
    nodeName: config.nodeName,
    resourceName: RESOURCES.gpuSlot,
    podResources,
    pods: config.pods,
    cdiDir: config.cdiDir ?? DEFAULT_CDI_DIR,
    mps: config.mps ?? null,
    gpus: config.gpus,
  };

  const service: DevicePluginService = createDevicePluginService({
    gpus: config.gpus,
    slotsPerGpu,
    health: config.health,
    prepare: (ids) => prepareContainer(deps, ids),
    ...(config.onPreStart ? { onPreStart: config.onPreStart } : {}),
  });
  try {
    checkAdvertisedDevices(service.devices(), config.gpus, slotsPerGpu);
  } catch (error) {
    service.dispose();
    throw error;
  }

  let server: grpc.Server | null = null;
  let servedIdentity: string | null = null;
  let registeredWith: string | null = null;
  let registrations = 0;
  let nextRegisterAtMs = 0;
  let stopped = false;
  let watcher: FSWatcher | null = null;

  async function serve(): Promise<void> {
    if (server !== null) {
      service.closeStreams();
      server.forceShutdown();
      server = null;
    }
    await rm(socketPath, { force: true });
    const next = new grpc.Server();
    next.addService(api.DevicePlugin.service, service.implementation);
    await new Promise<void>((resolve, reject) =>
      next.bindAsync(unixTarget(socketPath), grpc.ServerCredentials.createInsecure(), (error) =>
        error ? reject(error) : resolve(),
      ),
    );
    server = next;
    servedIdentity = identityOf(socketPath);
    registeredWith = null;
  }

  async function check(): Promise<void> {
    if (stopped) return;
    const own = identityOf(socketPath);
    if (own === null || own !== servedIdentity) await serve();
    const kubelet = identityOf(kubeletSocket);
    if (kubelet === null) {
      registeredWith = null;
      return;
    }
    if (kubelet === registeredWith || Date.now() < nextRegisterAtMs || stopped) return;
    try {
      await registerWithKubelet(
        kubeletSocket,
        {
          version: DEVICE_PLUGIN_API_VERSION,
          endpoint: socketName,
          resource_name: RESOURCES.gpuSlot,
          options: GPU_SLOT_PLUGIN_OPTIONS,
        },
        registerTimeoutMs,
      );
      registeredWith = kubelet;
      registrations++;
      nextRegisterAtMs = 0;
      config.onRegistered?.(registrations);
    } catch (error) {
      nextRegisterAtMs = Date.now() + registerRetryMs;
      config.onError?.(
        new Error(`registration with the kubelet at ${kubeletSocket} failed: ${asError(error).message}`),
      );
    }
  }

  let running: Promise<void> | null = null;
  let again = false;
  function trigger(): Promise<void> {
    if (running !== null) {
      again = true;
      return running;
    }
    running = (async () => {
      for (let i = 0; i < MAX_CHECKS_PER_TRIGGER && !stopped; i++) {
        again = false;
        try {
          await check();
        } catch (error) {
          config.onError?.(new Error(`serving ${socketPath} failed: ${asError(error).message}`));
        }
        if (!again) break;
      }
    })().finally(() => {
      running = null;
    });
    return running;
  }

  function ensureWatcher(): void {
    if (watcher !== null || stopped || config.watchDirectory === false) return;
    try {
      watcher = watch(pluginDir, (_event, file) => {
        if (file === null || file === KUBELET_SOCKET_NAME || file === socketName) void trigger();
      });
      watcher.on('error', () => {
        watcher?.close();
        watcher = null;
      });
    } catch {
      watcher = null;
    }
  }

  try {
    await serve();
  } catch (error) {
    service.dispose();
    throw new Error(`cannot serve the device plugin on ${socketPath}: ${asError(error).message}`);
  }
  ensureWatcher();
  const timer = setInterval(() => {
    ensureWatcher();
    void trigger();
  }, pollIntervalMs);
  void trigger();

  return {
    socketPath,
    devices: () => service.devices(),
    registrations: () => registrations,
    checkNow: () => trigger(),
    async stop() {
      if (stopped) return;
      stopped = true;
      clearInterval(timer);
      watcher?.close();
      watcher = null;
      await running;
      service.dispose();
      server?.forceShutdown();
      server = null;
      if (servedIdentity !== null && identityOf(socketPath) === servedIdentity) await rm(socketPath, { force: true });
    },
  };
}
