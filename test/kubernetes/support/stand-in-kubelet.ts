/**
 * A stand-in for the kubelet's side of the device plugin and PodResources protocols, over real gRPC
 * on unix sockets, for tests (no container runtime, no kubelet binary):
 *
 * - serves `v1beta1.Registration` on `<dir>/kubelet.sock`; on Register it checks the version and
 *   the resource name, dials the plugin at `<dir>/<endpoint>`, calls GetDevicePluginOptions before
 *   answering (as the kubelet's Register → connectClient does), then holds ListAndWatch open and
 *   keeps the latest device list per resource;
 * - serves `v1.PodResourcesLister` (List, GetAllocatableResources, Get) on
 *   `<dir>/pod-resources/kubelet.sock` (or `podResourcesSocket`);
 * - `admitPod` does what the kubelet's device manager does for a pod: picks free healthy devices per
 *   container, calls Allocate once per container with one ContainerAllocateRequest, records the
 *   devices (PodResources List shows them from then on), then calls PreStartContainer per container
 *   when the plugin asked for it;
 * - `restart` deletes every socket in the directory and serves kubelet.sock anew, as a kubelet
 *   restart does (pod records survive, like the kubelet's checkpoint).
 */
import { EventEmitter } from 'node:events';
import { mkdirSync, readdirSync, rmSync } from 'node:fs';
import { dirname, join } from 'node:path';
import * as grpc from '@grpc/grpc-js';
import { SeededRng, shuffleInPlace, type Rng } from '../../../src/core/index.js';
import {
  loadDevicePluginApi,
  loadPodResourcesApi,
  unixTarget,
} from '../../../src/adapters/kubernetes/device-plugin/protos.js';
import {
  DEVICE_HEALTH,
  DEVICE_PLUGIN_API_VERSION,
  KUBELET_PRE_START_TIMEOUT_MS,
  KUBELET_SOCKET_NAME,
  type AllocateResponse,
  type ContainerAllocateResponse,
  type Device,
  type DevicePluginOptions,
  type ListAndWatchResponse,
  type RegisterRequest,
} from '../../../src/adapters/kubernetes/device-plugin/wire-types.js';
import { bindUnix, callUnary as call, isExtendedResourceName, isSocket, serviceError } from './stand-in-grpc.js';
import {
  KUBELET_POD_RESOURCES_LIMIT,
  PodRecords,
  podResourcesService,
  type PodResourcesCalls,
  type StandInContainer,
  type StandInPod,
} from './stand-in-pod-records.js';

export type { StandInPod } from './stand-in-pod-records.js';

/** What happened to one container at admission. */
export interface AdmittedContainer {
  readonly name: string;
  /** The device ids picked for it (empty when it requested none). */
  readonly deviceIds: readonly string[];
  /** Allocate's response for it; null when it requested none or Allocate failed. */
  readonly allocate: ContainerAllocateResponse | null;
  readonly allocateError: grpc.ServiceError | null;
  /** PreStartContainer's error; null when it succeeded or was not called. */
  readonly preStartError: grpc.ServiceError | null;
  readonly preStartCalled: boolean;
}

/** A pod after admission. */
export interface AdmittedPod {
  readonly namespace: string;
  readonly name: string;
  readonly containers: readonly AdmittedContainer[];
}

/** A plugin registered for a resource. */
export interface RegisteredPlugin {
  readonly request: RegisterRequest;
  readonly options: DevicePluginOptions;
  /** The latest ListAndWatch list (empty until the first arrives). */
  devices: Device[];
  /** ListAndWatch updates received. */
  updates: number;
  /** False once its ListAndWatch stream ended or failed. */
  connected: boolean;
  readonly client: grpc.Client;
  stream: grpc.ClientReadableStream<ListAndWatchResponse> | null;
}

/** Options of {@link startStandInKubelet}. */
export interface StandInKubeletOptions {
  /** The device-plugins directory (created if missing). */
  readonly dir: string;
  /** @defaultValue `<dir>/pod-resources/kubelet.sock` */
  readonly podResourcesSocket?: string;
  /** Seed of the random orders. @defaultValue 1 */
  readonly seed?: number;
  /** Rate limit of the PodResources socket; null: none. @defaultValue the kubelet's, 100/s with a burst of 10 */
  readonly podResourcesLimit?: { qps: number; burst: number } | null;
}

/** Options of one admission. */
export interface AdmitOptions {
  /** Pick free devices in random order instead of list order. */
  readonly randomDevices?: boolean;
  /** Call Allocate and PreStartContainer for the containers in random order. */
  readonly randomOrder?: boolean;
}

/** A running stand-in kubelet; see the module comment. */
export class StandInKubelet {
  readonly kubeletSocket: string;
  readonly podResourcesSocket: string;
  /** Every Register request received, in order (refused ones too). */
  readonly registrations: RegisterRequest[] = [];
  /** Successful registrations (the plugin was reached and Register answered OK). */
  completedRegistrations = 0;
  /** PodResources calls served and refused by the rate limit. */
  readonly podResourcesCalls: PodResourcesCalls = { served: 0, rejected: 0 };
  private readonly plugins = new Map<string, RegisteredPlugin>();
  private readonly pods = new PodRecords();
  private readonly changes = new EventEmitter();
  private readonly rng: Rng;
  private registrationServer: grpc.Server | null = null;
  private podResourcesServer: grpc.Server | null = null;

  constructor(
    readonly dir: string,
    podResourcesSocket: string | undefined,
    seed: number,
    private readonly podResourcesLimit: { qps: number; burst: number } | null = KUBELET_POD_RESOURCES_LIMIT,
  ) {
    this.kubeletSocket = join(dir, KUBELET_SOCKET_NAME);
    this.podResourcesSocket = podResourcesSocket ?? join(dir, 'pod-resources', KUBELET_SOCKET_NAME);
    this.rng = new SeededRng(seed);
    this.changes.setMaxListeners(1000);
  }

  /** The plugin registered for `resource`, if any. */
  plugin(resource: string): RegisteredPlugin | undefined {
    return this.plugins.get(resource);
  }

  /** The latest device list of `resource` (empty when none). */
  devices(resource: string): Device[] {
    return this.plugins.get(resource)?.devices ?? [];
  }

  /**
   * Resolves with the first value `probe` returns other than undefined, re-checked on every change
   * (registration, ListAndWatch update, stream end); rejects after `timeoutMs` naming `what`.
   */
  waitFor<T>(what: string, probe: () => T | undefined, timeoutMs = 5000): Promise<T> {
    const first = probe();
    if (first !== undefined) return Promise.resolve(first);
    return new Promise((resolve, reject) => {
      const onChange = (): void => {
        const value = probe();
        if (value === undefined) return;
        cleanup();
        resolve(value);
      };
      const timer = setTimeout(() => {
        cleanup();
        reject(new Error(`${what}: not within ${timeoutMs} ms`));
      }, timeoutMs);
      const cleanup = (): void => {
        clearTimeout(timer);
        this.changes.off('change', onChange);
      };
      this.changes.on('change', onChange);
    });
  }

  /** Waits until the device list of `resource` satisfies `predicate`; resolves with that list. */
  onDevices(resource: string, predicate: (devices: Device[]) => boolean, timeoutMs = 5000): Promise<Device[]> {
    return this.waitFor(
      `device list of ${resource}`,
      () => {
        const plugin = this.plugins.get(resource);
        return plugin && plugin.connected && plugin.updates > 0 && predicate(plugin.devices)
          ? plugin.devices
          : undefined;
      },
      timeoutMs,
    );
  }

  /** Waits until `count` registrations have completed. */
  onRegistrations(count: number, timeoutMs = 5000): Promise<number> {
    return this.waitFor(
      `${count} registrations`,
      () => (this.completedRegistrations >= count ? this.completedRegistrations : undefined),
      timeoutMs,
    );
  }

  /** Serves kubelet.sock and the PodResources socket. */
  async serve(): Promise<void> {
    mkdirSync(this.dir, { recursive: true });
    mkdirSync(dirname(this.podResourcesSocket), { recursive: true });
    const deviceApi = loadDevicePluginApi();
    const podApi = loadPodResourcesApi();
    const registration = new grpc.Server();
    registration.addService(deviceApi.Registration.service, {
      Register: (c: grpc.ServerUnaryCall<RegisterRequest, object>, cb: grpc.sendUnaryData<object>) => {
        this.register(c.request).then(
          () => cb(null, {}),
          (error: grpc.ServiceError) => cb(error),
        );
      },
    });
    rmSync(this.kubeletSocket, { force: true });
    await bindUnix(registration, this.kubeletSocket);
    this.registrationServer = registration;
    const podResources = new grpc.Server();
    podResources.addService(
      podApi.PodResourcesLister.service,
      podResourcesService(
        this.pods,
        () => new Map([...this.plugins].map(([r, p]) => [r, p.devices])),
        this.podResourcesLimit,
        this.podResourcesCalls,
      ),
    );
    rmSync(this.podResourcesSocket, { force: true });
    await bindUnix(podResources, this.podResourcesSocket);
    this.podResourcesServer = podResources;
  }

  private async register(request: RegisterRequest): Promise<void> {
    this.registrations.push(request);
    if (request.version !== DEVICE_PLUGIN_API_VERSION) {
      throw serviceError(
        grpc.status.UNKNOWN,
        `requested API version "${request.version}" is not supported by kubelet. Supported versions are ` +
          `["${DEVICE_PLUGIN_API_VERSION}"]`,
      );
    }
    if (!isExtendedResourceName(request.resource_name))
      throw serviceError(grpc.status.UNKNOWN, `the ResourceName "${request.resource_name}" is invalid`);
    const client = new (loadDevicePluginApi().DevicePlugin)(
      unixTarget(join(this.dir, request.endpoint)),
      grpc.credentials.createInsecure(),
    );
    let options: DevicePluginOptions;
    try {
      options = await call<object, DevicePluginOptions>(client, 'GetDevicePluginOptions', {}, 5000);
    } catch (error) {
      client.close();
      throw serviceError(
        grpc.status.UNKNOWN,
        `failed to dial device plugin at ${request.endpoint}: ${(error as Error).message}`,
      );
    }
    this.disconnect(request.resource_name);
    const plugin: RegisteredPlugin = {
      request,
      options,
      devices: [],
      updates: 0,
      connected: true,
      client,
      stream: null,
    };
    this.plugins.set(request.resource_name, plugin);
    const stream = (
      client as unknown as { ListAndWatch(req: object): grpc.ClientReadableStream<ListAndWatchResponse> }
    ).ListAndWatch({});
    plugin.stream = stream;
    stream.on('data', (response: ListAndWatchResponse) => {
      plugin.devices = response.devices;
      plugin.updates++;
      this.changes.emit('change');
    });
    const end = (): void => {
      plugin.connected = false;
      this.changes.emit('change');
    };
    stream.on('error', end);
    stream.on('end', end);
    this.completedRegistrations++;
    this.changes.emit('change');
  }

  private disconnect(resource: string): void {
    const old = this.plugins.get(resource);
    if (!old) return;
    old.connected = false;
    old.stream?.cancel();
    old.client.close();
  }

  /** Admits one pod (see {@link admitPods}). */
  async admitPod(resource: string, pod: StandInPod, options: AdmitOptions = {}): Promise<AdmittedPod> {
    return (await this.admitPods(resource, [pod], options))[0]!;
  }

  /**
   * Admits pods as the kubelet's device manager does, for the devices of `resource`: (1) for each
   * container that requests devices, picks free healthy ids (in list order, or random); (2) calls
   * Allocate once per container, one after another (in pod order, or a random order across all the
   * pods' containers), recording the devices for PodResources when it succeeds and releasing them
   * when it fails; (3) calls PreStartContainer for every allocated container (when the plugin asked
   * for it), all at once, in pod or random order.
   * @throws Error when the resource has no connected plugin or too few free healthy devices
   */
  async admitPods(resource: string, pods: readonly StandInPod[], options: AdmitOptions = {}): Promise<AdmittedPod[]> {
    const plugin = this.plugins.get(resource);
    if (!plugin || !plugin.connected) throw new Error(`no device plugin is connected for ${resource}`);
    type Work = {
      pod: StandInPod;
      container: StandInContainer;
      ids: string[];
      allocate: ContainerAllocateResponse | null;
      allocateError: grpc.ServiceError | null;
      preStartError: grpc.ServiceError | null;
      preStartCalled: boolean;
    };
    const work: Work[] = [];
    const taken = this.pods.heldIds(resource);
    for (const pod of pods) {
      const key = `${pod.namespace}/${pod.name}`;
      this.pods.add(pod);
      for (const container of pod.containers) {
        let free = plugin.devices
          .filter((d) => d.health === DEVICE_HEALTH.healthy && !taken.has(d.ID))
          .map((d) => d.ID);
        if (free.length < container.slotCount)
          throw new Error(
            `pod ${key} container ${container.name}: requested ${container.slotCount} ${resource}, ` +
              `available ${free.length}`,
          );
        if (options.randomDevices) free = shuffleInPlace(free, this.rng);
        const ids = free.slice(0, container.slotCount);
        for (const id of ids) taken.add(id);
        work.push({
          pod,
          container,
          ids,
          allocate: null,
          allocateError: null,
          preStartError: null,
          preStartCalled: false,
        });
      }
    }
    const withDevices = work.filter((w) => w.ids.length > 0);
    const order = options.randomOrder ? shuffleInPlace([...withDevices], this.rng) : withDevices;
    for (const w of order) {
      try {
        const response = await call<object, AllocateResponse>(
          plugin.client,
          'Allocate',
          { container_requests: [{ devices_ids: w.ids }] },
          10_000,
        );
        w.allocate = response.container_responses[0] ?? null;
        this.pods.hold(w.pod, w.container.name, resource, w.ids);
      } catch (error) {
        w.allocateError = error as grpc.ServiceError;
      }
    }
    if (plugin.options.pre_start_required) {
      const starts = (options.randomOrder ? shuffleInPlace([...order], this.rng) : order).filter(
        (w) => w.allocate !== null,
      );
      await Promise.all(
        starts.map(async (w) => {
          w.preStartCalled = true;
          try {
            await call<object, object>(
              plugin.client,
              'PreStartContainer',
              { devices_ids: w.ids },
              KUBELET_PRE_START_TIMEOUT_MS,
            );
          } catch (error) {
            w.preStartError = error as grpc.ServiceError;
          }
        }),
      );
    }
    return pods.map((pod) => ({
      namespace: pod.namespace,
      name: pod.name,
      containers: work
        .filter((w) => w.pod === pod)
        .map((w) => ({
          name: w.container.name,
          deviceIds: w.ids,
          allocate: w.allocate,
          allocateError: w.allocateError,
          preStartError: w.preStartError,
          preStartCalled: w.preStartCalled,
        })),
    }));
  }

  /** Forgets a pod: its devices are free again and PodResources no longer lists it. */
  removePod(namespace: string, name: string): void {
    this.pods.remove(namespace, name);
  }

  /**
   * Restarts like a kubelet: stops serving, drops the plugin connections, deletes every socket in
   * the directory (the plugins' too), then serves kubelet.sock and the PodResources socket again.
   */
  async restart(): Promise<void> {
    await this.shutdown();
    for (const name of readdirSync(this.dir)) {
      const path = join(this.dir, name);
      if (isSocket(path)) rmSync(path, { force: true });
    }
    await this.serve();
  }

  private async shutdown(): Promise<void> {
    for (const resource of [...this.plugins.keys()]) this.disconnect(resource);
    this.plugins.clear();
    this.registrationServer?.forceShutdown();
    this.podResourcesServer?.forceShutdown();
    this.registrationServer = null;
    this.podResourcesServer = null;
    rmSync(this.kubeletSocket, { force: true });
    rmSync(this.podResourcesSocket, { force: true });
    this.changes.emit('change');
  }

  /** Stops serving and removes its sockets. */
  async stop(): Promise<void> {
    await this.shutdown();
  }
}

/** Starts a stand-in kubelet serving in `options.dir`. */
export async function startStandInKubelet(options: StandInKubeletOptions): Promise<StandInKubelet> {
  const kubelet = new StandInKubelet(
    options.dir,
    options.podResourcesSocket,
    options.seed ?? 1,
    options.podResourcesLimit === undefined ? KUBELET_POD_RESOURCES_LIMIT : options.podResourcesLimit,
  );
  await kubelet.serve();
  return kubelet;
}
