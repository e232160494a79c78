/**
 * Configuration of `gpushare serve`: a YAML file (`--config FILE`), overridden by flags. Every field
 * is documented with its unit and default; `resolveServerConfig` returns a complete, readonly
 * config with units in the names.
 */
import { homedir, hostname } from 'node:os';
import { join, resolve } from 'node:path';
import { z } from 'zod';
import { parse as parseYaml } from 'yaml';
import { POLICY_NAMES } from '../core/index.js';
import { JOB_HOST_LIMIT_KEYS, resolveJobHostLimits, type JobHostLimitsConfig } from './job-host-limits-config.js';

/** The YAML file's schema (camelCase keys). Unknown keys are errors, so typos are caught. */
/** GPUs simulated when the machine has none and no `--simulate-gpus` is given. */
export const DEFAULT_SIMULATED_GPUS = '2xA100-80GB,1xA100-80GB:mig,1xT4';

/** Default of `jobLogCapBytes`: 64 MiB per stream. */
export const DEFAULT_JOB_LOG_CAP_BYTES = 64 << 20;
/** Default of `minFreeDiskMiB`: below 256 MiB free on the data directory's disk the server is unhealthy. */
export const DEFAULT_MIN_FREE_DISK_MIB = 256;

/** Smallest `jobLogCapBytes` (4 KiB) and largest (1 TiB). */
const JOB_LOG_CAP_MIN_BYTES = 4096;
const JOB_LOG_CAP_MAX_BYTES = 2 ** 40;

export const ServerConfigFileSchema = z
  .object({
    /** TCP port; 0 = any free port. Default 7070. */
    port: z.number().int().min(0).max(65535).optional(),
    /** Listen address. Default 127.0.0.1 (only this machine). */
    host: z.string().min(1).optional(),
    /**
     * Where the store, job logs and the admin token live. Default `~/.local/share/gpushare` (or
     * `$XDG_DATA_HOME/gpushare`).
     */
    dataDir: z.string().min(1).optional(),
    /** `COUNTxMODEL[:mig],...`; when set, these simulated GPUs are used even if nvidia-smi finds real ones. */
    simulateGpus: z.string().min(1).optional(),
    /** How far time-sliced GPUs may overcommit compute: Σ gpuMilli ≤ 1000 × ratio. Default 1 (none). */
    timesliceOvercommitRatio: z.number().min(1).max(16).optional(),
    /** Rotation period of a time-sliced GPU in ms; each job runs for its gpuMilli share of it. Default 1000. */
    timeslicePeriodMs: z.number().int().min(50).max(60_000).optional(),
    /** How often processes are checked for exit, ms. Default 200. */
    monitorIntervalMs: z.number().int().min(10).max(10_000).optional(),
    /** Longest time between scheduling passes, ms (passes also run on every submit and exit). Default 1000. */
    scheduleIntervalMs: z.number().int().min(10).max(60_000).optional(),
    launchConcurrency: z.number().int().min(1).max(256).optional(),
    /** Placement policy of the passes and of the GPUs' allocation view: a name of POLICY_NAMES. Default `default`. */
    policy: z
      .string()
      .refine((name) => POLICY_NAMES.includes(name), { message: `must be one of ${POLICY_NAMES.join(', ')}` })
      .optional(),
    /** Grace between SIGTERM and SIGKILL when a job is cancelled or over its time limit, seconds. Default 10. */
    stopGraceSeconds: z.number().min(0).max(3600).optional(),
    /** Job directories (logs) of jobs that ended longer ago than this are deleted, days. Default 7. */
    logRetentionDays: z.number().min(0).max(3650).optional(),
    /** GPU health poll interval, seconds. Default 10. */
    healthPollIntervalSeconds: z.number().min(1).max(3600).optional(),
    /** Host CPU offered to jobs, milli-cores. Default: all cores × 1000. */
    hostCpuMilli: z.number().int().min(0).optional(),
    /** Host memory offered to jobs, MiB. Default: all of the machine's memory. */
    hostMemoryMiB: z.number().int().min(0).optional(),
    /** How time-sliced jobs are paused: `auto` picks cgroup v2, then cgroup v1 freezer, then SIGSTOP/SIGCONT. */
    freezer: z.enum(['auto', 'cgroup-v2', 'cgroup-v1', 'signals']).optional(),
    /** Signal a preemption victim receives to checkpoint and exit. Default SIGUSR1. */
    preemptionSignal: z.enum(['SIGUSR1', 'SIGUSR2', 'SIGTERM', 'SIGINT', 'SIGHUP']).optional(),
    /** Time a victim has to checkpoint and exit before it is killed, seconds. Default 30. */
    preemptionGraceSeconds: z.number().min(0).max(3600).optional(),
    /** A job must have run this long before it may be preempted, seconds. Default 0. */
    preemptionMinRunSeconds: z.number().min(0).optional(),
    /** Most times one job is preempted. Default 5. */
    maxPreemptionsPerJob: z.number().int().min(0).max(1000).optional(),
    /**
     * Value of the `node` label of the Prometheus metrics (docs/metrics.md), surrounding whitespace trimmed; not blank,
     * at most 253 characters. Default: the host name.
     */
    nodeName: z.string().trim().min(1, 'must not be blank').max(253).optional(),
    /**
     * How often GPU utilization and memory used are measured (nvidia-smi, or derived for simulated GPUs), seconds.
     * Default 5.
     */
    usagePollIntervalSeconds: z.number().min(0.05).max(3600).optional(),
    /**
     * Serve `GET /metrics` without a token (its series name every tenant's jobs). Default false: it needs an admin
     * token.
     */
    metricsOpen: z.boolean().optional(),
    /** Kept for configs of before: `true` is now the default; `false` is the same as `metricsOpen: true`. */
    metricsRequireToken: z.boolean().optional(),
    /**
     * Requests per second each non-admin token may make (a tenant's own value wins; admins are never throttled).
     * Default 20.
     */
    requestsPerSecond: z.number().gt(0).max(100_000).optional(),
    /** Requests a non-admin token may make at once above requestsPerSecond. Default 40. */
    requestBurst: z.number().int().min(1).max(100_000).optional(),
    /** Open event streams (`GET /api/v1/events`) per non-admin token (a tenant's own value wins). Default 4. */
    eventStreamsPerToken: z.number().int().min(0).max(1000).optional(),
    /** Open event streams per admin token. Default 16. */
    adminEventStreamsPerToken: z.number().int().min(0).max(1000).optional(),
    /** Open event streams in all, admins' included. Default 64. */
    eventStreamsTotal: z.number().int().min(0).max(100_000).optional(),
    /** A job's QoS target missed for this long is a violation, seconds (docs/qos.md). Default 60. */
    qosViolationSeconds: z.number().gt(0).max(86_400).optional(),
    /**
     * What the scheduler does for a job violating its QoS target: `isolate` (its GPUs take no new job of lower
     * priority) or `none`. Default isolate.
     */
    qosProtection: z.enum(['isolate', 'none']).optional(),
    /**
     * How often the dashboard's usage history (allocation and utilization over time) takes a sample, seconds. Default
     * 5.
     */
    usageHistoryIntervalSeconds: z.number().min(0.1).max(3600).optional(),
    /**
     * Run jobs without a sandbox, as the server's own user (docs/security.md); all tenants then trust each other.
     * Default false.
     */
    singleTenant: z.boolean().optional(),
    /** Uids tenants' jobs run under, `FIRST-LAST`, each tenant its own (docs/security.md). Default 200000-265535. */
    sandboxUidRange: z
      .string()
      .regex(/^\d+-\d+$/, 'must be FIRST-LAST, e.g. 200000-265535')
      .optional(),
    /** Uids chosen per tenant name (each >= 1000); other tenants get one from sandboxUidRange. */
    tenantUids: z.record(z.string(), z.number().int().min(1000)).optional(),
    /**
     * Where the GPUs' device nodes are (/dev/nvidiaN); default /dev, or for simulated GPUs stand-in files in the data
     * directory.
     */
    deviceRoot: z.string().startsWith('/', 'must be an absolute path').optional(),
    /**
     * The server's own TLS certificate (PEM file, may hold the chain); needs `tlsKey`. Default: a certificate of the
     * local CA in `<dataDir>/tls/` (docs/server.md).
     */
    tlsCert: z.string().min(1).optional(),
    /** The private key of `tlsCert` (PEM file). */
    tlsKey: z.string().min(1).optional(),
    /**
     * The CA certificate (PEM file) the CLI should trust for `tlsCert`; written into the CLI config. Default: none (the
     * CLI then uses the system's CAs).
     */
    tlsCa: z.string().min(1).optional(),
    /** Serve plain HTTP instead of HTTPS (tokens travel in clear text). Default false. */
    insecureHttp: z.boolean().optional(),
    /**
     * Most bytes kept of each attempt's stdout and of its stderr: the first half and the last half, the cut marked
     * (docs/processes.md). Default 64 MiB.
     */
    jobLogCapBytes: z.number().int().min(JOB_LOG_CAP_MIN_BYTES).max(JOB_LOG_CAP_MAX_BYTES).optional(),
    /**
     * Free space on the data directory's disk below which `/healthz` answers 503 and submits are refused (507
     * `disk-low`), MiB; 0 turns the check off. Default 256.
     */
    minFreeDiskMiB: z.number().int().min(0).max(1_048_576).optional(),
    /**
     * A shell command (run with `/bin/sh -c`) that receives each new audit head as a line `seq hash` on its standard
     * input, to keep it where the server's users cannot rewrite it (docs/security.md). Default: none.
     */
    auditAnchorCommand: z.string().trim().min(1, 'must not be blank').max(4096).optional(),
    ...JOB_HOST_LIMIT_KEYS,
  })
  .strict();
/** Contents of the YAML file. */
export type ServerConfigFile = z.infer<typeof ServerConfigFileSchema>;

/** Complete configuration, units in names. */
export interface ServerConfig {
  readonly port: number;
  readonly host: string;
  readonly dataDir: string;
  readonly simulateGpus: string | null;
  readonly timesliceOvercommitRatio: number;
  readonly timeslicePeriodMs: number;
  readonly monitorIntervalMs: number;
  readonly scheduleIntervalMs: number;
  /** Most job launches in flight at once (1-256; default 16). */
  readonly launchConcurrency: number;
  /** Placement policy (a name of the core's POLICY_NAMES; default `default`). */
  readonly policy: string;
  readonly stopGraceMs: number;
  readonly logRetentionMs: number;
  readonly healthPollIntervalMs: number;
  readonly hostCpuMilli: number;
  readonly hostMemoryMiB: number;
  readonly freezer: 'auto' | 'cgroup-v2' | 'cgroup-v1' | 'signals';
  readonly preemptionSignal: 'SIGUSR1' | 'SIGUSR2' | 'SIGTERM' | 'SIGINT' | 'SIGHUP';
  readonly preemptionGraceMs: number;
  readonly preemptionMinRunMs: number;
  readonly maxPreemptionsPerJob: number;
  /** `node` label of the metrics. */
  readonly nodeName: string;
  /** Interval between GPU usage measurements, ms. */
  readonly usagePollIntervalMs: number;
  /** `GET /metrics` is served without a token (else it needs an admin token). */
  readonly metricsOpen: boolean;
  /** Per-token request-rate and event-stream limits. */
  readonly apiLimits: {
    /** Requests per second per non-admin token. */
    readonly requestsPerSecond: number;
    /** Requests per non-admin token at once above the rate. */
    readonly requestBurst: number;
    readonly eventStreamsPerToken: number;
    readonly adminEventStreamsPerToken: number;
    readonly eventStreamsTotal: number;
  };
  /** A QoS target missed for this long is a violation, seconds. */
  readonly qosViolationSeconds: number;
  /** Scheduler reaction to a QoS violation. */
  readonly qosProtection: 'isolate' | 'none';
  /** Interval between usage-history samples, ms. */
  readonly usageHistoryIntervalMs: number;
  /** Jobs run unsandboxed as the server's user (`--single-tenant`). */
  readonly singleTenant: boolean;
  /** Uid range for tenants' jobs: first uid and how many. */
  readonly sandboxUidRange: { readonly first: number; readonly count: number };
  /** Uids chosen per tenant. */
  readonly tenantUids: Readonly<Record<string, number>>;
  /** Folder of the GPU device nodes; null: /dev for real GPUs, stand-in files for simulated ones. */
  readonly deviceRoot: string | null;
  /**
   * TLS: the local CA in `<dataDir>/tls/` (`local`), the given files (`files`, absolute paths), or plain HTTP (`off`).
   */
  readonly tls: ServerTlsConfig;
  /** Most bytes kept of each attempt's stdout and of its stderr (head and tail, the cut marked). */
  readonly jobLogCapBytes: number;
  /** Free space on the data directory's disk below which the server is unhealthy and refuses submits, MiB (0: off). */
  readonly minFreeDiskMiB: number;
  /** The shell command that receives each new audit head (`--audit-anchor-command`); null: none. */
  readonly auditAnchorCommand: string | null;
  /** The host limits every job gets by default (docs/processes.md "Host limits"); 0 = that limit off. */
  readonly jobHostLimits: JobHostLimitsConfig;
}

/**
 * Parses `FIRST-LAST` (inclusive). @throws Error naming sandboxUidRange unless 1000 <= FIRST <= LAST < 2^31
 */
export function parseUidRange(text: string): { first: number; count: number } {
  const match = /^(\d+)-(\d+)$/.exec(text.trim());
  const first = match ? Number(match[1]) : NaN;
  const last = match ? Number(match[2]) : NaN;
  if (!match || first < 1000 || last < first || last >= 2 ** 31) {
    throw new Error(`sandboxUidRange must be FIRST-LAST with 1000 <= FIRST <= LAST < 2147483648, got "${text}"`);
  }
  return { first, count: last - first + 1 };
}

/** How the server does TLS. */
export type ServerTlsConfig =
  | { readonly kind: 'local' }
  | { readonly kind: 'files'; readonly certFile: string; readonly keyFile: string; readonly caFile: string | null }
  | { readonly kind: 'off' };

/**
 * The TLS setting of merged settings.
 * @throws Error naming the keys when only one of tlsCert/tlsKey is given, tlsCa comes without
 *   them, or insecureHttp comes with any of them
 */
function resolveTls(merged: ServerConfigFile): ServerTlsConfig {
  const given = (['tlsCert', 'tlsKey', 'tlsCa'] as const).filter((k) => merged[k] !== undefined);
  if (merged.insecureHttp === true) {
    if (given.length > 0)
      throw new Error(
        `insecureHttp (--insecure-http) cannot be combined with ${given.join(', ')} (--tls-cert, ` +
          `--tls-key, --tls-ca): choose HTTPS or plain HTTP`,
      );
    return { kind: 'off' };
  }
  if (merged.tlsCert === undefined && merged.tlsKey === undefined) {
    if (merged.tlsCa !== undefined)
      throw new Error(
        'tlsCa (--tls-ca) needs tlsCert and tlsKey (--tls-cert, --tls-key): it names the CA of your own certificate',
      );
    return { kind: 'local' };
  }
  if (merged.tlsCert === undefined || merged.tlsKey === undefined)
    throw new Error('tlsCert and tlsKey (--tls-cert, --tls-key) must be given together');
  return {
    kind: 'files',
    certFile: resolve(merged.tlsCert),
    keyFile: resolve(merged.tlsKey),
    caFile: merged.tlsCa === undefined ? null : resolve(merged.tlsCa),
  };
}

/**
 * Whether `/metrics` is open: `metricsOpen`, or `metricsRequireToken: false` (its old spelling);
 * by default it needs an admin token. @throws Error naming both keys when they contradict
 */
function resolveMetricsOpen(merged: ServerConfigFile): boolean {
  if (merged.metricsOpen === true && merged.metricsRequireToken === true) {
    throw new Error(
      'metricsOpen (--metrics-open) and metricsRequireToken (--metrics-require-token) contradict each ' +
        'other: choose one',
    );
  }
  return merged.metricsOpen ?? merged.metricsRequireToken === false;
}

/** Default data directory: `$XDG_DATA_HOME/gpushare` or `~/.local/share/gpushare`. */
export function defaultDataDir(env: Readonly<Record<string, string | undefined>>): string {
  return join(env.XDG_DATA_HOME || join(env.HOME || homedir(), '.local', 'share'), 'gpushare');
}

/**
 * Parses a YAML config file's text. @throws Error naming the file and each bad key with its allowed values
 */
export function parseServerConfigFile(text: string, fileName: string): ServerConfigFile {
  let raw: unknown;
  try {
    raw = parseYaml(text) ?? {};
  } catch (error) {
    throw new Error(`${fileName}: not valid YAML: ${(error as Error).message}`);
  }
  const parsed = ServerConfigFileSchema.safeParse(raw);
  if (!parsed.success) {
    // A key breaking two checks (`port: -1.5`) gets the same range message twice: keep one.
    const messages = new Set(
      parsed.error.issues.map((i) => `${i.path.join('.') || '(top level)'}: ${issueMessage(i, raw)}`),
    );
    throw new Error(`${fileName}: ${[...messages].join('; ')}`);
  }
  return parsed.data;
}

/**
 * The message of one schema issue. A number out of range (or not whole where a whole number is
 * needed) names the key's whole allowed range, read from the schema, and the value given:
 * `must be between 0.05 and 3600, got 0`, `must be greater than 0 and at most 86400, got -1`,
 * `must be a whole number, at least 0, got 1.5`.
 */
function issueMessage(issue: z.ZodIssue, raw: unknown): string {
  const range =
    issue.code === 'too_small' ||
    issue.code === 'too_big' ||
    issue.code === 'not_finite' ||
    (issue.code === 'invalid_type' && issue.expected === 'integer');
  if (!range) return issue.message;
  const key = issue.path.length === 1 ? issue.path[0] : undefined;
  const field =
    typeof key === 'string' && Object.hasOwn(ServerConfigFileSchema.shape, key)
      ? ServerConfigFileSchema.shape[key as keyof ServerConfigFile]
      : undefined;
  const inner = field instanceof z.ZodOptional ? (field.unwrap() as z.ZodTypeAny) : field;
  if (!(inner instanceof z.ZodNumber)) return issue.message;
  const given = (raw as Record<string, unknown>)[key as string];
  return `must be ${numberRange(inner)}, got ${String(given)}`;
}

/**
 * The allowed values of a number schema in words: `between 1 and 16`, `greater than 0 and at most 86400`, `a whole
 * number between 0 and 65535`, `a whole number, at least 0`.
 */
function numberRange(schema: z.ZodNumber): string {
  let min: { value: number; inclusive: boolean } | null = null;
  let max: { value: number; inclusive: boolean } | null = null;
  for (const check of schema._def.checks) {
    if (
      check.kind === 'min' &&
      (min === null || check.value > min.value || (check.value === min.value && !check.inclusive))
    )
      min = { value: check.value, inclusive: check.inclusive };
    if (
      check.kind === 'max' &&
      (max === null || check.value < max.value || (check.value === max.value && !check.inclusive))
    )
      max = { value: check.value, inclusive: check.inclusive };
  }
  const bounds =
    min !== null && max !== null && min.inclusive && max.inclusive
      ? `between ${min.value} and ${max.value}`
      : [
          ...(min === null ? [] : [min.inclusive ? `at least ${min.value}` : `greater than ${min.value}`]),
          ...(max === null ? [] : [max.inclusive ? `at most ${max.value}` : `less than ${max.value}`]),
        ].join(' and ');
  if (!schema.isInt) return bounds === '' ? 'a number' : bounds;
  return bounds === ''
    ? 'a whole number'
    : bounds.startsWith('between')
      ? `a whole number ${bounds}`
      : `a whole number, ${bounds}`;
}

/**
 * Merges file and flag settings (flags win) over the defaults; `host.hostName` is the default `nodeName` (else
 * os.hostname()).
 * @throws Error naming the keys of a contradictory TLS setting (see `tls`) or metrics setting, or a default host
 *   memory above the memory offered
 */
export function resolveServerConfig(
  file: ServerConfigFile,
  flags: ServerConfigFile,
  host: {
    cpuMilli: number;
    hostMemoryMiB: number;
    env: Readonly<Record<string, string | undefined>>;
    hostName?: string;
  },
): ServerConfig {
  const merged: ServerConfigFile = {
    ...file,
    ...Object.fromEntries(Object.entries(flags).filter(([, v]) => v !== undefined)),
  };
  const hostMemoryMiB = merged.hostMemoryMiB ?? host.hostMemoryMiB;
  return {
    port: merged.port ?? 7070,
    host: merged.host ?? '127.0.0.1',
    dataDir: resolve(merged.dataDir ?? defaultDataDir(host.env)),
    simulateGpus: merged.simulateGpus ?? null,
    timesliceOvercommitRatio: merged.timesliceOvercommitRatio ?? 1,
    timeslicePeriodMs: merged.timeslicePeriodMs ?? 1000,
    monitorIntervalMs: merged.monitorIntervalMs ?? 200,
    scheduleIntervalMs: merged.scheduleIntervalMs ?? 1000,
    launchConcurrency: merged.launchConcurrency ?? 32,
    policy: merged.policy ?? 'default',
    stopGraceMs: Math.round((merged.stopGraceSeconds ?? 10) * 1000),
    logRetentionMs: Math.round((merged.logRetentionDays ?? 7) * 86_400_000),
    healthPollIntervalMs: Math.round((merged.healthPollIntervalSeconds ?? 10) * 1000),
    hostCpuMilli: merged.hostCpuMilli ?? host.cpuMilli,
    hostMemoryMiB,
    freezer: merged.freezer ?? 'auto',
    preemptionSignal: merged.preemptionSignal ?? 'SIGUSR1',
    preemptionGraceMs: Math.round((merged.preemptionGraceSeconds ?? 30) * 1000),
    preemptionMinRunMs: Math.round((merged.preemptionMinRunSeconds ?? 0) * 1000),
    maxPreemptionsPerJob: merged.maxPreemptionsPerJob ?? 5,
    nodeName: merged.nodeName ?? host.hostName ?? hostname(),
    usagePollIntervalMs: Math.round((merged.usagePollIntervalSeconds ?? 5) * 1000),
    metricsOpen: resolveMetricsOpen(merged),
    apiLimits: {
      requestsPerSecond: merged.requestsPerSecond ?? 20,
      requestBurst: merged.requestBurst ?? 40,
      eventStreamsPerToken: merged.eventStreamsPerToken ?? 4,
      adminEventStreamsPerToken: merged.adminEventStreamsPerToken ?? 16,
      eventStreamsTotal: merged.eventStreamsTotal ?? 64,
    },
    qosViolationSeconds: merged.qosViolationSeconds ?? 60,
    qosProtection: merged.qosProtection ?? 'isolate',
    usageHistoryIntervalMs: Math.round((merged.usageHistoryIntervalSeconds ?? 5) * 1000),
    singleTenant: merged.singleTenant ?? false,
    sandboxUidRange: parseUidRange(merged.sandboxUidRange ?? '200000-265535'),
    tenantUids: merged.tenantUids ?? {},
    deviceRoot: merged.deviceRoot ?? null,
    tls: resolveTls(merged),
    jobLogCapBytes: merged.jobLogCapBytes ?? DEFAULT_JOB_LOG_CAP_BYTES,
    minFreeDiskMiB: merged.minFreeDiskMiB ?? DEFAULT_MIN_FREE_DISK_MIB,
    auditAnchorCommand: merged.auditAnchorCommand ?? null,
    jobHostLimits: resolveJobHostLimits(merged, hostMemoryMiB),
  };
}
