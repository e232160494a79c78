/**
 * The messages of the kubelet's device plugin API (v1beta1) and PodResources API (v1) as
 * @grpc/proto-loader hands them over with `keepCase` and `defaults` (field names exactly as on the
 * wire; repeated fields always arrays, strings never undefined), plus the constants of both APIs.
 * Sources: proto/deviceplugin/v1beta1/api.proto and proto/podresources/v1/api.proto (the revisions
 * they cite); constants from k8s.io/kubelet pkg/apis/deviceplugin/v1beta1/constants.go as quoted in
 * the contracts (API version, socket names, health strings, the 30 s PreStartContainer timeout).
 */

/** The device plugin API version a plugin registers with (the kubelet supports only this one). */
export const DEVICE_PLUGIN_API_VERSION = 'v1beta1';
/** File name of the kubelet's registration socket inside the device-plugins directory. */
export const KUBELET_SOCKET_NAME = 'kubelet.sock';
/** The kubelet's device-plugins directory. */
export const DEFAULT_DEVICE_PLUGIN_DIR = '/var/lib/kubelet/device-plugins';
/** The kubelet's PodResources socket. */
export const DEFAULT_POD_RESOURCES_SOCKET = '/var/lib/kubelet/pod-resources/kubelet.sock';
/** How long the kubelet waits for PreStartContainer, ms. */
export const KUBELET_PRE_START_TIMEOUT_MS = 30_000;

/** Device health strings of ListAndWatch. */
export const DEVICE_HEALTH = { healthy: 'Healthy', unhealthy: 'Unhealthy' } as const;

/** `v1beta1.DevicePluginOptions`. */
export interface DevicePluginOptions {
  pre_start_required: boolean;
  get_preferred_allocation_available: boolean;
}

/** `v1beta1.RegisterRequest`: `endpoint` is the plugin socket's file name in the kubelet's directory. */
export interface RegisterRequest {
  version: string;
  endpoint: string;
  resource_name: string;
  options: DevicePluginOptions | null;
}

/** `v1beta1.Device`: `ID` unique and at most 63 characters. */
export interface Device {
  ID: string;
  health: string;
  topology?: { nodes: { ID: number }[] } | null;
}

/** `v1beta1.ListAndWatchResponse`: always the full device list. */
export interface ListAndWatchResponse {
  devices: Device[];
}

/** `v1beta1.ContainerAllocateRequest`. */
export interface ContainerAllocateRequest {
  devices_ids: string[];
}

/** `v1beta1.AllocateRequest`: one entry per container. */
export interface AllocateRequest {
  container_requests: ContainerAllocateRequest[];
}

/** `v1beta1.Mount`. */
export interface Mount {
  container_path: string;
  host_path: string;
  read_only: boolean;
}

/** `v1beta1.DeviceSpec`: permissions any of `r`, `w`, `m`. */
export interface DeviceSpec {
  container_path: string;
  host_path: string;
  permissions: string;
}

/** `v1beta1.CDIDevice`: a fully-qualified CDI device name, `vendor.com/class=name`. */
export interface CdiDeviceRef {
  name: string;
}

/** `v1beta1.ContainerAllocateResponse`. */
export interface ContainerAllocateResponse {
  envs: Record<string, string>;
  mounts: Mount[];
  devices: DeviceSpec[];
  annotations: Record<string, string>;
  cdi_devices: CdiDeviceRef[];
}

/** `v1beta1.AllocateResponse`: one entry per container request, in request order. */
export interface AllocateResponse {
  container_responses: ContainerAllocateResponse[];
}

/** `v1beta1.PreStartContainerRequest`: the device ids of one container. */
export interface PreStartContainerRequest {
  devices_ids: string[];
}

/** `v1beta1.ContainerPreferredAllocationRequest`. */
export interface ContainerPreferredAllocationRequest {
  available_deviceIDs: string[];
  must_include_deviceIDs: string[];
  allocation_size: number;
}

/** `v1beta1.PreferredAllocationRequest`. */
export interface PreferredAllocationRequest {
  container_requests: ContainerPreferredAllocationRequest[];
}

/** `v1beta1.PreferredAllocationResponse`. */
export interface PreferredAllocationResponse {
  container_responses: { deviceIDs: string[] }[];
}

/** `v1.ContainerDevices`: the devices of one resource a container holds. */
export interface ContainerDevices {
  resource_name: string;
  device_ids: string[];
  topology?: { nodes: { ID: number }[] } | null;
}

/** `v1.ContainerResources` (the fields gpushare reads and the stand-in kubelet fills). */
export interface ContainerResources {
  name: string;
  devices: ContainerDevices[];
  cpu_ids?: number[];
  memory?: unknown[];
  dynamic_resources?: unknown[];
}

/** `v1.PodResources`. */
export interface PodResources {
  name: string;
  namespace: string;
  containers: ContainerResources[];
}

/** `v1.ListPodResourcesResponse`. */
export interface ListPodResourcesResponse {
  pod_resources: PodResources[];
}

/** `v1.AllocatableResourcesResponse` (devices only are filled by the stand-in kubelet). */
export interface AllocatableResourcesResponse {
  devices: ContainerDevices[];
  cpu_ids: number[];
  memory: unknown[];
}
