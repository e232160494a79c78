/**
 * The `gpushare autoscaler` command line (docs/autoscaler.md, "Providers and `gpushare
 * autoscaler`"): flags, their checks, and a run that lasts until SIGTERM or SIGINT (the round in
 * progress ends first). A bad config file or flag ends it at once with a message naming the field
 * and what it allows, and a non-zero exit.
 */
import { Command, Option } from 'commander';
import { asArgParser } from '../cli/option-parsers.js';
import { parseIntegerInRange } from '../cli/parse-quantities.js';
import type { AutoscalerSettings } from './autoscaler.js';

interface AutoscalerFlags {
  config: string;
  kubeconfig?: string;
  namespace: string;
  stateConfigMap: string;
  intervalSeconds: number;
  metricsHost: string;
  metricsPort: number;
  identity?: string;
  logLevel: string;
}

/** Builds the command. @param version the package version (metrics) */
export function createAutoscalerCommand(version: string): Command {
  return new Command('autoscaler')
    .description(
      'Grow and shrink a GPU node pool with the queue: decide with the gpushare core, act through a provider ' +
        '(command, kubernetes, simulated) (docs/autoscaler.md)',
    )
    .requiredOption('--config <file>', 'node templates, policy and provider (YAML or JSON)')
    .option('--kubeconfig <file>', 'kubeconfig to reach the API server (default: the in-cluster ServiceAccount)')
    .option('--namespace <namespace>', 'namespace of the state ConfigMap (and of its Events)', 'gpushare-system')
    .option(
      '--state-config-map <name>',
      'ConfigMap that keeps the state and the decision in flight across restarts',
      'gpushare-autoscaler',
    )
    .option(
      '--interval-seconds <n>',
      'seconds between rounds (each: read the cluster, decide, act)',
      asArgParser((t) => parseIntegerInRange('--interval-seconds', t, 1, 3600)),
      30,
    )
    .option('--metrics-host <address>', 'address of /metrics and /healthz', '127.0.0.1')
    .option(
      '--metrics-port <port>',
      'port of /metrics and /healthz (0 = any free port)',
      asArgParser((t) => parseIntegerInRange('--metrics-port', t, 0, 65535)),
      9464,
    )
    .option('--identity <id>', "this process's name in its Events (default: $POD_NAME or the host name)")
    .addOption(
      new Option('--log-level <level>', 'log level (stderr)')
        .choices(['fatal', 'error', 'warn', 'info', 'debug'])
        .default('info'),
    )
    .action(async (flags: AutoscalerFlags) => {
      const { startAutoscaler, defaultInstance } = await import('./autoscaler.js');
      const settings: AutoscalerSettings = {
        configFile: flags.config,
        kubeconfig: flags.kubeconfig ?? null,
        namespace: flags.namespace,
        stateConfigMap: flags.stateConfigMap,
        intervalSeconds: flags.intervalSeconds,
        metricsHost: flags.metricsHost,
        metricsPort: flags.metricsPort,
        identity: flags.identity ?? defaultInstance(),
        version,
        logLevel: flags.logLevel,
      };
      const running = await startAutoscaler(settings);
      process.stdout.write(`gpushare autoscaler metrics on ${running.metricsUrl}/metrics\n`);
      await new Promise<void>((resolve) => {
        const stop = (): void => void running.close().then(resolve, resolve);
        process.once('SIGTERM', stop);
        process.once('SIGINT', stop);
      });
    });
}
