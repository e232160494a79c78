/**
 * The `gpushare extender` command line: flags, their checks, and a run that lasts until SIGTERM or
 * SIGINT (then the server closes and the Lease is left to expire).
 */
import { Command, InvalidArgumentError } from 'commander';
import { asArgParser } from '../cli/option-parsers.js';
import { parseIntegerInRange } from '../cli/parse-quantities.js';
import { POLICY_NAMES } from '../core/index.js';
import { defaultIdentity, type ExtenderSettings } from './extender.js';

interface ExtenderFlags {
  kubeconfig?: string;
  host: string;
  port: number;
  tlsCert?: string;
  tlsKey?: string;
  clientCa?: string;
  insecureHttp?: boolean;
  urlPrefix: string;
  policy: string;
  leaseNamespace: string;
  leaseName: string;
  leaseDurationSeconds: number;
  identity?: string;
  historyFile?: string;
  assignmentKeyFile?: string;
  logLevel: string;
}

/** Builds the command. @param version the package version (metrics) */
export function createExtenderCommand(version: string): Command {
  return new Command('extender')
    .description(
      'Run the kube-scheduler extender: filter, prioritize and bind GPU pods with the gpushare core ' +
        '(docs/kubernetes/extender.md)',
    )
    .option('--kubeconfig <file>', 'kubeconfig to reach the API server (default: the in-cluster ServiceAccount)')
    .option('--host <address>', 'address to listen on', '0.0.0.0')
    .option(
      '--port <port>',
      'port to listen on (0 = any free port)',
      asArgParser((t) => parseIntegerInRange('--port', t, 0, 65535)),
      8443,
    )
    .option('--tls-cert <file>', 'serving certificate (PEM) for HTTPS')
    .option('--tls-key <file>', 'private key (PEM) of --tls-cert')
    .option(
      '--client-ca <file>',
      "serve only callers with a client certificate this CA (PEM) signed: the kube-scheduler's tlsConfig " +
        'certFile/keyFile',
    )
    .option('--insecure-http', 'serve plain HTTP (only for a scheduler on the same host; use --host 127.0.0.1)')
    .option(
      '--url-prefix <path>',
      'path prefix of the verbs (the urlPrefix path of the scheduler configuration)',
      '/scheduler',
    )
    .option(
      '--policy <name>',
      `placement policy (${POLICY_NAMES.join(', ')})`,
      (v) => {
        if (!POLICY_NAMES.includes(v))
          throw new InvalidArgumentError(`--policy must be one of ${POLICY_NAMES.join(', ')}, got '${v}'`);
        return v;
      },
      'default',
    )
    .option('--lease-namespace <namespace>', 'namespace of the Lease that elects the active replica', 'gpushare-system')
    .option('--lease-name <name>', 'name of that Lease', 'gpushare-extender')
    .option(
      '--lease-duration-seconds <n>',
      'how long a Lease holder may go without renewing before another replica takes over',
      asArgParser((t) => parseIntegerInRange('--lease-duration-seconds', t, 2, 600)),
      15,
    )
    .option(
      '--identity <id>',
      "this replica's name in the Lease (default: $POD_NAME or the host name, and the process id)",
    )
    .option(
      '--history-file <file>',
      "append a row of the history export (the simulator's trace format) for each pod it placed when the pod ends " +
        '(docs/kubernetes/extender.md)',
    )
    .option(
      '--assignment-key-file <file>',
      'key (at least 16 bytes, e.g. a Secret) the extender signs the assignments it writes with; assignments ' +
        'read from pods without its signature for that pod are not accounted and block their GPUs ' +
        '(docs/kubernetes/extender.md). Every replica needs the same key',
    )
    .option('--log-level <level>', 'log level (stderr)', 'info')
    .action(async (flags: ExtenderFlags) => {
      const settings: ExtenderSettings = {
        kubeconfig: flags.kubeconfig ?? null,
        host: flags.host,
        port: flags.port,
        tlsCertFile: flags.tlsCert ?? null,
        tlsKeyFile: flags.tlsKey ?? null,
        clientCaFile: flags.clientCa ?? null,
        insecureHttp: flags.insecureHttp === true,
        urlPrefix: flags.urlPrefix,
        policy: flags.policy,
        leaseNamespace: flags.leaseNamespace,
        leaseName: flags.leaseName,
        leaseDurationSeconds: flags.leaseDurationSeconds,
        identity: flags.identity ?? defaultIdentity(),
        historyFile: flags.historyFile ?? null,
        assignmentKeyFile: flags.assignmentKeyFile ?? null,
        version,
        logLevel: flags.logLevel,
      };
      const { startExtender } = await import('./extender.js');
      const running = await startExtender(settings);
      process.stdout.write(`gpushare extender listening on ${running.url}${settings.urlPrefix}\n`);
      await new Promise<void>((resolve) => {
        const stop = (): void => void running.close().then(resolve, resolve);
        process.once('SIGTERM', stop);
        process.once('SIGINT', stop);
      });
    });
}
