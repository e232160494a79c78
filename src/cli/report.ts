/**
 * `gpushare report --step-seconds 0.62` (and/or `--latency-seconds 0.2`): a running job reports its
 * progress against its QoS targets (docs/qos.md); `--gpu-memory-used 10GiB` and `--gpu-util 70` report
 * the GPU memory and utilization it uses, which any running job may (they raise its usage peak, docs/server.md
 * "Measured peaks"). It needs no configuration inside a job: the
 * server, the job id, the job's report token and the CA of the server's certificate come from
 * GPUSHARE_URL, GPUSHARE_JOB_ID, GPUSHARE_JOB_TOKEN and GPUSHARE_CA_CERT, which gpushare sets for
 * every attempt; `--url`, `--job`, `--token` and `--ca FILE` (or GPUSHARE_CA_FILE) override them. Exit 0 on success, 1
 * with the server's message when it refuses the report (for a
 * refused token with a hint about --token / GPUSHARE_JOB_TOKEN), 2 for
 * a usage error (a missing variable is named), 3 when the server cannot be reached.
 */
import { Command, InvalidArgumentError, Option } from 'commander';
import { createApiClient, normalizeBaseUrl } from '../adapters/http-client/api-client.js';
import { ApiError } from '../adapters/http-client/api-errors.js';
import {
  MAX_REPORTED_GPU_MEMORY_MIB,
  type QosReportBody,
  type QosReportResult,
  type QosStatusView,
} from '../contract/api.js';
import { processIo, type CliIo } from './cli-io.js';
import { UsageError } from './exit-codes.js';
import { parseJobId } from './option-parsers.js';
import { parseMemoryMiB } from './parse-quantities.js';
import { caFromFlagOrEnv, type ServerCa } from './server-ca.js';

/** Longest QoS target or report value, seconds (one day). */
export const MAX_QOS_SECONDS = 86_400;

/**
 * Parses a QoS duration in seconds: a positive decimal number up to one day (`0.5`, `12`, `5e-1`).
 * A number out of range is named as such (`must be greater than 0 and at most 86400, got '0'`); only
 * text that is no decimal number (`abc`, `NaN`, `Infinity`, empty) is "not a number of seconds".
 * @param flag the flag, for the message
 * @throws InvalidArgumentError naming the flag and the allowed values
 */
export function parseQosSeconds(flag: string, text: string): number {
  if (!/^\s*[-+]?(\d+(\.\d*)?|\.\d+)([eE][-+]?\d+)?\s*$/.test(text)) {
    throw new InvalidArgumentError(
      `${flag}: '${text}' is not a number of seconds; expected a positive number up to ${MAX_QOS_SECONDS} (e.g. 0.5)`,
    );
  }
  const value = Number(text);
  // 1e999 parses as Infinity: too big, like 86401.
  if (value <= 0 || value > MAX_QOS_SECONDS)
    throw new InvalidArgumentError(`${flag}: must be greater than 0 and at most ${MAX_QOS_SECONDS}, got '${text}'`);
  return value;
}

/**
 * Parses `--gpu-util`: a percentage from 0 to 100 (`70`, `72.5`).
 * @throws InvalidArgumentError naming the flag and the allowed values
 */
export function parseUtilizationPct(text: string): number {
  const value = /^\s*(\d+(\.\d*)?|\.\d+)\s*%?\s*$/.test(text) ? Number(text.trim().replace(/%$/, '')) : Number.NaN;
  if (!(value >= 0 && value <= 100))
    throw new InvalidArgumentError(`--gpu-util: expected a percentage from 0 to 100 (e.g. 72.5), got '${text}'`);
  return value;
}

/**
 * Parses `--gpu-memory-used`: MiB or GiB (`10240`, `10GiB`), 0 to 1 TiB.
 * @throws InvalidArgumentError naming the flag and the allowed values
 */
export function parseGpuMemoryUsed(text: string): number {
  let mib: number;
  try {
    mib = parseMemoryMiB('--gpu-memory-used', text, 0);
  } catch (err) {
    throw new InvalidArgumentError(err instanceof Error ? err.message : String(err));
  }
  if (mib > MAX_REPORTED_GPU_MEMORY_MIB)
    throw new InvalidArgumentError(
      `--gpu-memory-used: at most ${MAX_REPORTED_GPU_MEMORY_MIB} MiB (1 TiB), got '${text}'`,
    );
  return mib;
}

/** Parsed options of `gpushare report`. */
interface ReportOptions {
  stepSeconds?: number;
  latencySeconds?: number;
  gpuMemoryUsed?: number;
  gpuUtil?: number;
  job?: number;
  url?: string;
  token?: string;
  ca?: string;
}

/** One line per target of the answer: `job 7 step: latest 0.62 s, target 0.5 s, violating (1 violation so far)`. */
export function formatQosStatus(jobId: number, status: readonly QosStatusView[]): string {
  return status
    .map((s) => {
      const latest = s.lastObservedSeconds === null ? 'no report yet' : `latest ${s.lastObservedSeconds} s`;
      const state = s.violating ? 'violating' : s.missingSince !== null ? `missing since ${s.missingSince}` : 'met';
      return (
        `job ${jobId} ${s.kind}: ${latest}, target ${s.targetSeconds} s, ${state} (${s.violations} ` +
        `violation${s.violations === 1 ? '' : 's'} so far)\n`
      );
    })
    .join('');
}

/**
 * The usage peak line of an answer: `job 7 usage peak: 10240 MiB GPU memory, 72.5% utilization (raised by this
 * report)`; `-` for a value never measured.
 */
export function formatUsagePeak(answer: QosReportResult): string {
  const peak = answer.usagePeak;
  const memory = peak?.gpuMemoryMiB == null ? '-' : `${peak.gpuMemoryMiB} MiB`;
  const utilization = peak?.gpuUtilizationPct == null ? '-' : `${peak.gpuUtilizationPct}%`;
  return (
    `job ${answer.jobId} usage peak: ${memory} GPU memory, ${utilization} utilization ` +
    `(${answer.peakRaised ? 'raised by this report' : 'unchanged'})\n`
  );
}

/**
 * Resolves server, job, token and (for an https URL) the CA: flags first, then the job's environment.
 * @throws UsageError naming the missing variable, or a malformed value
 */
export function resolveReportTarget(
  opts: ReportOptions,
  env: Readonly<Record<string, string | undefined>>,
): { url: string; jobId: number; token: string; ca: ServerCa | null } {
  const need = (flag: string, name: string, value: string | undefined): string => {
    const text = value ?? env[name];
    if (text === undefined || text.trim() === '')
      throw new UsageError(`${name} is not set: gpushare sets it for every job; outside a job pass ${flag}`);
    return text.trim();
  };
  const rawUrl = need('--url', 'GPUSHARE_URL', opts.url);
  let url: string;
  try {
    url = normalizeBaseUrl(rawUrl);
  } catch (err) {
    throw new UsageError(`--url / GPUSHARE_URL: ${err instanceof Error ? err.message : String(err)}`);
  }
  let jobId = opts.job;
  if (jobId === undefined) {
    const text = need('--job', 'GPUSHARE_JOB_ID', undefined);
    try {
      jobId = parseJobId(text);
    } catch (err) {
      throw new UsageError(`GPUSHARE_JOB_ID: ${err instanceof Error ? err.message : String(err)}`);
    }
  }
  const token = need('--token', 'GPUSHARE_JOB_TOKEN', opts.token);
  return { url, jobId, token, ca: url.startsWith('https:') ? caFromFlagOrEnv(opts.ca, env) : null };
}

async function report(opts: ReportOptions, io: CliIo): Promise<void> {
  const usage = opts.gpuMemoryUsed !== undefined || opts.gpuUtil !== undefined;
  if (opts.stepSeconds === undefined && opts.latencySeconds === undefined && !usage)
    throw new UsageError('report needs --step-seconds, --latency-seconds, --gpu-memory-used or --gpu-util');
  const { url, jobId, token, ca } = resolveReportTarget(opts, io.env);
  const hint =
    ca === null
      ? 'no CA is given: gpushare sets GPUSHARE_CA_CERT for every job; outside a job pass --ca FILE or set ' +
        'GPUSHARE_CA_FILE'
      : `it was checked against the CA from ${ca.source}; pass --ca FILE with this server's CA`;
  const body: QosReportBody = {
    ...(opts.stepSeconds !== undefined && { stepSeconds: opts.stepSeconds }),
    ...(opts.latencySeconds !== undefined && { latencySeconds: opts.latencySeconds }),
    ...(opts.gpuMemoryUsed !== undefined && { gpuMemoryUsedMiB: opts.gpuMemoryUsed }),
    ...(opts.gpuUtil !== undefined && { gpuUtilizationPct: opts.gpuUtil }),
  };
  let answer;
  try {
    answer = await createApiClient({
      url,
      token,
      fetch: io.fetch,
      ca: ca?.pem ?? null,
      certificateHint: hint,
    }).reportQos(jobId, body);
  } catch (err) {
    if (err instanceof ApiError && err.status === 401) throw new ReportTokenError(err.message);
    throw err;
  }
  io.stdout(formatQosStatus(answer.jobId, answer.status) + (usage ? formatUsagePeak(answer) : ''));
}

/**
 * The server refused `report`'s token (401). Its message gets a hint about where `report` reads its
 * token (not the CLI config file or GPUSHARE_TOKEN, which other commands read); exit 1 like any
 * refused call.
 */
export class ReportTokenError extends Error {
  constructor(serverMessage: string) {
    // The server's "unknown token" already says that a job's token ends with its attempt.
    const ends = /attempt ends/.test(serverMessage) ? '' : "; a job's token stops working when its attempt ends";
    super(`${serverMessage} (check --token or GPUSHARE_JOB_TOKEN${ends})`);
    this.name = 'ReportTokenError';
  }
}

/**
 * Builds the `report` subcommand.
 * @param io - Output, environment and clock (default: the real process).
 * @returns A fresh Command.
 */
export function createReportCommand(io: CliIo = processIo()): Command {
  return new Command('report')
    .description(
      "report a running job's progress against its QoS targets, or the GPU memory and utilization it uses " +
        '(inside a job: no configuration needed)',
    )
    .addOption(
      new Option('--step-seconds <s>', 'seconds the last training step took').argParser((t) =>
        parseQosSeconds('--step-seconds', t),
      ),
    )
    .addOption(
      new Option('--latency-seconds <s>', 'seconds a request took (e.g. a recent p99)').argParser((t) =>
        parseQosSeconds('--latency-seconds', t),
      ),
    )
    .addOption(
      new Option(
        '--gpu-memory-used <size>',
        'device memory the job uses now on the GPU where it uses most: MiB or GiB (10240, 10GiB)',
      ).argParser(parseGpuMemoryUsed),
    )
    .addOption(
      new Option('--gpu-util <percent>', 'GPU utilization the job sees now, 0-100').argParser(parseUtilizationPct),
    )
    .addOption(new Option('--job <id>', 'job id (default: $GPUSHARE_JOB_ID)').argParser(parseJobId))
    .addOption(new Option('--url <url>', 'server base URL (default: $GPUSHARE_URL)'))
    .addOption(
      new Option(
        '--token <token>',
        "the job's report token, its tenant's token or an admin token (default: $GPUSHARE_JOB_TOKEN)",
      ),
    )
    .addOption(
      new Option(
        '--ca <file>',
        'CA certificate (PEM) of an https server (default: $GPUSHARE_CA_FILE, then $GPUSHARE_CA_CERT)',
      ),
    )
    .action((opts: ReportOptions) => report(opts, io));
}
