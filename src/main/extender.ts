/**
 * `gpushare extender`: the kube-scheduler extender, composed. Loads the kubeconfig (a file, or the
 * in-cluster ServiceAccount), watches Nodes and Pods into the cluster view, takes part in the
 * Lease election, and serves filter, prioritize and bind (HTTPS with a certificate and key, or
 * plain HTTP only when asked) with /metrics, /healthz and /readyz.
 */
import { readFileSync } from 'node:fs';
import { hostname } from 'node:os';
import { loadKubeConfig } from './kube-config.js';
import pino from 'pino';
import { ClusterView } from '../adapters/kubernetes/extender/cluster-view.js';
import { watchCluster } from '../adapters/kubernetes/extender/cluster-watch.js';
import { createExtenderMetrics } from '../adapters/metrics/extender-metrics.js';
import { buildExtenderServer } from '../adapters/kubernetes/extender/extender-server.js';
import { kubeRestFrom } from '../adapters/kubernetes/extender/kube-rest.js';
import { LeaderLease } from '../adapters/kubernetes/extender/leader-lease.js';
import { PodBinder } from '../adapters/kubernetes/extender/pod-binder.js';
import { openHistoryFile } from '../adapters/kubernetes/extender/history-file.js';
import { PodHistory } from '../adapters/kubernetes/extender/pod-history.js';
import { postRefusalEvent, refusalEventMessage } from '../adapters/kubernetes/extender/assignment-events.js';
import { assignmentSigner, type AssignmentSigner } from '../adapters/kubernetes/schema/assignment-signature.js';

/** Settings of `gpushare extender` (flags of the command). */
export interface ExtenderSettings {
  /** kubeconfig file; null = in-cluster ServiceAccount. */
  readonly kubeconfig: string | null;
  readonly host: string;
  readonly port: number;
  /** Certificate and key files for HTTPS; both null = plain HTTP (`insecureHttp` must then be true). */
  readonly tlsCertFile: string | null;
  readonly tlsKeyFile: string | null;
  /** CA (PEM file) of the client certificates callers must present; null: any caller. */
  readonly clientCaFile: string | null;
  readonly insecureHttp: boolean;
  readonly urlPrefix: string;
  readonly policy: string;
  readonly leaseNamespace: string;
  readonly leaseName: string;
  readonly leaseDurationSeconds: number;
  readonly identity: string;
  /** The history export file a row is appended to when a placed pod ends; null: none. */
  readonly historyFile?: string | null;
  /**
   * The key file assignments are signed and verified with (assignment-signature.ts); null or absent:
   * assignments are neither signed nor checked for a signature (still against requests and nodes).
   */
  readonly assignmentKeyFile?: string | null;
  readonly version: string;
  readonly logLevel?: string;
}

/** A running extender. */
export interface RunningExtender {
  /** Base URL it listens on (scheme, host, port). */
  readonly url: string;
  close(): Promise<void>;
}

/** The default identity in the Lease: the pod name (POD_NAME or the host name) and the process id. */
export function defaultIdentity(env: NodeJS.ProcessEnv = process.env): string {
  return `${env.POD_NAME ?? hostname()}_${process.pid}`;
}

/**
 * Starts the extender. @throws Error when the kubeconfig cannot be loaded, only one of the TLS
 *   files is given, or neither is given without `insecureHttp`
 */
export async function startExtender(settings: ExtenderSettings): Promise<RunningExtender> {
  const log = pino({ level: settings.logLevel ?? 'info', base: { component: 'extender' } }, pino.destination(2));
  if ((settings.tlsCertFile === null) !== (settings.tlsKeyFile === null))
    throw new Error('--tls-cert and --tls-key go together: give both or neither');
  if (settings.tlsCertFile === null && !settings.insecureHttp)
    throw new Error(
      'the extender serves HTTPS: give --tls-cert and --tls-key (or --insecure-http for a scheduler on the same host)',
    );
  const kubeconfig = loadKubeConfig(settings.kubeconfig);
  // Each API call of a bind gets 5 s, so a bind ends well within the scheduler's httpTimeout (30 s).
  const rest = kubeRestFrom(kubeconfig, 5_000);
  let signer: AssignmentSigner | null = null;
  if (settings.assignmentKeyFile !== null && settings.assignmentKeyFile !== undefined) {
    try {
      signer = assignmentSigner(readFileSync(settings.assignmentKeyFile));
    } catch (err) {
      throw new Error(`--assignment-key-file ${settings.assignmentKeyFile}: ${(err as Error).message}`);
    }
  } else
    log.warn(
      'no --assignment-key-file: assignments are checked against requests and nodes, but a copy of a valid one ' +
        'is not told from the extender’s own',
    );
  // Counted once the metrics exist (below); refusals of the first sync wait for them.
  const refusedEarly: string[] = [];
  let countRefusal = (code: string): void => void refusedEarly.push(code);
  const view = new ClusterView(settings.policy, Date.now, (message) => log.warn(message), {
    signer,
    onRefused: (refused) => {
      log.warn(
        {
          code: refused.code,
          details: refused.details,
          pod: `${refused.namespace}/${refused.name}`,
          uid: refused.uid,
          node: refused.node,
          blockedGpus: refused.gpuIndexes,
        },
        refusalEventMessage(refused),
      );
      countRefusal(refused.code);
      void postRefusalEvent(rest, refused, settings.identity, Date.now(), (m) => log.warn(m));
    },
  });
  const lease = new LeaderLease(rest, {
    namespace: settings.leaseNamespace,
    name: settings.leaseName,
    identity: settings.identity,
    leaseDurationSeconds: settings.leaseDurationSeconds,
    onChange: (active, holder) =>
      log.info(
        { active, holder },
        active ? 'this replica is the active extender' : 'this replica is not the active extender',
      ),
  });
  const history =
    settings.historyFile === null || settings.historyFile === undefined
      ? null
      : new PodHistory(openHistoryFile(settings.historyFile), Date.now);
  const watch = await watchCluster(
    kubeconfig,
    rest,
    view,
    { info: (m) => log.info(m), warn: (m) => log.warn(m) },
    history &&
      ((pod, deleted) =>
        history.observe(pod, deleted, (err) =>
          log.warn({ err }, `cannot append to --history-file ${settings.historyFile}`),
        )),
  );
  lease.start();
  const notReady = (): string | null => {
    if (!watch.synced()) return 'the cache of nodes and pods has not synced with the API server yet';
    if (!lease.active)
      return (
        `not the active replica (Lease ${settings.leaseNamespace}/${settings.leaseName} held by ` +
        `${lease.currentHolder ?? 'nobody yet'})`
      );
    return null;
  };
  const metrics = createExtenderMetrics(
    () => ({ gpus: view.gpuSnapshot(), active: lease.active, synced: watch.synced() }),
    settings.version,
  );
  countRefusal = (code) => metrics.refusedAssignment(code);
  for (const code of refusedEarly.splice(0)) countRefusal(code);
  if (settings.clientCaFile !== null && settings.tlsCertFile === null)
    throw new Error('--client-ca needs HTTPS: give --tls-cert and --tls-key');
  const tls =
    settings.tlsCertFile !== null
      ? {
          certPem: readFileSync(settings.tlsCertFile, 'utf8'),
          keyPem: readFileSync(settings.tlsKeyFile!, 'utf8'),
          ...(settings.clientCaFile !== null ? { clientCaPem: readFileSync(settings.clientCaFile, 'utf8') } : {}),
        }
      : undefined;
  if (settings.clientCaFile === null)
    log.warn('no --client-ca: any caller that reaches the port may call filter, prioritize and bind');
  const app = buildExtenderServer({
    view,
    binder: new PodBinder(view, rest),
    metrics,
    notReady,
    urlPrefix: settings.urlPrefix,
    ...(tls ? { tls } : {}),
  });
  await app.listen({ host: settings.host, port: settings.port });
  const address = app.server.address();
  const port = typeof address === 'object' && address !== null ? address.port : settings.port;
  const url =
    `${tls ? 'https' : 'http'}://${settings.host.includes(':') ? `[${settings.host}]` : settings.host}:` + `${port}`;
  log.info({ url, prefix: settings.urlPrefix }, 'extender listening');
  return {
    url,
    async close() {
      lease.stop();
      await app.close();
      await watch.stop();
      rest.close();
    },
  };
}
