/**
 * `gpushare autoscaler`, composed: reads its config file, reaches the API server (a kubeconfig or
 * the in-cluster ServiceAccount), reads the cluster through the extender's cluster view, keeps its
 * record in a ConfigMap, acts through the configured provider, writes Events and serves /metrics
 * and /healthz (127.0.0.1 by default), and runs a round every `intervalSeconds`, one at a time.
 */
import { readFileSync } from 'node:fs';
import { createServer } from 'node:http';
import { hostname } from 'node:os';
import { loadKubeConfig } from './kube-config.js';
import pino from 'pino';
import { CommandProvider } from '../adapters/autoscaler/command-provider.js';
import { SimulatedProvider } from '../adapters/autoscaler/simulated-provider.js';
import { withSimulatedNodes } from '../adapters/autoscaler/simulated-pool.js';
import { kubeRestFrom, type KubeRest } from '../adapters/kubernetes/extender/kube-rest.js';
import { ConfigMapStore } from '../adapters/kubernetes/autoscaler/config-map-store.js';
import { kubeEventsReporter, type ObjectRef } from '../adapters/kubernetes/autoscaler/kube-events.js';
import { kubePoolCluster } from '../adapters/kubernetes/autoscaler/kube-pool-cluster.js';
import { KubernetesProvider } from '../adapters/kubernetes/autoscaler/kubernetes-provider.js';
import { createAutoscalerMetrics, type AutoscalerMetrics } from '../adapters/metrics/autoscaler-metrics.js';
import { AutoscalerLoop } from '../app/autoscaling/autoscaler-loop.js';
import type { AutoscalerReport, AutoscalerReporter } from '../app/ports/autoscaler-reporter.js';
import type { NodeProvider } from '../app/ports/node-provider.js';
import type { PoolCluster } from '../app/ports/pool-cluster.js';
import { parseAutoscalerConfig, type AutoscalerConfig } from '../config/autoscaler-config.js';
import { statusMessage } from '../core/index.js';

/** Settings of `gpushare autoscaler` (flags of the command). */
export interface AutoscalerSettings {
  readonly configFile: string;
  /** kubeconfig file; null = in-cluster ServiceAccount. */
  readonly kubeconfig: string | null;
  /** Namespace of the state ConfigMap. */
  readonly namespace: string;
  readonly stateConfigMap: string;
  readonly intervalSeconds: number;
  readonly metricsHost: string;
  readonly metricsPort: number;
  /** `reportingInstance` of its Events. */
  readonly identity: string;
  readonly version: string;
  readonly logLevel?: string;
}

/** A running autoscaler. */
export interface RunningAutoscaler {
  /** Base URL of /metrics and /healthz. */
  readonly metricsUrl: string;
  /** Stops the rounds (the one in progress ends first) and the server. */
  close(): Promise<void>;
}

/** The default Event instance: the pod name (POD_NAME) or the host name. */
export function defaultInstance(env: NodeJS.ProcessEnv = process.env): string {
  return env.POD_NAME ?? hostname();
}

/** Reads and checks the config file. @throws Error naming the file and the field */
function readConfig(file: string): AutoscalerConfig {
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (err) {
    throw new Error(`cannot read --config file '${file}': ${(err as Error).message}`);
  }
  return parseAutoscalerConfig(text, file);
}

/** One reporter that tells all of `reporters`, in order. */
function fanOut(reporters: readonly AutoscalerReporter[]): AutoscalerReporter {
  return {
    async report(report: AutoscalerReport) {
      for (const r of reporters) await r.report(report);
    },
  };
}

/** Where the parts write and who they are. */
export interface AutoscalerWiring {
  /** Namespace and name of the record's ConfigMap (and of Events no other object fits). */
  readonly namespace: string;
  readonly stateConfigMap: string;
  /** `reportingInstance` of its Events. */
  readonly identity: string;
  readonly version: string;
  readonly log: { info(message: string, fields?: object): void; warn(message: string, fields?: object): void };
}

/** An autoscaler's parts, before any round. */
export interface AutoscalerParts {
  readonly loop: AutoscalerLoop;
  readonly metrics: AutoscalerMetrics;
}

/**
 * Builds the loop of `config` over the API server `rest` reaches: the cluster through the extender's
 * view, the provider, the ConfigMap, Events, metrics and the log. No call is made before a round.
 */
export function buildAutoscaler(config: AutoscalerConfig, rest: KubeRest, wiring: AutoscalerWiring): AutoscalerParts {
  const { log } = wiring;
  const warn = (message: string): void => log.warn(message);
  let cluster: PoolCluster = kubePoolCluster(rest, config.placementPolicy, warn);
  let provider: NodeProvider;
  let targetOf: (template: string) => ObjectRef | undefined = () => undefined;
  const p = config.provider;
  if (p.kind === 'command')
    provider = new CommandProvider({
      command: p.command,
      args: p.args,
      timeoutMs: p.timeoutSeconds * 1000,
      maxOutputBytes: p.maxOutputBytes,
      env: process.env,
    });
  else if (p.kind === 'kubernetes') {
    provider = new KubernetesProvider(rest, { targets: p.targets, machines: p.machines });
    targetOf = (template) => p.targets[template];
  } else {
    const simulated = new SimulatedProvider(config.templates, Date.now);
    cluster = withSimulatedNodes(cluster, simulated, config.templates, Date.now);
    provider = simulated;
  }
  const metrics = createAutoscalerMetrics(wiring.version);
  const events = kubeEventsReporter(rest, {
    targetOf,
    fallback: { apiVersion: 'v1', kind: 'ConfigMap', name: wiring.stateConfigMap, namespace: wiring.namespace },
    instance: wiring.identity,
    warn,
  });
  const logged: AutoscalerReporter = {
    async report(r) {
      if (r.kind === 'scale') log.info(statusMessage(r.reason), { ...r, reason: r.reason.code });
      else if (r.kind === 'cordon' || r.kind === 'remove')
        log.info(statusMessage(r.reason), { node: r.node, action: r.kind });
      // A provider's failure is logged where it is met, with its detail (decision-runner.ts).
    },
  };
  const loop = new AutoscalerLoop(
    {
      cluster,
      provider,
      store: new ConfigMapStore(rest, wiring.namespace, wiring.stateConfigMap),
      reporter: fanOut([logged, metrics.reporter, events]),
      log: { info: (m) => log.info(m), warn },
      nowMs: Date.now,
    },
    {
      templates: config.templates,
      policy: config.policy,
      scheduling: { policy: config.placementPolicy, learnWorkloadOnline: true },
    },
  );
  return { loop, metrics };
}

/**
 * Starts the autoscaler. @throws Error for a bad config file, a kubeconfig that cannot be loaded, or
 *   a metrics port that cannot be bound
 */
export async function startAutoscaler(settings: AutoscalerSettings): Promise<RunningAutoscaler> {
  const config = readConfig(settings.configFile);
  const logger = pino({ level: settings.logLevel ?? 'info', base: { component: 'autoscaler' } }, pino.destination(2));
  const log = {
    info: (message: string, fields: object = {}) => logger.info(fields, message),
    warn: (message: string, fields: object = {}) => logger.warn(fields, message),
  };
  const rest = kubeRestFrom(loadKubeConfig(settings.kubeconfig), 10_000);
  const { loop, metrics } = buildAutoscaler(config, rest, { ...settings, log });

  let lastRoundOk = false;
  const server = createServer((req, res) => {
    if (req.url === '/metrics') {
      metrics.registry.metrics().then(
        (text) => res.writeHead(200, { 'content-type': metrics.registry.contentType }).end(text),
        (err: Error) => res.writeHead(500).end(err.message),
      );
    } else if (req.url === '/healthz') {
      res
        .writeHead(lastRoundOk ? 200 : 503, { 'content-type': 'text/plain' })
        .end(lastRoundOk ? 'ok\n' : 'no round has succeeded yet\n');
    } else res.writeHead(404).end();
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(settings.metricsPort, settings.metricsHost, () => resolve());
  });
  const address = server.address();
  const port = typeof address === 'object' && address !== null ? address.port : settings.metricsPort;
  const host = settings.metricsHost.includes(':') ? `[${settings.metricsHost}]` : settings.metricsHost;

  let stopping = false;
  let timer: NodeJS.Timeout | null = null;
  let current: Promise<void> = Promise.resolve();
  const tick = (): void => {
    current = loop.round().then(
      () => {
        lastRoundOk = true;
        metrics.round('ok');
      },
      (err: Error) => {
        metrics.round('error');
        log.warn(`round failed (next in ${settings.intervalSeconds} s): ${err.message}`);
      },
    );
    void current.then(() => {
      if (!stopping) timer = setTimeout(tick, settings.intervalSeconds * 1000);
    });
  };
  log.info('autoscaler started', { provider: config.provider.kind, templates: config.templates.map((t) => t.name) });
  tick();
  return {
    metricsUrl: `http://${host}:${port}`,
    async close() {
      stopping = true;
      if (timer !== null) clearTimeout(timer);
      await current;
      await new Promise<void>((resolve) => server.close(() => resolve()));
      rest.close();
    },
  };
}
