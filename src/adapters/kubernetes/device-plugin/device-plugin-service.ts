/**
 * The handlers of `v1beta1.DevicePlugin` for `gpushare.io/gpu-slot` (contracts: the kubelet calls
 * GetDevicePluginOptions first, holds ListAndWatch open, calls Allocate at container creation with
 * one request per container, and PreStartContainer before each start when `pre_start_required`).
 *
 * - GetDevicePluginOptions: pre_start_required true, get_preferred_allocation_available false.
 * - ListAndWatch: the full slot list at once, then again after every health change that alters it.
 * - Allocate: per container request, one CDI device per slot (`gpushare.io/gpu=<slot>`) and nothing
 *   else: the call carries device ids, not the pod, so no GPU is chosen here.
 * - PreStartContainer: prepare-container.ts (finds the pod, writes the CDI specs).
 * - GetPreferredAllocation (never advertised): the must-include ids, then available ones, in order.
 */
import * as grpc from '@grpc/grpc-js';
import { cdiDeviceName } from './cdi-spec.js';
import type { GpuHealthSource } from './gpu-health.js';
import { DevicePluginCallError, type PreparedContainer } from './prepare-container.js';
import { slotDevices, type SlotGpu } from './slots.js';
import type {
  AllocateRequest,
  AllocateResponse,
  Device,
  DevicePluginOptions,
  ListAndWatchResponse,
  PreferredAllocationRequest,
  PreferredAllocationResponse,
  PreStartContainerRequest,
} from './wire-types.js';

/** The options the plugin advertises (also sent in Register). */
export const GPU_SLOT_PLUGIN_OPTIONS: DevicePluginOptions = {
  pre_start_required: true,
  get_preferred_allocation_available: false,
};

/** What the service needs. */
export interface DevicePluginServiceOptions {
  readonly gpus: readonly SlotGpu[];
  readonly slotsPerGpu: number;
  readonly health: GpuHealthSource;
  /** PreStartContainer's work for one container's slot ids. */
  readonly prepare: (slotIds: readonly string[]) => Promise<PreparedContainer>;
  /** Told of every finished PreStartContainer (for logs). */
  readonly onPreStart?: (slotIds: readonly string[], outcome: PreparedContainer | DevicePluginCallError) => void;
}

/** The service and its state. */
export interface DevicePluginService {
  /** Handlers to add to a grpc.Server with the DevicePlugin service definition. */
  readonly implementation: grpc.UntypedServiceImplementation;
  /** The device list as last computed. */
  devices(): Device[];
  /** How many ListAndWatch streams are open. */
  openStreams(): number;
  /** Ends every open ListAndWatch stream. */
  closeStreams(): void;
  /** Stops listening to health changes and ends the streams. */
  dispose(): void;
}

function callError(error: unknown): grpc.ServiceError {
  const e =
    error instanceof DevicePluginCallError
      ? error
      : new DevicePluginCallError(grpc.status.INTERNAL, error instanceof Error ? error.message : String(error));
  return Object.assign(new Error(e.message), { code: e.code, details: e.message, metadata: new grpc.Metadata() });
}

/** Builds the service over `options` (subscribes to health changes until `dispose`). */
export function createDevicePluginService(options: DevicePluginServiceOptions): DevicePluginService {
  const compute = (): Device[] => slotDevices(options.gpus, options.slotsPerGpu, (i) => options.health.isHealthy(i));
  let devices = compute();
  let sent = JSON.stringify(devices);
  const known = new Set(devices.map((d) => d.ID));
  const streams = new Set<grpc.ServerWritableStream<unknown, ListAndWatchResponse>>();

  const unsubscribe = options.health.subscribe(() => {
    devices = compute();
    const json = JSON.stringify(devices);
    if (json === sent) return;
    sent = json;
    for (const stream of streams) stream.write({ devices });
  });

  const implementation: grpc.UntypedServiceImplementation = {
    GetDevicePluginOptions(
      _call: grpc.ServerUnaryCall<unknown, DevicePluginOptions>,
      callback: grpc.sendUnaryData<DevicePluginOptions>,
    ) {
      callback(null, GPU_SLOT_PLUGIN_OPTIONS);
    },
    ListAndWatch(call: grpc.ServerWritableStream<unknown, ListAndWatchResponse>) {
      streams.add(call);
      const forget = (): void => void streams.delete(call);
      call.on('cancelled', forget);
      call.on('close', forget);
      call.on('error', forget);
      call.write({ devices });
    },
    Allocate(
      call: grpc.ServerUnaryCall<AllocateRequest, AllocateResponse>,
      callback: grpc.sendUnaryData<AllocateResponse>,
    ) {
      const requests = call.request.container_requests;
      for (const request of requests) {
        const unknown = request.devices_ids.find((id) => !known.has(id));
        if (unknown !== undefined) {
          callback(
            callError(
              new DevicePluginCallError(
                grpc.status.INVALID_ARGUMENT,
                `Allocate names device ${unknown}, which this plugin does not advertise`,
              ),
            ),
          );
          return;
        }
      }
      callback(null, {
        container_responses: requests.map((r) => ({
          envs: {},
          mounts: [],
          devices: [],
          annotations: {},
          cdi_devices: r.devices_ids.map((id) => ({ name: cdiDeviceName(id) })),
        })),
      });
    },
    PreStartContainer(
      call: grpc.ServerUnaryCall<PreStartContainerRequest, object>,
      callback: grpc.sendUnaryData<object>,
    ) {
      const ids = call.request.devices_ids;
      const unknown = ids.find((id) => !known.has(id));
      if (unknown !== undefined) {
        callback(
          callError(
            new DevicePluginCallError(
              grpc.status.INVALID_ARGUMENT,
              `PreStartContainer names device ${unknown}, which this plugin does not advertise`,
            ),
          ),
        );
        return;
      }
      options.prepare(ids).then(
        (prepared) => {
          options.onPreStart?.(ids, prepared);
          callback(null, {});
        },
        (error: unknown) => {
          const failure =
            error instanceof DevicePluginCallError
              ? error
              : new DevicePluginCallError(grpc.status.INTERNAL, error instanceof Error ? error.message : String(error));
          options.onPreStart?.(ids, failure);
          callback(callError(failure));
        },
      );
    },
    GetPreferredAllocation(
      call: grpc.ServerUnaryCall<PreferredAllocationRequest, PreferredAllocationResponse>,
      callback: grpc.sendUnaryData<PreferredAllocationResponse>,
    ) {
      callback(null, {
        container_responses: call.request.container_requests.map((r) => {
          const ids = [...new Set([...r.must_include_deviceIDs, ...r.available_deviceIDs])];
          return { deviceIDs: ids.slice(0, Math.max(r.allocation_size, r.must_include_deviceIDs.length)) };
        }),
      });
    },
  };

  function closeStreams(): void {
    for (const stream of [...streams]) stream.end();
    streams.clear();
  }

  return {
    implementation,
    devices: () => devices,
    openStreams: () => streams.size,
    closeStreams,
    dispose() {
      unsubscribe();
      closeStreams();
    },
  };
}
