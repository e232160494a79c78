/**
 * The fields of Kubernetes Pods and Nodes (core/v1) that gpushare reads, as they arrive in JSON from
 * the API server or in the kube-scheduler's extender calls. Everything optional is optional here
 * too: code must not assume the API server filled a field in.
 */

/** metadata of any object. */
export interface KubeMeta {
  readonly name?: string;
  readonly namespace?: string;
  readonly uid?: string;
  readonly resourceVersion?: string;
  readonly creationTimestamp?: string | Date;
  readonly deletionTimestamp?: string | Date;
  readonly labels?: Readonly<Record<string, string>>;
  readonly annotations?: Readonly<Record<string, string>>;
}

/** A Pod, as far as gpushare reads it. */
export interface KubePod {
  readonly metadata?: KubeMeta;
  readonly spec?: {
    readonly nodeName?: string;
    readonly schedulerName?: string;
    readonly priority?: number;
    readonly priorityClassName?: string;
    readonly containers?: readonly {
      readonly name?: string;
      /** Quantities by resource name (`cpu: 500m`, `memory: 1Gi`). */
      readonly resources?: { readonly requests?: Readonly<Record<string, string | number>> };
    }[];
  };
  readonly status?: {
    readonly phase?: string;
    /** When the kubelet took the pod. */
    readonly startTime?: string | Date;
    readonly containerStatuses?: readonly KubeContainerStatus[];
  };
}

/** The state of one container of a pod (`status.containerStatuses[]`), as far as gpushare reads it. */
export interface KubeContainerStatus {
  readonly state?: {
    readonly running?: { readonly startedAt?: string | Date };
    readonly terminated?: { readonly startedAt?: string | Date; readonly finishedAt?: string | Date };
  };
}

/** A Node, as far as gpushare reads it. */
export interface KubeNode {
  readonly metadata?: KubeMeta;
  readonly spec?: { readonly unschedulable?: boolean };
}
