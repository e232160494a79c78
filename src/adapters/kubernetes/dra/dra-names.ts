/**
 * The names gpushare's DRA driver uses on `resource.k8s.io/v1` objects: the driver, its
 * DeviceClasses, the device types, attributes and capacities it publishes in ResourceSlices, and
 * the node label that says whether a node's GPUs are served by the device plugin or by DRA. One
 * place, so the driver, the chart, the claim templates and the docs agree
 * (docs/kubernetes/dra-driver.md has the table).
 *
 * Facts: a driver name is a DNS subdomain under a domain its vendor owns; attribute and capacity
 * names without a domain are qualified by the driver's name; in CEL they are read as
 * `device.attributes["<driver>"].<name>` and `device.capacity["<driver>"].<name>`
 * (kubernetes/api resource/v1/types.go, v0.37; ../shared docs K8S-DRA-CONTRACTS.md §1.1, §1.2).
 */

/** The driver's name: `spec.driver` of its ResourceSlices, the kubelet plugin's name. */
export const DRA_DRIVER = 'gpu.gpushare.io';

/** Values of the `type` attribute: what a published device is. */
export const DRA_DEVICE_TYPES = {
  /** A whole GPU, given to one claim (exclusive). */
  gpu: 'gpu',
  /** A GPU shared by several claims, each consuming some of its `gpuMilli` and `memory` (KEP-5075). */
  shared: 'shared',
  /** One placement of a MIG GPU instance (a GPU in MIG mode; KEP-4815 counters keep placements apart). */
  mig: 'mig',
} as const;

/** A device type. */
export type DraDeviceType = (typeof DRA_DEVICE_TYPES)[keyof typeof DRA_DEVICE_TYPES];

/** The DeviceClasses the driver's devices are requested through (one per device type). */
export const DRA_DEVICE_CLASSES = {
  /** Whole GPUs (`type == "gpu"`). */
  gpu: 'gpu.gpushare.io',
  /** Shares of a GPU (`type == "shared"`): claims name `gpuMilli` and/or `memory`. */
  shared: 'shared-gpu.gpushare.io',
  /** MIG GPU instances (`type == "mig"`); claims select a profile with `migProfile`. */
  mig: 'mig.gpushare.io',
} as const;

/** Attribute names (qualified by the driver's name). */
export const DRA_ATTRIBUTES = {
  /** string: a {@link DRA_DEVICE_TYPES} value. */
  type: 'type',
  /** string: the GPU's UUID (`GPU-…`); for a MIG placement, the parent GPU's. */
  uuid: 'uuid',
  /** int: the GPU's nvidia-smi index; for a MIG placement, the parent GPU's. */
  index: 'index',
  /** string: catalog model, e.g. `A100-80GB`. */
  model: 'model',
  /** string: MIG profile name, e.g. `3g.40gb` (MIG placements only). */
  migProfile: 'migProfile',
  /** int: first memory slice of the placement (MIG placements only). */
  migStart: 'migStart',
} as const;

/** Capacity names of a device (and counter names of a GPU's counter set). */
export const DRA_CAPACITY = {
  /** Compute share in milli-GPU: 1000 per GPU. */
  gpuMilli: 'gpuMilli',
  /** GPU memory, a quantity in `Mi` (MiB). */
  memory: 'memory',
} as const;

/**
 * Node label naming the kubelet API that serves a node's GPUs: `device-plugin` (the node agent and
 * the extender) or `dra` (the DRA driver and the stock kube-scheduler). A node is served by one,
 * never both; the chart's DaemonSets select on it.
 */
export const GPU_API_LABEL = 'gpushare.io/gpu-api';

/** Values of {@link GPU_API_LABEL}. */
export const GPU_APIS = { devicePlugin: 'device-plugin', dra: 'dra' } as const;

/** The taint key the driver puts on the devices of an unhealthy GPU (device taints, KEP-5055). */
export const DRA_UNHEALTHY_TAINT = 'gpu.gpushare.io/unhealthy';
