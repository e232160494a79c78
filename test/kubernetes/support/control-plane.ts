/**
 * A real Kubernetes control plane for tests: etcd, kube-apiserver, kube-controller-manager and
 * kube-scheduler (v1.37.2, built by scripts/build-kubernetes.sh; see binaries.ts) as child
 * processes on 127.0.0.1, on free ports, with certificates made by the test (pki.ts) and every file
 * in one temporary folder. No kubelet and no container runtime: Nodes are objects the test creates
 * (nodes.ts), pods are bound and never run. docs/kubernetes/testing.md explains the flags.
 *
 * Start-up: etcd, then kube-apiserver (until /readyz), then the controller manager (until /healthz)
 * and the scheduler (until /readyz) together, then the `default` ServiceAccount of namespace
 * `default` (the controller manager's controllers are working). Each wait is bounded and fails
 * with the component's log when it exits or times out. `stop()` ends every process group.
 */
import { spawn } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parse, stringify } from 'yaml';
import { binaryPath, type KubernetesBinary } from './binaries.js';
import { freePort, logTail, spawnComponent, stopComponent, waitUntilReady, type ComponentProcess } from './component-process.js';
import { kubeRequest, PATCH_TYPES, writeKubeconfig, type KubeCredentials, type KubeResponse } from './kube-client.js';
import { nodeObject, nodeSpecPatch, nodeStatusPatch, type KubeNode, type NodeInput } from './nodes.js';
import { createControlPlanePki, type ControlPlanePki } from './pki.js';
import { startPodReaper, type PodReaper } from './pod-reaper.js';

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
   * `--controllers` list (default {@link TEST_CONTROLLERS}).
   */
  readonly controllerManager?: { readonly identity?: ComponentIdentity; readonly controllers?: readonly string[] } | false;
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

/** Result of a kubectl run. */
export interface KubectlResult {
  readonly code: number | null;
  readonly stdout: string;
  readonly stderr: string;
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

/**
 * The controllers the test controller manager runs (names of kube-controller-manager v1.37
 * `--controllers`): workloads make ReplicaSets and Pods, ServiceAccounts and their tokens and the
 * `kube-root-ca.crt` ConfigMap appear in every namespace, deletions cascade, quotas are counted.
 * Not the node-lifecycle controller: it would mark Nodes without a kubelet NotReady and evict their
 * pods. Starting these takes about 1 s where all controllers (`*`) take about 5 s.
 */
export const TEST_CONTROLLERS: readonly string[] = [
  'deployment-controller', 'replicaset-controller', 'statefulset-controller', 'daemonset-controller',
  'job-controller', 'cronjob-controller', 'ttl-after-finished-controller',
  'garbage-collector-controller', 'namespace-controller', 'pod-garbage-collector-controller',
  'serviceaccount-controller', 'serviceaccount-token-controller', 'root-ca-certificate-publisher-controller',
  'resourcequota-controller', 'taint-eviction-controller',
];

const BOOTSTRAP_ROLES = {
  'kube-scheduler': ['system:kube-scheduler', 'system:volume-scheduler'],
  'kube-controller-manager': ['system:kube-controller-manager'],
} as const;
type ControllerName = keyof typeof BOOTSTRAP_ROLES;

/** Flags that make a component serve on 127.0.0.1:`port` with the test's serving certificate. */
function servingArgs(pkiDir: string, port: number): string[] {
  return [
    '--bind-address=127.0.0.1', `--secure-port=${port}`,
    `--tls-cert-file=${join(pkiDir, 'serving.crt')}`, `--tls-private-key-file=${join(pkiDir, 'serving.key')}`,
  ];
}

/**
 * The same for the controller manager and the scheduler, whose health, metrics and configuration
 * (/configz) endpoints then need no authorization: they run without --authentication-kubeconfig and
 * --authorization-kubeconfig, so that they call the API server for nothing but their work.
 */
function componentServingArgs(pkiDir: string, port: number): string[] {
  return [...servingArgs(pkiDir, port), '--authorization-always-allow-paths=/healthz,/readyz,/livez,/metrics,/configz'];
}

function writePki(pkiDir: string, pki: ControlPlanePki): void {
  mkdirSync(pkiDir, { recursive: true, mode: 0o700 });
  const files: Record<string, string> = {
    'ca.crt': pki.ca.certPem, 'serving.crt': pki.serving.certPem, 'serving.key': pki.serving.keyPem,
    'sa.key': pki.serviceAccountKeyPem, 'sa.pub': pki.serviceAccountPublicKeyPem,
  };
  for (const [name, text] of Object.entries(files)) writeFileSync(join(pkiDir, name), text, { mode: 0o600 });
}

/** Starts a component, retrying with new ports (at most 3 tries) when a port was taken meanwhile. */
async function startWithFreshPorts<T extends { component: ComponentProcess }>(start: () => Promise<T>): Promise<T> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await start();
    } catch (error) {
      if (attempt >= 3 || !/address already in use/.test(String(error))) throw error;
    }
  }
}

async function healthy(url: string, credentials: KubeCredentials): Promise<boolean> {
  const res = await kubeRequest(credentials, 'GET', url, undefined, undefined, 5_000);
  return res.status === 200 && res.text === 'ok';
}

/**
 * Starts a control plane (see the file's comment) in a new temporary folder.
 * @throws Error naming the component and with its log's tail when one does not start; the
 *   processes started so far are stopped and the folder is kept
 */
export async function startControlPlane(options: ControlPlaneOptions = {}): Promise<ControlPlane> {
  const started = Date.now();
  const dir = mkdtempSync(join(tmpdir(), 'gpushare-kubernetes-'));
  const plane = new TestControlPlane(dir, options.startTimeoutMs ?? 120_000);
  try {
    await plane.start(options, started);
  } catch (error) {
    await plane.stop({ keepDir: true });
    throw new Error(`the test control plane did not start (files kept in ${dir}): ${error instanceof Error ? error.message : String(error)}`);
  }
  return plane;
}

class TestControlPlane implements ControlPlane {
  serverUrl = '';
  caPem = '';
  schedulerUrl = '';
  controllerManagerUrl = '';
  readonly caPath: string;
  readonly kubeconfigPath: string;
  admin!: KubeCredentials;
  timings!: ControlPlaneTimings;
  private pki!: ControlPlanePki;
  private readonly components = new Map<string, ComponentProcess>();
  private readonly pkiDir: string;
  private readonly logDir: string;
  private readonly kubeconfigDir: string;
  private schedulerRuns = 0;
  private reaper: PodReaper | undefined;
  private controllerManagerRunning = false;

  constructor(readonly dir: string, private readonly timeoutMs: number) {
    this.pkiDir = join(dir, 'pki');
    this.logDir = join(dir, 'logs');
    this.kubeconfigDir = join(dir, 'kubeconfigs');
    this.caPath = join(this.pkiDir, 'ca.crt');
    this.kubeconfigPath = join(this.kubeconfigDir, 'admin.kubeconfig');
    mkdirSync(this.logDir);
    mkdirSync(this.kubeconfigDir, { mode: 0o700 });
    mkdirSync(join(dir, 'home'));
  }

  async start(options: ControlPlaneOptions, started: number): Promise<void> {
    let mark = Date.now();
    const lap = () => {
      const now = Date.now();
      const ms = now - mark;
      mark = now;
      return ms;
    };
    this.pki = await createControlPlanePki(Date.now());
    writePki(this.pkiDir, this.pki);
    this.caPem = this.pki.ca.certPem;
    const certificatesMs = lap();
    const etcdUrl = await this.startEtcd();
    const etcdMs = lap();
    await this.startApiServer(etcdUrl, options.apiServerArgs ?? []);
    const apiServerMs = lap();
    await Promise.all([
      options.controllerManager === false ? undefined : this.startControllerManager(options.controllerManager?.identity ?? 'admin', options.controllerManager?.controllers ?? TEST_CONTROLLERS),
      options.scheduler === false ? undefined : this.restartScheduler(options.scheduler),
    ]);
    const controllersMs = lap();
    if (this.controllerManagerRunning) await this.waitForDefaultServiceAccount('default');
    const serviceAccountMs = lap();
    this.timings = { certificatesMs, etcdMs, apiServerMs, controllersMs, serviceAccountMs, totalMs: Date.now() - started };
    if (options.reapTerminatingPods !== false) this.reaper = startPodReaper(this.admin);
  }

  private spawn(name: KubernetesBinary, args: readonly string[]): ComponentProcess {
    const component = spawnComponent(name, binaryPath(name), args, join(this.logDir, `${name}.log`));
    this.components.set(name, component);
    return component;
  }

  private async startEtcd(): Promise<string> {
    const { url } = await startWithFreshPorts(async () => {
      const [client, peer] = [await freePort(), await freePort()];
      const url = `http://127.0.0.1:${client}`;
      const peerUrl = `http://127.0.0.1:${peer}`;
      const component = this.spawn('etcd', [
        '--name=gpushare-test', `--data-dir=${join(this.dir, 'etcd')}`,
        `--listen-client-urls=${url}`, `--advertise-client-urls=${url}`,
        `--listen-peer-urls=${peerUrl}`, `--initial-advertise-peer-urls=${peerUrl}`, `--initial-cluster=gpushare-test=${peerUrl}`,
        '--unsafe-no-fsync', '--log-level=warn',
      ]);
      await waitUntilReady(component, 'healthy', async () => {
        const res = await fetch(`${url}/health`, { signal: AbortSignal.timeout(5_000) });
        return res.ok && ((await res.json()) as { health?: string }).health === 'true';
      }, this.timeoutMs);
      return { component, url };
    });
    return url;
  }

  private async startApiServer(etcdUrl: string, extraArgs: readonly string[]): Promise<void> {
    await startWithFreshPorts(async () => {
      const port = await freePort();
      this.serverUrl = `https://127.0.0.1:${port}`;
      this.admin = { serverUrl: this.serverUrl, caPem: this.caPem, client: this.pki.admin };
      const component = this.spawn('kube-apiserver', [
        `--etcd-servers=${etcdUrl}`,
        '--advertise-address=127.0.0.1', ...servingArgs(this.pkiDir, port), `--cert-dir=${this.pkiDir}`,
        `--client-ca-file=${this.caPath}`,
        '--authorization-mode=Node,RBAC',
        '--enable-admission-plugins=MutatingAdmissionWebhook,ValidatingAdmissionWebhook',
        '--service-account-issuer=https://kubernetes.default.svc.cluster.local',
        `--service-account-key-file=${join(this.pkiDir, 'sa.pub')}`,
        `--service-account-signing-key-file=${join(this.pkiDir, 'sa.key')}`,
        '--service-cluster-ip-range=10.96.0.0/16',
        '--endpoint-reconciler-type=none',
        '--allow-privileged=true',
        '--profiling=false',
        '--v=1',
        ...extraArgs,
      ]);
      await waitUntilReady(component, 'ready (/readyz)', () => healthy('/readyz', this.admin), this.timeoutMs);
      return { component };
    });
    writeKubeconfig(this.kubeconfigPath, this.admin, 'gpushare-test-admin');
  }

  /** The kubeconfig `name` runs with under `identity`. */
  private async kubeconfigFor(name: ControllerName, identity: ComponentIdentity): Promise<string> {
    if (identity === 'admin') return this.kubeconfigPath;
    const path = join(this.kubeconfigDir, `${name}-${identity}.kubeconfig`);
    if (identity === 'component') {
      writeKubeconfig(path, { ...this.admin, client: name === 'kube-scheduler' ? this.pki.scheduler : this.pki.controllerManager }, `system:${name}`);
      return path;
    }
    const account = `gpushare-test-${name}`;
    const credentials = await this.serviceAccountCredentials('kube-system', account);
    for (const role of BOOTSTRAP_ROLES[name]) {
      await this.ensure('/apis/rbac.authorization.k8s.io/v1/clusterrolebindings', {
        apiVersion: 'rbac.authorization.k8s.io/v1', kind: 'ClusterRoleBinding',
        metadata: { name: `gpushare-test:${account}:${role.replace('system:', '')}` },
        roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name: role },
        subjects: [{ kind: 'ServiceAccount', name: account, namespace: 'kube-system' }],
      });
    }
    writeKubeconfig(path, credentials, account);
    return path;
  }

  private async startControllerManager(identity: ComponentIdentity, controllers: readonly string[]): Promise<void> {
    const kubeconfig = await this.kubeconfigFor('kube-controller-manager', identity);
    await startWithFreshPorts(async () => {
      const port = await freePort();
      const component = this.spawn('kube-controller-manager', [
        `--kubeconfig=${kubeconfig}`, '--leader-elect=false', ...componentServingArgs(this.pkiDir, port),
        `--controllers=${controllers.join(',')}`,
        `--service-account-private-key-file=${join(this.pkiDir, 'sa.key')}`,
        `--root-ca-file=${this.caPath}`,
        `--use-service-account-credentials=${identity !== 'admin'}`,
        '--v=1',
      ]);
      const credentials = { ...this.admin, serverUrl: `https://127.0.0.1:${port}` };
      await waitUntilReady(component, 'healthy (/healthz)', () => healthy('/healthz', credentials), this.timeoutMs);
      this.controllerManagerUrl = credentials.serverUrl;
      return { component };
    });
    this.controllerManagerRunning = true;
  }

  async restartScheduler(options: SchedulerOptions = {}): Promise<void> {
    const previous = this.components.get('kube-scheduler');
    this.schedulerUrl = '';
    if (previous !== undefined) await stopComponent(previous, 3_000);
    const run = ++this.schedulerRuns;
    const kubeconfig = await this.kubeconfigFor('kube-scheduler', options.identity ?? 'admin');
    const configArgs: string[] = [];
    if (options.configPath === undefined) {
      configArgs.push(`--kubeconfig=${kubeconfig}`);
    } else {
      const config = parse(readFileSync(options.configPath, 'utf8')) as Record<string, unknown>;
      config.clientConnection = { ...(config.clientConnection as object | undefined), kubeconfig };
      const path = join(this.dir, `scheduler-config-${run}.yaml`);
      writeFileSync(path, stringify(config));
      configArgs.push(`--config=${path}`);
    }
    await startWithFreshPorts(async () => {
      const port = await freePort();
      const component = this.spawn('kube-scheduler', [...configArgs, '--leader-elect=false', ...componentServingArgs(this.pkiDir, port), '--v=2']);
      const credentials = { ...this.admin, serverUrl: `https://127.0.0.1:${port}` };
      await waitUntilReady(component, 'ready (/readyz)', () => healthy('/readyz', credentials), this.timeoutMs);
      this.schedulerUrl = credentials.serverUrl;
      return { component };
    });
  }

  private async waitForDefaultServiceAccount(namespace: string): Promise<void> {
    const deadline = Date.now() + this.timeoutMs;
    while ((await this.request('GET', `/api/v1/namespaces/${namespace}/serviceaccounts/default`)).status !== 200) {
      if (Date.now() > deadline) throw new Error(`no ServiceAccount ${namespace}/default within ${this.timeoutMs} ms (kube-controller-manager):\n${logTail(join(this.logDir, 'kube-controller-manager.log'))}`);
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
  }

  request<T = unknown>(method: string, path: string, body?: unknown, contentType?: string): Promise<KubeResponse<T>> {
    return kubeRequest<T>(this.admin, method, path, body, contentType);
  }

  /** POSTs `object` to `collection`; an existing object (409) is fine. */
  private async ensure(collection: string, object: object): Promise<void> {
    const res = await this.request('POST', collection, object);
    if (res.status !== 201 && res.status !== 409) throw new Error(`POST ${collection}: ${res.status} ${res.text}`);
  }

  kubectl(args: readonly string[], options: { input?: string; timeoutMs?: number } = {}): Promise<KubectlResult> {
    return new Promise((resolve, reject) => {
      const child = spawn(binaryPath('kubectl'), args, {
        env: { ...process.env, KUBECONFIG: this.kubeconfigPath, HOME: join(this.dir, 'home') },
        stdio: ['pipe', 'pipe', 'pipe'],
      });
      let stdout = '';
      let stderr = '';
      child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
      child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
      const timer = setTimeout(() => child.kill('SIGKILL'), options.timeoutMs ?? 60_000);
      child.once('error', (error) => {
        clearTimeout(timer);
        reject(error);
      });
      child.once('close', (code) => {
        clearTimeout(timer);
        resolve({ code, stdout, stderr });
      });
      child.stdin.end(options.input ?? '');
    });
  }

  async createNode(input: NodeInput): Promise<KubeNode> {
    const path = `/api/v1/nodes/${input.name}`;
    const steps: [string, string, object, string?][] = [
      ['POST', '/api/v1/nodes', nodeObject(input)],
      ['PATCH', path, nodeSpecPatch(input), PATCH_TYPES.merge],
      ['PATCH', `${path}/status`, nodeStatusPatch(input, new Date()), PATCH_TYPES.merge],
    ];
    let last: KubeResponse<KubeNode> | undefined;
    for (const [method, url, body, type] of steps) {
      last = await this.request<KubeNode>(method, url, body, type);
      if (last.status !== 200 && last.status !== 201) throw new Error(`${method} ${url}: ${last.status} ${last.text}`);
    }
    return last!.body;
  }

  async createNamespace(name: string): Promise<void> {
    await this.ensure('/api/v1/namespaces', { apiVersion: 'v1', kind: 'Namespace', metadata: { name } });
    if (this.controllerManagerRunning) await this.waitForDefaultServiceAccount(name);
  }

  async serviceAccountCredentials(namespace: string, name: string): Promise<KubeCredentials> {
    await this.ensure('/api/v1/namespaces', { apiVersion: 'v1', kind: 'Namespace', metadata: { name: namespace } });
    await this.ensure(`/api/v1/namespaces/${namespace}/serviceaccounts`, { apiVersion: 'v1', kind: 'ServiceAccount', metadata: { name } });
    const res = await this.request<{ status?: { token?: string } }>('POST', `/api/v1/namespaces/${namespace}/serviceaccounts/${name}/token`, {
      apiVersion: 'authentication.k8s.io/v1', kind: 'TokenRequest', spec: { expirationSeconds: 3600 },
    });
    const token = res.body.status?.token;
    if (res.status !== 201 || token === undefined) throw new Error(`TokenRequest for ${namespace}/${name}: ${res.status} ${res.text}`);
    return { serverUrl: this.serverUrl, caPem: this.caPem, client: { token } };
  }

  async serviceAccountKubeconfig(namespace: string, name: string): Promise<string> {
    const path = join(this.kubeconfigDir, `sa-${namespace}-${name}.kubeconfig`);
    writeKubeconfig(path, await this.serviceAccountCredentials(namespace, name), `${namespace}-${name}`);
    return path;
  }

  logPaths(): Record<string, string> {
    return Object.fromEntries([...this.components.values()].map((c) => [c.name, c.logPath]));
  }

  printLogs(lines = 60): void {
    for (const component of this.components.values()) {
      process.stderr.write(`----- ${component.logPath} (last ${lines} lines; ${component.exitStatus ?? 'running'}) -----\n${logTail(component.logPath, lines)}\n`);
    }
  }

  async stop(options: { keepDir?: boolean } = {}): Promise<void> {
    await this.reaper?.stop();
    // Clients first: kube-apiserver ends in about 1 s once no watch is open, 3 s or more otherwise.
    const stopAll = (names: readonly string[]) => Promise.all(names.map((n) => this.components.get(n)).map((c) => c && stopComponent(c, 3_000)));
    await stopAll(['kube-scheduler', 'kube-controller-manager']);
    await stopAll(['kube-apiserver']);
    await stopAll(['etcd']);
    if (options.keepDir === true || process.env.GPUSHARE_KEEP_KUBERNETES_DIR === '1') {
      process.stderr.write(`test control plane files kept in ${this.dir}\n`);
      return;
    }
    rmSync(this.dir, { recursive: true, force: true, maxRetries: 5, retryDelay: 100 });
  }
}
