/**
 * Node objects for a control plane without kubelets: what a kubelet would register (name, host
 * labels, a Ready status with capacity and allocatable) plus what gpushare's node agent would add
 * (the `gpushare.io/gpus` inventory annotation, and the labels and gpushare resources a test
 * passes). The metadata is created first, then the status is written through the status
 * subresource (the API server ignores `status` on create), as a kubelet does.
 *
 * Facts: the TaintNodesByCondition admission plugin puts `node.kubernetes.io/not-ready:NoSchedule`
 * on every Node at creation (kubernetes plugin/pkg/admission/nodetaint, Create only) and the
 * node-lifecycle controller removes it once the node is Ready; the test control plane runs
 * without that controller, so {@link nodeSpecPatch} removes the taint itself.
 */
import { formatInventory, type InventoryGpu } from '../../../src/adapters/kubernetes/schema/node-inventory.js';
import { NODE_ANNOTATIONS } from '../../../src/adapters/kubernetes/schema/names.js';
import { KUBERNETES_VERSION } from './binaries.js';

/** A node taint. */
export interface NodeTaint {
  readonly key: string;
  readonly value?: string;
  readonly effect: 'NoSchedule' | 'PreferNoSchedule' | 'NoExecute';
}

/** What {@link ControlPlane.createNode} makes. */
export interface NodeInput {
  readonly name: string;
  /** Written as the `gpushare.io/gpus` annotation (formatInventory). */
  readonly gpuInventory?: readonly InventoryGpu[];
  /** Resource quantities, merged over {@link DEFAULT_NODE_ALLOCATABLE}; capacity is the same. */
  readonly allocatable?: Readonly<Record<string, string>>;
  /** Merged over `kubernetes.io/hostname=<name>`, `kubernetes.io/os=linux`, `kubernetes.io/arch=amd64`. */
  readonly labels?: Readonly<Record<string, string>>;
  readonly annotations?: Readonly<Record<string, string>>;
  /** Taints the node keeps (default none). */
  readonly taints?: readonly NodeTaint[];
}

/** The parts of a Node the tests read. */
export interface KubeNode {
  readonly metadata: {
    readonly name: string;
    readonly resourceVersion?: string;
    readonly labels?: Record<string, string>;
    readonly annotations?: Record<string, string>;
  };
  readonly spec?: { readonly taints?: NodeTaint[]; readonly unschedulable?: boolean };
  readonly status?: {
    readonly capacity?: Record<string, string>;
    readonly allocatable?: Record<string, string>;
    readonly conditions?: { type: string; status: string; reason?: string }[];
  };
}

/** Host resources of every test node unless a test gives its own: 64 CPUs, 512 GiB, 250 pods. */
export const DEFAULT_NODE_ALLOCATABLE: Readonly<Record<string, string>> = {
  cpu: '64',
  memory: '512Gi',
  pods: '250',
  'ephemeral-storage': '1Ti',
};

/** The Node to POST (metadata only; spec and status come after). */
export function nodeObject(input: NodeInput): object {
  const annotations: Record<string, string> = { ...input.annotations };
  if (input.gpuInventory !== undefined) annotations[NODE_ANNOTATIONS.gpus] = formatInventory(input.gpuInventory);
  return {
    apiVersion: 'v1',
    kind: 'Node',
    metadata: {
      name: input.name,
      labels: {
        'kubernetes.io/hostname': input.name,
        'kubernetes.io/os': 'linux',
        'kubernetes.io/arch': 'amd64',
        ...input.labels,
      },
      annotations,
    },
  };
}

/** Merge patch of the spec: the test's taints only (the admission plugin's not-ready taint removed). */
export function nodeSpecPatch(input: NodeInput): object {
  return { spec: { taints: input.taints === undefined || input.taints.length === 0 ? null : input.taints } };
}

/** Merge patch of the status subresource: Ready, capacity = allocatable, an address and the kubelet version. */
export function nodeStatusPatch(input: NodeInput, now: Date): object {
  const resources = { ...DEFAULT_NODE_ALLOCATABLE, ...input.allocatable };
  const time = now.toISOString().replace(/\.\d+Z$/, 'Z');
  const condition = (type: string, status: string, reason: string) => ({
    type,
    status,
    reason,
    message: 'set by the test control plane',
    lastHeartbeatTime: time,
    lastTransitionTime: time,
  });
  return {
    status: {
      capacity: resources,
      allocatable: resources,
      conditions: [
        condition('Ready', 'True', 'KubeletReady'),
        condition('MemoryPressure', 'False', 'KubeletHasSufficientMemory'),
        condition('DiskPressure', 'False', 'KubeletHasNoDiskPressure'),
        condition('PIDPressure', 'False', 'KubeletHasSufficientPID'),
      ],
      addresses: [
        { type: 'InternalIP', address: '127.0.0.1' },
        { type: 'Hostname', address: input.name },
      ],
      nodeInfo: {
        kubeletVersion: KUBERNETES_VERSION,
        operatingSystem: 'linux',
        architecture: 'amd64',
        machineID: '',
        systemUUID: '',
        bootID: '',
        kernelVersion: '',
        osImage: '',
        containerRuntimeVersion: '',
      },
    },
  };
}
