/**
 * `gpushare webhook`: the mutating admission webhook for Kubernetes (docs/kubernetes/webhook.md).
 * Composes the HTTPS server and the admission decision (src/adapters/kubernetes/webhook) with the
 * bound on GPU memory: fixed by `--max-gpu-memory-mib`, or watched from the nodes' labels through
 * the API server (in-cluster service account, or `--kubeconfig`). The server and the Kubernetes
 * client are loaded only when the command runs.
 */
import { Command, Option } from 'commander';
import { UsageError } from '../cli/exit-codes.js';
import { parseIntegerInRange } from '../cli/parse-quantities.js';

interface WebhookFlags {
  port: string;
  host: string;
  tlsCert?: string;
  tlsKey?: string;
  schedulerName?: string;
  kubeconfig?: string;
  maxGpuMemoryMib?: string;
  logLevel: string;
}

/** Default HTTPS port (the Service maps 443 to it). */
export const WEBHOOK_DEFAULT_PORT = 8443;

/** A label value or DNS subdomain: what a kube-scheduler profile name may be (schedulerName). */
const SCHEDULER_NAME = /^[a-z0-9]([-a-z0-9.]{0,251}[a-z0-9])?$/;

/** A whole number in [min, max] for `flag`. @throws UsageError naming the flag and the range */
function integerFlag(flag: string, raw: string, min: number, max: number): number {
  try {
    return parseIntegerInRange(flag, raw, min, max);
  } catch (error) {
    throw new UsageError((error as Error).message);
  }
}

/** Builds the `webhook` command. */
export function createWebhookCommand(): Command {
  return new Command('webhook')
    .description(
      "run the Kubernetes mutating admission webhook: rewrites nvidia.com/gpu requests into gpushare's " +
        '(HTTPS, AdmissionReview v1)',
    )
    .option('--port <port>', 'HTTPS port', String(WEBHOOK_DEFAULT_PORT))
    .option('--host <address>', 'listen address', '0.0.0.0')
    .option('--tls-cert <file>', 'serving certificate (PEM; read again when it changes); required')
    .option('--tls-key <file>', 'private key (PEM) of --tls-cert; required')
    .option(
      '--scheduler-name <name>',
      'set spec.schedulerName of GPU pods to this kube-scheduler profile (default: leave it)',
    )
    .option('--kubeconfig <file>', "kubeconfig to watch nodes with (default: the pod's service account)")
    .option(
      '--max-gpu-memory-mib <MiB>',
      'largest GPU memory of any node, MiB; refuses requests above it without asking the API server',
    )
    .addOption(
      new Option('--log-level <level>', 'log level (stderr)')
        .choices(['fatal', 'error', 'warn', 'info', 'debug'])
        .default('info'),
    )
    .action(async (flags: WebhookFlags) => {
      const port = integerFlag('--port', flags.port, 0, 65535);
      if (flags.tlsCert === undefined || flags.tlsKey === undefined)
        throw new UsageError('--tls-cert and --tls-key are required: the API server calls webhooks over HTTPS only');
      if (flags.schedulerName !== undefined && !SCHEDULER_NAME.test(flags.schedulerName)) {
        throw new UsageError(
          `--scheduler-name must be a DNS subdomain (lower-case letters, digits, '-', '.'), got "` +
            `${flags.schedulerName}"`,
        );
      }
      const fixedMiB =
        flags.maxGpuMemoryMib === undefined
          ? null
          : integerFlag('--max-gpu-memory-mib', flags.maxGpuMemoryMib, 1, 16 * 1024 * 1024);
      if (fixedMiB !== null && flags.kubeconfig !== undefined)
        throw new UsageError('--max-gpu-memory-mib and --kubeconfig exclude each other: the bound is fixed or watched');
      if (fixedMiB === null && flags.kubeconfig === undefined && process.env.KUBERNETES_SERVICE_HOST === undefined) {
        throw new UsageError(
          "not running in a cluster: give --kubeconfig (to watch the nodes' GPU memory) or --max-gpu-memory-mib",
        );
      }
      const { default: pino } = await import('pino');
      const logger = pino({ level: flags.logLevel }, pino.destination(2));
      const { fixedNodeGpuMemory } = await import('../adapters/kubernetes/webhook/node-gpu-memory.js');
      let stopWatch = async (): Promise<void> => undefined;
      let memory = fixedMiB === null ? null : fixedNodeGpuMemory(fixedMiB);
      if (memory === null) {
        const { loadKubeConfig } = await import('./kube-config.js');
        const { watchNodeGpuMemory } = await import('../adapters/kubernetes/webhook/node-gpu-memory-watch.js');
        let kubeConfig;
        try {
          kubeConfig = loadKubeConfig(flags.kubeconfig ?? null);
        } catch (error) {
          throw new UsageError(
            `${flags.kubeconfig !== undefined ? `--kubeconfig ${flags.kubeconfig}` : 'in-cluster configuration'}` +
              `: ${(error as Error).message}`,
          );
        }
        const watch = watchNodeGpuMemory(kubeConfig, logger);
        memory = watch;
        stopWatch = () => watch.stop();
      }
      const { startWebhookServer } = await import('../adapters/kubernetes/webhook/webhook-server.js');
      const source = memory;
      const server = await startWebhookServer({
        host: flags.host,
        port,
        tlsCertFile: flags.tlsCert,
        tlsKeyFile: flags.tlsKey,
        logger,
        config: {
          schedulerName: flags.schedulerName ?? null,
          maxGpuMemoryMiB: () => source.maxGpuMemoryMiB(),
          capacity: () => source.capacity?.() ?? null,
        },
      });
      process.stdout.write(
        `gpushare webhook listening on ${server.url} (POST /mutate, GET /healthz); ` +
          (`GPU memory bound: ` +
            `${
              fixedMiB !== null
                ? `${fixedMiB} MiB (--max-gpu-memory-mib)`
                : "watched from the nodes' " + 'gpushare.io/gpu-memory-mib labels'
            }` +
            `; `) +
          `schedulerName: ${flags.schedulerName ?? 'left as it is'}\n`,
      );
      await new Promise<void>((resolve) => {
        const stop = (signal: string): void => {
          logger.info({ signal }, 'stopping');
          void Promise.all([server.close(), stopWatch()]).finally(resolve);
        };
        process.once('SIGTERM', () => stop('SIGTERM'));
        process.once('SIGINT', () => stop('SIGINT'));
      });
    });
}
