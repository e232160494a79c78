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
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parse, stringify } from 'yaml';
import { binaryPath, type KubernetesBinary } from './binaries.js';
import {
  apiServerArgs,
  BOOTSTRAP_ROLES,
  controllerManagerArgs,
  etcdArgs,
  PKI_FILES,
  schedulerArgs,
  TEST_CONTROLLERS,
  writePki,
  type ControllerName,
} from './component-flags.js';
import { freePort } from '../../support/local-process.js';
import { logTail, spawnComponent, stopComponent, waitUntilReady, type ComponentProcess } from './component-process.js';
import type {
  ComponentIdentity,
  ControlPlane,
  ControlPlaneOptions,
  ControlPlaneTimings,
  SchedulerOptions,
} from './control-plane-types.js';
import { kubeRequest, PATCH_TYPES, writeKubeconfig, type KubeCredentials, type KubeResponse } from './kube-client.js';
import { runKubectl, type KubectlResult } from './kubectl.js';
import { nodeObject, nodeSpecPatch, nodeStatusPatch, type KubeNode, type NodeInput } from './nodes.js';
import { issueServerCert, type PemPair } from '../../../src/adapters/tls/local-ca.js';
import { createControlPlanePki, issueClientCert, type ControlPlanePki } from './pki.js';
import { startPodReaper, type PodReaper } from './pod-reaper.js';

// The shapes are in control-plane-types.ts; the two every test file needs are here too.
export type { ControlPlane, ControlPlaneOptions } from './control-plane-types.js';

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
    throw new Error(
      `the test control plane did not start (files kept in ${dir}): ` +
        `${error instanceof Error ? error.message : String(error)}`,
    );
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

  constructor(
    readonly dir: string,
    private readonly timeoutMs: number,
  ) {
    this.pkiDir = join(dir, 'pki');
    this.logDir = join(dir, 'logs');
    this.kubeconfigDir = join(dir, 'kubeconfigs');
    this.caPath = join(this.pkiDir, PKI_FILES.ca);
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
      options.controllerManager === false
        ? undefined
        : this.startControllerManager(
            options.controllerManager?.identity ?? 'admin',
            options.controllerManager?.controllers ?? TEST_CONTROLLERS,
          ),
      options.scheduler === false ? undefined : this.restartScheduler(options.scheduler),
    ]);
    const controllersMs = lap();
    if (this.controllerManagerRunning) await this.waitForDefaultServiceAccount('default');
    const serviceAccountMs = lap();
    this.timings = {
      certificatesMs,
      etcdMs,
      apiServerMs,
      controllersMs,
      serviceAccountMs,
      totalMs: Date.now() - started,
    };
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
      const component = this.spawn('etcd', etcdArgs(join(this.dir, 'etcd'), url, peerUrl));
      await waitUntilReady(
        component,
        'healthy',
        async () => {
          const res = await fetch(`${url}/health`, { signal: AbortSignal.timeout(5_000) });
          return res.ok && ((await res.json()) as { health?: string }).health === 'true';
        },
        this.timeoutMs,
      );
      return { component, url };
    });
    return url;
  }

  private async startApiServer(etcdUrl: string, extraArgs: readonly string[]): Promise<void> {
    await startWithFreshPorts(async () => {
      const port = await freePort();
      this.serverUrl = `https://127.0.0.1:${port}`;
      this.admin = { serverUrl: this.serverUrl, caPem: this.caPem, client: this.pki.admin };
      const component = this.spawn('kube-apiserver', apiServerArgs(this.pkiDir, port, etcdUrl, extraArgs));
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
      writeKubeconfig(
        path,
        { ...this.admin, client: name === 'kube-scheduler' ? this.pki.scheduler : this.pki.controllerManager },
        `system:${name}`,
      );
      return path;
    }
    const account = `gpushare-test-${name}`;
    const credentials = await this.serviceAccountCredentials('kube-system', account);
    for (const role of BOOTSTRAP_ROLES[name]) {
      await this.ensure('/apis/rbac.authorization.k8s.io/v1/clusterrolebindings', {
        apiVersion: 'rbac.authorization.k8s.io/v1',
        kind: 'ClusterRoleBinding',
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
      const component = this.spawn(
        'kube-controller-manager',
        controllerManagerArgs(this.pkiDir, port, kubeconfig, controllers, identity !== 'admin'),
      );
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
    let source: { configPath: string } | { kubeconfig: string } = { kubeconfig };
    if (options.configPath !== undefined) {
      const config = parse(readFileSync(options.configPath, 'utf8')) as Record<string, unknown>;
      config.clientConnection = { ...(config.clientConnection as object | undefined), kubeconfig };
      source = { configPath: join(this.dir, `scheduler-config-${run}.yaml`) };
      writeFileSync(source.configPath, stringify(config));
    }
    await startWithFreshPorts(async () => {
      const port = await freePort();
      const component = this.spawn('kube-scheduler', schedulerArgs(this.pkiDir, port, source));
      const credentials = { ...this.admin, serverUrl: `https://127.0.0.1:${port}` };
      await waitUntilReady(component, 'ready (/readyz)', () => healthy('/readyz', credentials), this.timeoutMs);
      this.schedulerUrl = credentials.serverUrl;
      return { component };
    });
  }

  private async waitForDefaultServiceAccount(namespace: string): Promise<void> {
    const deadline = Date.now() + this.timeoutMs;
    while ((await this.request('GET', `/api/v1/namespaces/${namespace}/serviceaccounts/default`)).status !== 200) {
      if (Date.now() > deadline)
        throw new Error(
          `no ServiceAccount ${namespace}/default within ${this.timeoutMs} ms ` +
            `(kube-controller-manager):\n${logTail(join(this.logDir, 'kube-controller-manager.log'))}`,
        );
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
    return runKubectl(
      binaryPath('kubectl'),
      args,
      { ...process.env, KUBECONFIG: this.kubeconfigPath, HOME: join(this.dir, 'home') },
      options,
    );
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
    await this.ensure(`/api/v1/namespaces/${namespace}/serviceaccounts`, {
      apiVersion: 'v1',
      kind: 'ServiceAccount',
      metadata: { name },
    });
    const res = await this.request<{ status?: { token?: string } }>(
      'POST',
      `/api/v1/namespaces/${namespace}/serviceaccounts/${name}/token`,
      {
        apiVersion: 'authentication.k8s.io/v1',
        kind: 'TokenRequest',
        spec: { expirationSeconds: 3600 },
      },
    );
    const token = res.body.status?.token;
    if (res.status !== 201 || token === undefined)
      throw new Error(`TokenRequest for ${namespace}/${name}: ${res.status} ${res.text}`);
    return { serverUrl: this.serverUrl, caPem: this.caPem, client: { token } };
  }

  async serviceAccountKubeconfig(namespace: string, name: string): Promise<string> {
    const path = join(this.kubeconfigDir, `sa-${namespace}-${name}.kubeconfig`);
    writeKubeconfig(path, await this.serviceAccountCredentials(namespace, name), `${namespace}-${name}`);
    return path;
  }

  async clientCertificateKubeconfig(user: string, groups: readonly string[]): Promise<string> {
    const client = await issueClientCert(this.pki.ca, user, groups, Date.now());
    const path = join(this.kubeconfigDir, `cert-${user.replace(/[^a-zA-Z0-9-]/g, '-')}.kubeconfig`);
    writeKubeconfig(path, { ...this.admin, client }, user);
    return path;
  }

  servingCertificate(names: readonly string[]): Promise<PemPair> {
    return issueServerCert(this.pki.ca, names, Date.now());
  }

  logPaths(): Record<string, string> {
    return Object.fromEntries([...this.components.values()].map((c) => [c.name, c.logPath]));
  }

  printLogs(lines = 60): void {
    for (const component of this.components.values()) {
      process.stderr.write(
        `----- ${component.logPath} (last ${lines} lines; ${component.exitStatus ?? 'running'}) -----\n` +
          `${logTail(component.logPath, lines)}\n`,
      );
    }
  }

  async stop(options: { keepDir?: boolean } = {}): Promise<void> {
    await this.reaper?.stop();
    // Clients first: kube-apiserver ends in about 1 s once no watch is open, 3 s or more otherwise.
    const stopAll = (names: readonly string[]) =>
      Promise.all(names.map((n) => this.components.get(n)).map((c) => c && stopComponent(c, 3_000)));
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
