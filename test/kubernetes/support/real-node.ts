/**
 * A real Kubernetes node for tests: the kubelet (v1.37.2) and containerd (v2.4.2) that
 * scripts/build-node.sh builds, registered with a test control plane, running pods in real
 * containers (runc), with a CNI bridge for pods that are not on the host network, and the images
 * of node-images.ts imported (nothing is pulled).
 *
 * Where it lives: everything in one temporary folder. The kubelet and containerd use a few fixed
 * host paths (the device-plugin folder /var/lib/kubelet/device-plugins, the shim sockets under
 * /run/containerd, /var/lib/cni, /var/log/containers, /var/run/netns, /var/run/cdi, /run/gpushare),
 * so they run in a private mount namespace where those paths are bind mounts of the folder's
 * subfolders: a holder process makes it (`unshare --mount`), and each component enters it
 * (`nsenter --mount`), so the kubelet can be restarted into the same one. The kubelet's cgroups are
 * under `/<cgroupRoot>` of every hierarchy (node-cgroups.ts).
 *
 * `stop()` stops the kubelet, kills every container (through their cgroups), containerd, its shims
 * and the holder, removes the cgroups and the bridge, sets `net.ipv4.ip_forward` back (the CNI
 * bridge turns it on), and removes the folder; each step runs whatever the ones before did. A
 * fixed path missing on the host is made there as an empty folder (the bind mount's target) and
 * left: removing it could unmount it in another test run's namespace.
 */
import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { networkInterfaces, tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { stringify } from 'yaml';
import { WAIT_MS } from '../../../src/testing/deadlines.js';
import { freePort, processesNaming } from '../../support/local-process.js';
import { logTail, spawnComponent, stopComponent, waitUntilReady, type ComponentProcess } from './component-process.js';
import type { ControlPlane } from './control-plane.js';
import { TEST_CONTROLLERS } from './component-flags.js';
import { cniBinDir, nodeBinaryPath } from './node-binaries.js';
import { makeCgroupRoot, removeCgroupTrees } from './node-cgroups.js';
import { cniNetworkConfig, containerdConfig, kubeletConfig } from './node-config.js';
import { TEST_IMAGES } from './node-images.js';

const IP_FORWARD = '/proc/sys/net/ipv4/ip_forward';

/** Holder processes still running: killed when the test process exits, whatever happened. */
const holders = new Set<ChildProcess>();
process.on('exit', () => {
  for (const holder of holders) holder.kill('SIGKILL');
});

/** The host paths the kubelet and containerd use whatever their configuration says. */
const FIXED_PATHS = [
  '/var/lib/kubelet',
  '/run/containerd',
  '/var/lib/cni',
  '/var/log/containers',
  '/var/run/netns',
  '/var/run/cdi',
  '/run/gpushare',
] as const;

/**
 * The kube-apiserver flags a control plane needs for real nodes: logs through the node's IP,
 * webhooks through their Services' endpoints.
 */
export const REAL_NODE_API_SERVER_ARGS: readonly string[] = [
  '--kubelet-preferred-address-types=InternalIP',
  '--enable-aggregator-routing=true',
];

/**
 * The controllers a control plane with real nodes runs: the test set and the node-lifecycle
 * controller (it lifts the `node.kubernetes.io/not-ready` taint once a node is Ready) and the
 * EndpointSlice controller (the API server reaches a webhook through its Service's endpoints).
 */
export const REAL_NODE_CONTROLLERS: readonly string[] = [
  ...TEST_CONTROLLERS,
  'node-lifecycle-controller',
  'endpointslice-controller',
];

/** What a real node is started with. */
export interface RealNodeOptions {
  readonly name: string;
  /** Labels the kubelet registers the node with. */
  readonly labels?: Readonly<Record<string, string>>;
  /** Image tarballs to import before the kubelet starts (node-images.ts); the pause image among them. */
  readonly images: readonly string[];
  /** Bound of each wait (default WAIT_MS of src/testing/deadlines.ts). */
  readonly timeoutMs?: number;
}

/** A running node. */
export interface RealNode {
  readonly name: string;
  /** The node's InternalIP: this host's first IPv4 address that is not loopback. */
  readonly ip: string;
  readonly dir: string;
  /** Milliseconds from the call to the Node's Ready condition. */
  readonly readyMs: number;
  /**
   * Where one of the node's fixed paths (e.g. `/var/run/cdi`) is on this host: the folder bind
   * mounted there in the node's mount namespace.
   * @throws Error for a path that is not one of them
   */
  hostPath(path: string): string;
  /** Stops the kubelet and starts it again (same mount namespace, same state); resolves when it is healthy. */
  restartKubelet(): Promise<void>;
  /** Writes the tail of the kubelet's and containerd's logs to stderr. */
  printLogs(lines?: number): void;
  /**
   * Stops everything and removes it (see the file's comment); `keepDir` (or
   * GPUSHARE_KEEP_KUBERNETES_DIR=1) keeps the folder. Stopping twice is harmless.
   * @throws AggregateError of the steps that failed, after every step ran
   */
  stop(options?: { keepDir?: boolean }): Promise<void>;
}

/** This host's first non-loopback IPv4 address (pods on the host network and the kubelet serve on it). */
export function hostIpv4(): string {
  for (const [name, addresses] of Object.entries(networkInterfaces())) {
    if (/^(cni|gpsn|veth|docker|br-)/.test(name)) continue;
    const found = addresses?.find((a) => a.family === 'IPv4' && !a.internal);
    if (found !== undefined) return found.address;
  }
  throw new Error('a real test node needs a non-loopback IPv4 address on this host; none found');
}

/** Nodes started and not stopped yet, including one whose start has not finished. */
const liveNodes = new Set<TestNode>();

/**
 * Stops every node this process started and has not stopped, also one still starting (a test
 * hook that timed out leaves its node to this): for an afterAll.
 */
export async function stopRealNodes(): Promise<void> {
  for (const node of [...liveNodes]) await node.stop();
}

/**
 * Starts a node named `options.name` registered with `plane`; resolves once the Node is Ready.
 * @throws Error with the failing component's log tail; what was started is stopped, the folder kept
 */
export async function startRealNode(plane: ControlPlane, options: RealNodeOptions): Promise<RealNode> {
  const node = new TestNode(plane, options);
  liveNodes.add(node);
  try {
    await node.start();
  } catch (error) {
    node.printLogs();
    await node.stop({ keepDir: true });
    throw new Error(
      `the real node ${options.name} did not start (files kept in ${node.dir}): ` +
        `${error instanceof Error ? error.message : String(error)}`,
    );
  }
  return node;
}

class TestNode implements RealNode {
  readonly name: string;
  readonly ip = hostIpv4();
  readonly dir = mkdtempSync(join(tmpdir(), 'gpushare-node-'));
  readyMs = 0;
  private readonly id = randomBytes(3).toString('hex');
  private readonly bridge = `gpsn${this.id}`;
  private readonly socket = join(this.dir, 'containerd.sock');
  private readonly timeoutMs: number;
  private holder: ChildProcess | undefined;
  private containerd: ComponentProcess | undefined;
  private kubelet: ComponentProcess | undefined;
  private kubeletArgs: string[] = [];
  private kubeletHealthz = '';
  private cgroups: string[] = [];
  private ipForward: string | null = null;
  private stopped = false;

  constructor(
    private readonly plane: ControlPlane,
    private readonly options: RealNodeOptions,
  ) {
    this.name = options.name;
    this.timeoutMs = options.timeoutMs ?? WAIT_MS;
    mkdirSync(join(this.dir, 'logs'));
  }

  async start(): Promise<void> {
    const started = Date.now();
    await this.startHolder();
    await this.startContainerd();
    for (const image of this.options.images) this.ctr(['images', 'import', image]);
    await this.startKubelet();
    await this.waitForReady();
    this.readyMs = Date.now() - started;
  }

  /**
   * The private mount namespace: each fixed path a bind mount of `<dir>/mounts/<path>` (the paths
   * are the script's arguments, never part of its text).
   */
  private async startHolder(): Promise<void> {
    const pairs: string[] = [];
    for (const path of FIXED_PATHS) {
      const source = join(this.dir, 'mounts', path.replaceAll('/', '_'));
      mkdirSync(source, { recursive: true });
      mkdirSync(path, { recursive: true });
      pairs.push(source, path);
    }
    const script =
      'set -e; while [ $# -gt 0 ]; do mount --bind "$1" "$2"; shift 2; done; echo ready; exec sleep 2147483647';
    const holder = spawn(
      'unshare',
      ['--mount', '--propagation', 'private', '--', 'sh', '-c', script, 'holder', ...pairs],
      {
        stdio: ['ignore', 'pipe', 'pipe'],
      },
    );
    this.holder = holder;
    holders.add(holder);
    holder.once('exit', () => holders.delete(holder));
    let output = '';
    await new Promise<void>((resolve, reject) => {
      const timer = setTimeout(
        () => reject(new Error(`the mount namespace was not ready in ${this.timeoutMs} ms: ${output}`)),
        this.timeoutMs,
      );
      const onData = (chunk: Buffer) => {
        output += chunk.toString('utf8');
        if (output.includes('ready\n')) {
          clearTimeout(timer);
          resolve();
        }
      };
      holder.stdout.on('data', onData);
      holder.stderr.on('data', onData);
      holder.once('error', (error) => {
        clearTimeout(timer);
        reject(new Error(`unshare could not start: ${error.message}`));
      });
      holder.once('exit', (code) => {
        clearTimeout(timer);
        reject(new Error(`unshare exited (${code}): ${output}`));
      });
    });
  }

  /** Runs `binary args…` inside the node's mount namespace as a component. */
  private enter(name: string, binary: string, args: readonly string[], env?: NodeJS.ProcessEnv): ComponentProcess {
    const nsenter = ['--target', String(this.holder!.pid), '--mount', '--', binary, ...args];
    return spawnComponent(name, 'nsenter', nsenter, join(this.dir, 'logs', `${name}.log`), env);
  }

  private ctr(args: readonly string[]): string {
    return execFileSync(nodeBinaryPath('ctr'), ['--address', this.socket, '--namespace', 'k8s.io', ...args], {
      encoding: 'utf8',
      timeout: this.timeoutMs,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
  }

  private async startContainerd(): Promise<void> {
    // The CNI bridge (isGateway) turns IPv4 forwarding on; stop() sets it back.
    this.ipForward = readFileSync(IP_FORWARD, 'utf8').trim();
    const cniConfDir = join(this.dir, 'cni-conf');
    mkdirSync(cniConfDir);
    const subnet = `10.${200 + (randomBytes(1)[0]! % 50)}.${randomBytes(1)[0]!}.0/24`;
    writeFileSync(join(cniConfDir, '10-gpushare-test.conflist'), JSON.stringify(cniNetworkConfig(this.bridge, subnet)));
    const configPath = join(this.dir, 'containerd.toml');
    const binDir = dirname(nodeBinaryPath('containerd'));
    writeFileSync(
      configPath,
      containerdConfig({
        dir: this.dir,
        binDir,
        cniBinDir: cniBinDir(),
        pauseImage: TEST_IMAGES.pause,
        cdiDir: '/var/run/cdi',
        containerdSocket: this.socket,
        cniConfDir,
      }),
    );
    this.containerd = this.enter('containerd', nodeBinaryPath('containerd'), ['--config', configPath], {
      ...process.env,
      PATH: `${binDir}:${process.env.PATH ?? '/usr/bin:/bin'}`,
    });
    await waitUntilReady(
      this.containerd,
      'serving (ctr version)',
      async () => existsSync(this.socket) && this.ctr(['version']).includes('Server:'),
      this.timeoutMs,
    );
  }

  private async startKubelet(): Promise<void> {
    const pki = join(this.dir, 'kubelet-pki');
    mkdirSync(pki, { mode: 0o700 });
    const serving = await this.plane.servingCertificate([this.ip, this.name]);
    writeFileSync(join(pki, 'kubelet.crt'), serving.certPem);
    writeFileSync(join(pki, 'kubelet.key'), serving.keyPem, { mode: 0o600 });
    const kubeconfig = await this.plane.clientCertificateKubeconfig(`system:node:${this.name}`, ['system:nodes']);
    const healthzPort = await freePort();
    this.kubeletHealthz = `http://127.0.0.1:${healthzPort}/healthz`;
    this.cgroups = makeCgroupRoot(`gpushare-node-${this.id}`);
    const configPath = join(this.dir, 'kubelet.yaml');
    writeFileSync(
      configPath,
      stringify(
        kubeletConfig({
          nodeIp: this.ip,
          port: await freePort(),
          healthzPort,
          cgroupRoot: `/gpushare-node-${this.id}`,
          containerdSocket: this.socket,
          caFile: this.plane.caPath,
          tlsCertFile: join(pki, 'kubelet.crt'),
          tlsPrivateKeyFile: join(pki, 'kubelet.key'),
          podLogsDir: join(this.dir, 'pod-logs'),
        }),
      ),
    );
    const labels = Object.entries(this.options.labels ?? {}).map(([k, v]) => `${k}=${v}`);
    this.kubeletArgs = [
      `--config=${configPath}`,
      `--kubeconfig=${kubeconfig}`,
      `--hostname-override=${this.name}`,
      `--node-ip=${this.ip}`,
      `--cert-dir=${pki}`,
      ...(labels.length > 0 ? [`--node-labels=${labels.join(',')}`] : []),
      '--v=2',
    ];
    await this.runKubelet();
  }

  private async runKubelet(): Promise<void> {
    this.kubelet = this.enter('kubelet', nodeBinaryPath('kubelet'), this.kubeletArgs);
    await waitUntilReady(
      this.kubelet,
      'healthy (/healthz)',
      async () => {
        const res = await fetch(this.kubeletHealthz, { signal: AbortSignal.timeout(5_000) });
        return res.ok && (await res.text()) === 'ok';
      },
      this.timeoutMs,
    );
  }

  private async waitForReady(): Promise<void> {
    await waitUntilReady(
      this.kubelet!,
      `Ready (Node ${this.name})`,
      async () => {
        const res = await this.plane.request<{ status?: { conditions?: { type: string; status: string }[] } }>(
          'GET',
          `/api/v1/nodes/${this.name}`,
        );
        return res.body.status?.conditions?.some((c) => c.type === 'Ready' && c.status === 'True') === true;
      },
      this.timeoutMs,
    );
  }

  hostPath(path: string): string {
    if (!(FIXED_PATHS as readonly string[]).includes(path))
      throw new Error(`${path} is not a fixed path of the node; one of ${FIXED_PATHS.join(', ')}`);
    return join(this.dir, 'mounts', path.replaceAll('/', '_'));
  }

  async restartKubelet(): Promise<void> {
    if (this.kubelet !== undefined) await stopComponent(this.kubelet, 5_000);
    await this.runKubelet();
  }

  printLogs(lines = 60): void {
    for (const name of ['containerd', 'kubelet']) {
      const path = join(this.dir, 'logs', `${name}.log`);
      process.stderr.write(`----- ${path} (last ${lines} lines) -----\n${logTail(path, lines)}\n`);
    }
  }

  async stop(options: { keepDir?: boolean } = {}): Promise<void> {
    if (this.stopped) return;
    this.stopped = true;
    liveNodes.delete(this);
    const errors: unknown[] = [];
    const step = async (run: () => unknown): Promise<void> => {
      try {
        await run();
      } catch (error) {
        errors.push(error);
      }
    };
    await step(() => this.kubelet && stopComponent(this.kubelet, 5_000));
    await step(() => removeCgroupTrees(this.cgroups));
    await step(() => this.containerd && stopComponent(this.containerd, 5_000));
    // The shims and anything else started with the folder in its command line.
    await step(() => {
      for (const pid of processesNaming(this.dir)) {
        try {
          process.kill(pid, 'SIGKILL');
        } catch {
          // gone already
        }
      }
    });
    await step(async () => {
      const holder = this.holder;
      if (holder === undefined || holder.exitCode !== null || holder.signalCode !== null) return;
      const exited = new Promise((resolve) => holder.once('exit', resolve));
      holder.kill('SIGKILL');
      await exited;
    });
    await step(() => {
      if (existsSync(`/sys/class/net/${this.bridge}`)) execFileSync('ip', ['link', 'delete', this.bridge]);
    });
    await step(() => this.ipForward !== null && writeFileSync(IP_FORWARD, `${this.ipForward}\n`));
    if (options.keepDir === true || process.env.GPUSHARE_KEEP_KUBERNETES_DIR === '1') {
      process.stderr.write(`real node files kept in ${this.dir}\n`);
    } else {
      await step(() => rmSync(this.dir, { recursive: true, force: true, maxRetries: 5, retryDelay: 100 }));
    }
    if (errors.length > 0) throw new AggregateError(errors, `stopping the real node ${this.name} failed`);
  }
}
