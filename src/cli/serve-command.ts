/**
 * `gpushare serve`: runs the standalone control plane on this machine (see docs/server.md).
 */
import { readFileSync } from 'node:fs';
import { cpus, totalmem } from 'node:os';
import { Command, Option } from 'commander';
import {
  DEFAULT_SIMULATED_GPUS,
  parseServerConfigFile,
  resolveServerConfig,
  type ServerConfig,
  type ServerConfigFile,
} from '../config/server-config.js';
import { UsageError } from './exit-codes.js';

interface ServeFlags {
  port?: string;
  host?: string;
  dataDir?: string;
  config?: string;
  simulateGpus?: string;
  demo?: boolean;
  metricsRequireToken?: boolean;
  metricsOpen?: boolean;
  requestsPerSecond?: string;
  requestBurst?: string;
  eventStreamsPerToken?: string;
  eventStreamsTotal?: string;
  singleTenant?: boolean;
  sandboxUidRange?: string;
  deviceRoot?: string;
  tlsCert?: string;
  tlsKey?: string;
  tlsCa?: string;
  insecureHttp?: boolean;
  jobLogCapBytes?: string;
  minFreeDiskMib?: string;
  auditAnchorCommand?: string;
  acceptAuditProblems?: boolean;
  jobPidsMax?: string;
  defaultHostMemoryMib?: string;
  jobCpuWeight?: string;
  logLevel: string;
}

/** What `serve` needs of a started server (src/main/serve.ts provides it). */
export interface StartedServer {
  readonly url: string;
  readonly gpuSource: 'simulated' | 'nvidia-smi';
  readonly adminTokenPath: string;
  readonly cliConfigPath: string | null;
  /**
   * The CA certificate the CLI trusts for this server (PEM file), null without one (own certificate without --tls-ca,
   * or plain HTTP).
   */
  readonly caCertPath: string | null;
  /** Resolves when the server has stopped. */
  readonly closed: Promise<void>;
}

/** Starts the server for a resolved configuration (wired by the composition root). */
export type StartServer = (
  config: ServerConfig,
  options: { env: NodeJS.ProcessEnv; version: string; logLevel: string; acceptAuditProblems: boolean },
) => Promise<StartedServer>;

/**
 * Builds the `serve` command. `version` is shown by `/api/v1/status`.
 * @param checkSimulatedGpus throws a message naming what is wrong with a `--simulate-gpus` spec
 */
export function createServeCommand(
  version: string,
  start: StartServer,
  checkSimulatedGpus: (spec: string) => void,
): Command {
  return new Command('serve')
    .description('run the gpushare server: HTTPS API, scheduler and job launcher on this machine')
    .option('--port <port>', 'TCP port, 0 = any free port (default 7070)')
    .option('--host <address>', 'listen address (default 127.0.0.1)')
    .option('--data-dir <dir>', 'store, job logs and admin token (default ~/.local/share/gpushare)')
    .option('--config <file>', 'YAML config file (flags win over it)')
    .option('--simulate-gpus <spec>', `simulated GPUs, COUNTxMODEL[:mig],... e.g. ${DEFAULT_SIMULATED_GPUS}`)
    .option('--demo', 'demo mode: data dir ./.gpushare-demo and a quickstart on start')
    .option(
      '--metrics-open',
      'serve GET /metrics without a token (default: it needs an admin token, since its series name every ' +
        "tenant's jobs)",
    )
    .option('--metrics-require-token', 'GET /metrics needs an admin token (the default; kept for scripts of before)')
    .option(
      '--requests-per-second <n>',
      'requests per second each non-admin token may make (default 20; admins are never throttled)',
    )
    .option('--request-burst <n>', 'requests a non-admin token may make at once above that rate (default 40)')
    .option(
      '--event-streams-per-token <n>',
      'open event streams per non-admin token (default 4; admin tokens: adminEventStreamsPerToken, 16)',
    )
    .option('--event-streams-total <n>', 'open event streams in all (default 64)')
    .option(
      '--single-tenant',
      "run jobs without a sandbox, as the server's user: every tenant trusts every other (the demo does)",
    )
    .option('--sandbox-uid-range <first-last>', "uids tenants' jobs run under, one per tenant (default 200000-265535)")
    .option('--device-root <dir>', 'folder of the GPU device nodes (default /dev; stand-in files for simulated GPUs)')
    .option(
      '--tls-cert <file>',
      'own TLS certificate (PEM) instead of one of the local CA in <data-dir>/tls; needs --tls-key',
    )
    .option('--tls-key <file>', 'private key (PEM) of --tls-cert')
    .option('--tls-ca <file>', 'CA certificate (PEM) of --tls-cert, written into the CLI config for the CLI to trust')
    .option('--insecure-http', 'serve plain HTTP instead of HTTPS (tokens travel in clear text)')
    .option(
      '--job-log-cap-bytes <bytes>',
      "most bytes kept of each attempt's stdout and of its stderr: head and tail, the cut marked " +
        '(default 67108864 = 64 MiB)',
    )
    .option(
      '--min-free-disk-mib <mib>',
      "free space on the data directory's disk below which /healthz answers 503 and submits are refused (507), " +
        'MiB; 0 = off (default 256)',
    )
    .option(
      '--audit-anchor-command <command>',
      'shell command (/bin/sh -c) that receives each new audit head as a line "seq hash" on its standard input, ' +
        'e.g. "logger -t gpushare-audit" (docs/security.md)',
    )
    .option(
      '--accept-audit-problems',
      'start even though the audit log fails its start check (gpushare audit verify names the problems): the ' +
        'start is recorded in the audit log, the journal is kept aside and written anew, the triggers made again',
    )
    .option(
      '--job-pids-max <count>',
      'most processes and threads one job may have at once (pids cgroup; past it the job ends process-limit); ' +
        '0 = no limit (default 4096)',
    )
    .option(
      '--default-host-memory-mib <MiB>',
      'host memory of a job without --host-memory: its memory cgroup limit, reserved like a request (past it the ' +
        'job ends host-memory-limit); 0 = none (default 1024; per tenant: tenantDefaultHostMemoryMiB in --config)',
    )
    .option(
      '--job-cpu-weight <weight>',
      "CPU weight of each job's cgroup against the server and the other jobs, 1-10000 (cpu.weight; v1 cpu.shares = " +
        'weight x 1024 / 100); 0 = none (default 100)',
    )
    .addOption(
      new Option('--log-level <level>', 'server log level (stderr)')
        .choices(['fatal', 'error', 'warn', 'info', 'debug'])
        .default('info'),
    )
    .action(async (flags: ServeFlags) => {
      const fileSettings: ServerConfigFile = flags.config
        ? parseServerConfigFile(readFile(flags.config), flags.config)
        : {};
      const port = flags.port === undefined ? undefined : Number(flags.port);
      if (port !== undefined && (!Number.isInteger(port) || port < 0 || port > 65535))
        throw new UsageError(`--port must be an integer 0-65535 (0 = any free port), got "${flags.port}"`);
      if (flags.simulateGpus !== undefined) {
        try {
          checkSimulatedGpus(flags.simulateGpus);
        } catch (error) {
          throw new UsageError((error as Error).message);
        }
      }
      const jobLogCapBytes = flags.jobLogCapBytes === undefined ? undefined : Number(flags.jobLogCapBytes);
      if (
        jobLogCapBytes !== undefined &&
        (!/^\d+$/.test(flags.jobLogCapBytes!) ||
          !Number.isSafeInteger(jobLogCapBytes) ||
          jobLogCapBytes < 4096 ||
          jobLogCapBytes > 2 ** 40)
      ) {
        throw new UsageError(
          `--job-log-cap-bytes must be a whole number of bytes between 4096 and 1099511627776, got "` +
            `${flags.jobLogCapBytes}"`,
        );
      }
      if (flags.auditAnchorCommand !== undefined && flags.auditAnchorCommand.trim() === '')
        throw new UsageError(
          '--audit-anchor-command must not be blank: give a shell command, e.g. "logger -t gpushare"',
        );
      let config: ServerConfig;
      try {
        config = resolveServerConfig(
          fileSettings,
          {
            port,
            host: flags.host,
            simulateGpus: flags.simulateGpus,
            metricsRequireToken: flags.metricsRequireToken,
            metricsOpen: flags.metricsOpen,
            requestsPerSecond: numberFlag('--requests-per-second', flags.requestsPerSecond, 0, 100_000, false),
            requestBurst: numberFlag('--request-burst', flags.requestBurst, 1, 100_000, true),
            eventStreamsPerToken: numberFlag('--event-streams-per-token', flags.eventStreamsPerToken, 0, 1000, true),
            eventStreamsTotal: numberFlag('--event-streams-total', flags.eventStreamsTotal, 0, 100_000, true),
            singleTenant: flags.singleTenant === true || flags.demo === true ? true : undefined,
            sandboxUidRange: flags.sandboxUidRange,
            deviceRoot: flags.deviceRoot,
            dataDir: flags.dataDir ?? (flags.demo ? '.gpushare-demo' : undefined),
            tlsCert: flags.tlsCert,
            tlsKey: flags.tlsKey,
            tlsCa: flags.tlsCa,
            insecureHttp: flags.insecureHttp,
            jobLogCapBytes,
            minFreeDiskMiB: numberFlag('--min-free-disk-mib', flags.minFreeDiskMib, 0, 1_048_576, true),
            auditAnchorCommand: flags.auditAnchorCommand,
            jobPidsMax: numberFlag('--job-pids-max', flags.jobPidsMax, 0, 4_194_304, true),
            defaultHostMemoryMiB: numberFlag(
              '--default-host-memory-mib',
              flags.defaultHostMemoryMib,
              0,
              16_777_216,
              true,
            ),
            jobCpuWeight: numberFlag('--job-cpu-weight', flags.jobCpuWeight, 0, 10_000, true),
          },
          { cpuMilli: cpus().length * 1000, hostMemoryMiB: Math.floor(totalmem() / 1048576), env: process.env },
        );
      } catch (error) {
        throw new UsageError((error as Error).message);
      }
      const server = await start(config, {
        env: process.env,
        version,
        logLevel: flags.logLevel,
        acceptAuditProblems: flags.acceptAuditProblems === true,
      });
      const lines = [
        `gpushare ${version} listening on ${server.url}`,
        `GPUs: ` +
          `${
            server.gpuSource === 'simulated'
              ? `simulated (${config.simulateGpus ?? DEFAULT_SIMULATED_GPUS})`
              : 'real (nvidia-smi)'
          }` +
          `; data: ${config.dataDir}`,
        `admin token: ${server.adminTokenPath}` +
          `${
            server.cliConfigPath ? ` (also in ${server.cliConfigPath}, so gpushare commands work without flags)` : ''
          }`,
        `dashboard: ${server.url}/ (sign in with a token); Prometheus metrics: ${server.url}/metrics`,
        config.tls.kind === 'off'
          ? 'TLS: off (--insecure-http): tokens travel in clear text'
          : server.caCertPath
            ? `TLS CA: ${server.caCertPath} (curl --cacert ${server.caCertPath}; browsers: docs/dashboard.md)`
            : "TLS: own certificate (--tls-cert), no --tls-ca: clients use the system's CAs",
      ];
      if (flags.demo) {
        lines.push(
          '',
          'Try it (in another terminal):',
          '  node bin/gpushare submit --gpu 0.5 -- sleep 60',
          '  node bin/gpushare submit --gpu 0.5 -- sleep 60',
          '  node bin/gpushare gpus',
        );
      }
      process.stdout.write(`${lines.join('\n')}\n`);
      await server.closed;
    });
}

/**
 * A numeric flag: undefined when not given. @throws UsageError naming the flag and its range unless
 * a number in (min, max] (`min` 0 for a rate, which must be positive) or [min, max], whole when `integer`
 */
function numberFlag(
  flag: string,
  text: string | undefined,
  min: number,
  max: number,
  integer: boolean,
): number | undefined {
  if (text === undefined) return undefined;
  const value = /^\d+(\.\d+)?$/.test(text.trim()) ? Number(text) : Number.NaN;
  const aboveMin = integer ? value >= min : value > min;
  if (!aboveMin || !(value <= max) || (integer && !Number.isInteger(value))) {
    throw new UsageError(
      `${flag} must be ` +
        `${integer ? `a whole number from ${min} to ${max}` : `a number greater than ${min} and at most ${max}`}` +
        `, got "${text}"`,
    );
  }
  return value;
}

function readFile(path: string): string {
  try {
    return readFileSync(path, 'utf8');
  } catch (error) {
    throw new UsageError(`--config: cannot read ${path}: ${(error as Error).message}`);
  }
}
