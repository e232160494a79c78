/**
 * The shapes of the test control plane (control-plane.ts): its options, its timings and what a
 * test can do with a running one.
 */
import type { KubeCredentials, KubeResponse } from './kube-client.js';
import type { KubectlResult } from './kubectl.js';
import type { KubeNode, NodeInput } from './nodes.js';

/**
 * Whom a component authenticates as: `admin` (group system:masters, the default), `component`
 * (a client certificate for `system:kube-scheduler` or `system:kube-controller-manager`, the users
 * the bootstrap RBAC policy binds, as kubeadm runs them) or `serviceAccount` (a token of the
 * ServiceAccount `kube-system/gpushare-test-<component>` bound to the same bootstrap ClusterRoles).
 */
export type ComponentIdentity = 'admin' | 'component' | 'serviceAccount';

/** How kube-scheduler runs. */
export interface SchedulerOptions {
  /**
   * A KubeSchedulerConfiguration file (e.g. deploy/kubernetes/scheduler-config.yaml rewritten by
   * scheduler-config.ts). Its `clientConnection.kubeconfig` is replaced by the identity's kubeconfig
   * (with --config, kube-scheduler ignores --kubeconfig). Default: no file, the built-in profile.
   */
  readonly configPath?: string;
  readonly identity?: ComponentIdentity;
}

/** What {@link startControlPlane} starts. */
export interface ControlPlaneOptions {
  /** false: no kube-scheduler. */
  readonly scheduler?: SchedulerOptions | false;
  /**
   * false: no kube-controller-manager (no Deployments, no ServiceAccounts). `controllers`: its
   * `--controllers` list (default TEST_CONTROLLERS, component-flags.ts).
   */
  readonly controllerManager?:
    { readonly identity?: ComponentIdentity; readonly controllers?: readonly string[] } | false;
  /**
   * Stand in for the kubelets at pod deletion (default true): a pod bound to a node and being
   * deleted is removed (grace period 0) within about 250 ms, as a kubelet does once its
   * containers have stopped. Without it such pods stay Terminating for ever.
   */
  readonly reapTerminatingPods?: boolean;
  /** Extra kube-apiserver flags (e.g. `--feature-gates=...`). */
  readonly apiServerArgs?: readonly string[];
  /** Bound of each component's wait (default 120 s). */
  readonly startTimeoutMs?: number;
}

/** Milliseconds each step of the start took. */
export interface ControlPlaneTimings {
  readonly certificatesMs: number;
  readonly etcdMs: number;
  readonly apiServerMs: number;
  /** Controller manager and scheduler, started together: until both are healthy. */
  readonly controllersMs: number;
  /** Until the `default` ServiceAccount exists (0 without a controller manager). */
  readonly serviceAccountMs: number;
  readonly totalMs: number;
}

/** A running control plane. */
export interface ControlPlane {
  /** Temporary folder: certificates, kubeconfigs, etcd data, `logs/<component>.log`. */
  readonly dir: string;
  /** `https://127.0.0.1:PORT`. */
  readonly serverUrl: string;
  /** The CA of every certificate, PEM (also `<dir>/pki/ca.crt`). */
  readonly caPem: string;
  readonly caPath: string;
  /** Kubeconfig of the admin (group system:masters). */
  readonly kubeconfigPath: string;
  readonly admin: KubeCredentials;
  readonly timings: ControlPlaneTimings;
  /** `https://127.0.0.1:PORT` of kube-scheduler (/healthz, /metrics, /configz); '' when none runs. */
  readonly schedulerUrl: string;
  /** The same for kube-controller-manager. */
  readonly controllerManagerUrl: string;
  /** Admin API request (see kube-client.ts): returns whatever status comes. */
  request<T = unknown>(method: string, path: string, body?: unknown, contentType?: string): Promise<KubeResponse<T>>;
  /**
   * Runs the built kubectl with the admin kubeconfig (`--kubeconfig` in `args` overrides it),
   * asynchronously (the test may serve a webhook meanwhile); `input` goes to stdin. Killed after
   * `timeoutMs` (default 60 s).
   */
  kubectl(args: readonly string[], options?: { input?: string; timeoutMs?: number }): Promise<KubectlResult>;
  /** Creates a Ready node (nodes.ts) and returns it as stored after the status update. */
  createNode(input: NodeInput): Promise<KubeNode>;
  /** Creates a namespace (unless it exists) and waits for its `default` ServiceAccount (pods need it). */
  createNamespace(name: string): Promise<void>;
  /** Creates the namespace and ServiceAccount unless they exist, and returns a token for it (TokenRequest, 1 h). */
  serviceAccountCredentials(namespace: string, name: string): Promise<KubeCredentials>;
  /** The same as a kubeconfig file (path returned), for kubectl and the gpushare components. */
  serviceAccountKubeconfig(namespace: string, name: string): Promise<string>;
  /**
   * A kubeconfig (path returned) of a client certificate `CN=<user>`, one `O=` per group, signed
   * by the control plane's CA, e.g. a kubelet's (`system:node:<name>`, group `system:nodes`).
   */
  clientCertificateKubeconfig(user: string, groups: readonly string[]): Promise<string>;
  /** A serving certificate for `names` (IP addresses or DNS names) signed by the control plane's CA. */
  servingCertificate(names: readonly string[]): Promise<{ readonly certPem: string; readonly keyPem: string }>;
  /** Stops kube-scheduler and starts it again with `options` (e.g. another configuration). */
  restartScheduler(options?: SchedulerOptions): Promise<void>;
  /** Log files by component name. */
  logPaths(): Record<string, string>;
  /** Writes the last `lines` lines of every component's log to stderr. */
  printLogs(lines?: number): void;
  /**
   * Stops every component (SIGTERM to its process group, SIGKILL after 3 s; scheduler and
   * controller manager, then kube-apiserver, then etcd), then removes `dir` unless `keepDir` (or
   * GPUSHARE_KEEP_KUBERNETES_DIR=1).
   */
  stop(options?: { keepDir?: boolean }): Promise<void>;
}
