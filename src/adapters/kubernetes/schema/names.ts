/**
 * The names gpushare uses on Kubernetes objects: extended resources, labels and annotations, all
 * under the `gpushare.io/` prefix, version `v1` of the schema (docs/kubernetes/annotations.md has
 * the table of every key). One place, so the webhook, the extender, the node agent and the docs
 * agree.
 *
 * Facts (docs/kubernetes/annotations.md, sources): extended resources must be integers
 * (kubernetes/kubernetes pkg/apis/core/validation, "must be an integer"); a device plugin advertises
 * one device per unit (k8s.io/kubelet deviceplugin v1beta1), so resources counted in MiB or
 * milli-GPU are patched into node status instead.
 */

/** Prefix of every gpushare name. */
export const GPUSHARE_PREFIX = 'gpushare.io/';

/** Version of the annotation schema written by this release. */
export const SCHEMA_VERSION = 'v1';

/** The resource NVIDIA's device plugin serves; the webhook rewrites it. */
export const NVIDIA_GPU_RESOURCE = 'nvidia.com/gpu';

/** Integer extended resources (node capacity and pod requests). */
export const RESOURCES = {
  /** Whole GPUs a pod holds exclusively (its count for `exclusive` placements, else 0). Node: GPUs. */
  gpu: 'gpushare.io/gpu',
  /** milli-GPU a pod is counted for (count × share per GPU). Node: GPUs × 1000. */
  gpuMilli: 'gpushare.io/gpu-milli',
  /** GPU memory a pod asks for in MiB (count × MiB per GPU; 0 when it follows the GPU). Node: total MiB. */
  gpuMemoryMiB: 'gpushare.io/gpu-memory-mib',
  /**
   * The node agent's device-plugin resource: one per GPU pod. The kubelet hands a container one slot;
   * the GPUs it gets come from the pod's assignment, never from the slot's id.
   */
  gpuSlot: 'gpushare.io/gpu-slot',
} as const;

/** Node labels gpushare reads: the node agent sets all but `nodeTemplate`. */
export const NODE_LABELS = {
  /** `true` on nodes whose GPUs gpushare manages. */
  managed: 'gpushare.io/managed',
  /** Catalog model of the node's GPUs (the first GPU's when they differ), e.g. `A100-80GB`. */
  gpuModel: 'gpushare.io/gpu-model',
  /** Memory of one GPU in MiB (the largest when they differ). */
  gpuMemoryMiB: 'gpushare.io/gpu-memory-mib',
  /** Number of GPUs. */
  gpuCount: 'gpushare.io/gpu-count',
  /**
   * The autoscaler's node template the node belongs to (`gpushare autoscaler`, docs/autoscaler.md):
   * set by whoever creates the node (a Cluster API MachineDeployment's node labels, a cloud
   * instance template's kubelet `--node-labels`), never by gpushare.
   */
  nodeTemplate: 'gpushare.io/node-template',
} as const;

/** Labels on workloads and their pod templates. */
export const WORKLOAD_LABELS = {
  /**
   * The webhook's selector fix-up: on an apps/v1 workload that has neither `spec.selector` nor
   * template labels, the template label and `spec.selector.matchLabels` `gpushare.io/workload: <name>`.
   */
  workload: 'gpushare.io/workload',
} as const;

/** Node annotations the node agent sets. */
export const NODE_ANNOTATIONS = {
  /** JSON inventory of the node's GPUs (node-inventory.ts). */
  gpus: 'gpushare.io/gpus',
} as const;

/** Pod annotations: the request (webhook or user) and the assignment (extender, at bind). */
export const POD_ANNOTATIONS = {
  /** Schema version of the gpushare annotations on this pod (`v1`). */
  schema: 'gpushare.io/schema',
  /** Number of distinct GPUs. */
  gpuCount: 'gpushare.io/gpu-count',
  /** Share of each GPU in milli-GPU, 1..1000. */
  gpuMilli: 'gpushare.io/gpu-milli',
  /** GPU memory per GPU in MiB; absent = in proportion to the share of the GPU it lands on. */
  gpuMemoryMiB: 'gpushare.io/gpu-memory-mib',
  /** Sharing mode: auto, exclusive, mig, mps, timeslice. */
  mode: 'gpushare.io/mode',
  /** Isolation for `auto`: strict, standard, none. */
  isolation: 'gpushare.io/isolation',
  /** The container that gets the GPUs. */
  container: 'gpushare.io/container',
  /** The assignment, JSON (pod-assignment.ts): written by the extender before it binds. */
  assignment: 'gpushare.io/assignment',
  /** The assigned GPUs' UUIDs (MIG UUIDs for MIG), comma-separated: for people and kubectl. */
  assignedGpus: 'gpushare.io/assigned-gpus',
} as const;

/** The environment variable the webhook removes (it would let a container pick a GPU itself). */
export const VISIBLE_DEVICES_ENV = 'NVIDIA_VISIBLE_DEVICES';

/** Name of the CDI device kind the node agent serves (`gpushare.io/gpu=<id>`). */
export const CDI_KIND = 'gpushare.io/gpu';
