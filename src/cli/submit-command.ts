/**
 * `gpushare submit [options] -- CMD ARGS...`: submits a job to the gpushare server, prints
 * `submitted job N (...)` and then the id alone on the last line; with `--wait` it follows the job
 * and exits with the job's exit status. Without `--workdir` the job runs in the current folder, or,
 * where the tenant's uid cannot write it (a sandboxed server), in a private one: a line between the
 * two says so and why (`workdir-not-writable`).
 */
import { resolve } from 'node:path';
import { Command, Option } from 'commander';
import type { ApiClient } from '../adapters/http-client/api-client.js';
import type { JobView, SubmitJobInput } from '../contract/api.js';
import { isTerminal, ISOLATION_LEVELS, SHARING_MODES, type IsolationLevel, type SharingMode } from '../core/index.js';
import { processIo, type CliIo } from './cli-io.js';
import { addConnectionOptions, connect, type ConnectionFlags } from './connection.js';
import { ExitWithCode, UsageError } from './exit-codes.js';
import { formatGpuRequest, jobReason } from '../contract/job-table.js';
import { formatJobEnd, jobExitStatus } from './format-jobs.js';
import { asArgParser, collect } from './option-parsers.js';
import { parseQosSeconds } from './report.js';
import {
  MAX_GPU_COUNT,
  MAX_RETRIES,
  parseCpuMilli,
  parseDurationSeconds,
  parseEnvPair,
  parseGpuShare,
  parseIntegerInRange,
  parseMemoryMiB,
  parsePriority,
  QuantityError,
  resolveGpuAmount,
  type GpuShare,
} from './parse-quantities.js';
import { escapeControlCharacters } from '../lib/control-characters.js';

/** How often `--wait` asks for the job's state, in milliseconds. */
export const WAIT_POLL_MS = 250;

/** Parsed options of `gpushare submit`. */
interface SubmitOptions extends ConnectionFlags {
  gpu?: GpuShare;
  gpuCount?: number;
  gpuMemory?: number;
  mode?: SharingMode;
  isolation?: IsolationLevel;
  priority?: SubmitJobInput['priority'];
  /** true: --preemptible, false: --no-preemptible, undefined: neither (the server decides). */
  preemptible?: boolean;
  tenant?: string;
  name?: string;
  timeLimit?: number;
  retries?: number;
  cpu?: number;
  hostMemory?: number;
  env?: string[];
  workdir?: string;
  privateWorkdir?: boolean;
  wait?: boolean;
  qosStepSeconds?: number;
  qosLatencySeconds?: number;
}

/**
 * Builds the submit body from the command and the parsed flags.
 * @param command - argv of the job (at least the program).
 * @param opts - Parsed flags.
 * @param cwd - Folder a relative `--workdir` (and the default) resolve against.
 * @throws UsageError for `--gpu N --gpu-count M` with N ≠ M, or a bad `--env` pair.
 */
export function buildSubmitBody(command: readonly string[], opts: SubmitOptions, cwd: string): SubmitJobInput {
  let environment: Record<string, string>;
  let amount;
  try {
    amount = resolveGpuAmount(opts.gpu, opts.gpuCount);
    environment = Object.fromEntries((opts.env ?? []).map(parseEnvPair));
  } catch (err) {
    if (err instanceof QuantityError) throw new UsageError(err.message);
    throw err;
  }
  if (opts.privateWorkdir === true && opts.workdir !== undefined)
    throw new UsageError('--private-workdir and --workdir exclude each other: choose one working folder');
  const program = command[0] ?? '';
  const body: SubmitJobInput = {
    // With a private working folder a relative program path means the current folder here.
    command:
      opts.privateWorkdir === true && program.includes('/')
        ? [resolve(cwd, program), ...command.slice(1)]
        : [...command],
    ...(opts.privateWorkdir === true ? {} : { workingDirectory: resolve(cwd, opts.workdir ?? '.') }),
    // The current folder, not one the user named: where the tenant cannot write it, a private one.
    ...(opts.privateWorkdir !== true && opts.workdir === undefined
      ? { workingDirectoryFallback: 'private' as const }
      : {}),
    environment,
    gpu: {
      gpuCount: amount.gpuCount,
      // Only --gpu-memory given: the server derives the compute share from the memory.
      ...(opts.gpu === undefined && opts.gpuMemory !== undefined ? {} : { gpuMilli: amount.gpuMilli }),
      ...(opts.gpuMemory !== undefined ? { gpuMemoryMiB: opts.gpuMemory } : {}),
      mode: opts.mode ?? 'auto',
      ...(opts.isolation !== undefined ? { isolation: opts.isolation } : {}),
    },
  };
  if (opts.tenant !== undefined) body.tenant = opts.tenant;
  if (opts.name !== undefined) body.name = opts.name;
  if (opts.priority !== undefined) body.priority = opts.priority;
  if (opts.preemptible !== undefined) body.preemptible = opts.preemptible;
  if (opts.timeLimit !== undefined) body.timeLimitSeconds = opts.timeLimit;
  if (opts.retries !== undefined) body.retries = opts.retries;
  if (opts.cpu !== undefined) body.cpuMilli = opts.cpu;
  if (opts.hostMemory !== undefined) body.hostMemoryMiB = opts.hostMemory;
  if (opts.qosStepSeconds !== undefined || opts.qosLatencySeconds !== undefined) {
    body.qos = {
      ...(opts.qosStepSeconds !== undefined && { stepSeconds: opts.qosStepSeconds }),
      ...(opts.qosLatencySeconds !== undefined && { latencySeconds: opts.qosLatencySeconds }),
    };
  }
  return body;
}

/**
 * One line about a job's progress while waiting, e.g. `job 12: running on GPU 0, 3`, or
 * `job 12: running (attempt 2) on GPU 0` for a retry or a resume after preemption (the attempt is
 * named while it runs, from the second on), then the reason in parentheses unless it only says
 * that the attempt started.
 */
export function progressLine(job: JobView): string {
  const where =
    job.placement !== null && job.state !== 'pending'
      ? ` on GPU ${job.placement.gpus.map((g) => g.index).join(', ')}`
      : '';
  const attempt = job.state === 'running' && job.attempt > 1 ? ` (attempt ${job.attempt})` : '';
  const reason = jobReason(job);
  return `job ${job.id}: ${job.state}${attempt}${where}${reason !== null ? ` (${reason})` : ''}`;
}

/**
 * Polls the job every {@link WAIT_POLL_MS} ms until it is terminal, reporting on stderr each change
 * of state, placement, reason or (while running) attempt, so a retry shows even when the poll
 * missed the pending state between two attempts.
 * @returns The terminal job.
 */
export async function waitForJob(client: ApiClient, id: number, io: CliIo): Promise<JobView> {
  let last = '';
  while (true) {
    const job = await client.getJob(id);
    const line = progressLine(job);
    if (isTerminal(job.state)) return job;
    if (line !== last) io.stderr(`${escapeControlCharacters(line)}\n`);
    last = line;
    await io.sleep(WAIT_POLL_MS);
  }
}

async function submit(command: string[], opts: SubmitOptions, io: CliIo): Promise<void> {
  // Unknown options are let through for the job's own flags (`submit python -c ...`); one before
  // the program is a mistyped gpushare flag.
  const first = command[0] ?? '';
  if (first.startsWith('-')) {
    throw new UsageError(
      `unknown option '${first}' (see \`gpushare submit --help\`; put the job's command after --: ` +
        `gpushare submit [options] -- CMD ARGS...)`,
    );
  }
  const body = buildSubmitBody(command, opts, io.cwd());
  const client = await connect(opts, io);
  const job = await client.submitJob(body);
  io.stdout(`submitted job ${job.id} (gpu ${formatGpuRequest(job.gpu)}, mode ${job.gpu.mode})\n`);
  if (body.workingDirectory !== undefined && job.workingDirectory === null) {
    // It fell back to a private working directory (in the job's folder on the server): say so and why.
    const why = (await client.getJob(job.id)).workingDirectoryReason;
    io.stdout(
      `note: ${why ? `${escapeControlCharacters(why.reason)} [${why.code}]` : 'runs in a private working directory'}\n`,
    );
  }
  io.stdout(`${job.id}\n`);
  if (!opts.wait) return;
  const done = await waitForJob(client, job.id, io);
  io.stderr(`${formatJobEnd(done)}\n`);
  const status = jobExitStatus(done);
  if (status !== 0) throw new ExitWithCode(status);
}

/**
 * Builds the `submit` subcommand. Bad flag values are commander errors (exit 2) naming the flag
 * and the allowed values; the action rejects with UsageError, ApiError, ApiUnreachableError, or
 * ExitWithCode (`--wait` with a job that did not succeed).
 * @param io - Output, environment and clock (default: the real process).
 * @returns A fresh Command.
 */
export function createSubmitCommand(io: CliIo = processIo()): Command {
  const command = new Command('submit')
    .description("submit a job to the gpushare server; put the job's command after --")
    .usage('[options] -- CMD [ARGS...]')
    .argument('<command...>', 'the program to run and its arguments')
    .allowUnknownOption()
    .addOption(
      new Option(
        '--gpu <share>',
        'a fraction of one GPU in (0,1] (0.5 = half a GPU) or a whole number of GPUs (2)',
      ).argParser(asArgParser(parseGpuShare)),
    )
    .addOption(
      new Option('--gpu-count <n>', `number of GPUs, 1..${MAX_GPU_COUNT}, each with the --gpu share`).argParser(
        asArgParser((t) => parseIntegerInRange('--gpu-count', t, 1, MAX_GPU_COUNT)),
      ),
    )
    .addOption(
      new Option(
        '--gpu-memory <size>',
        'device memory per GPU: MiB, or with unit MiB/GiB (20GiB); default: in proportion to the share',
      ).argParser(asArgParser((t) => parseMemoryMiB('--gpu-memory', t))),
    )
    .addOption(new Option('--mode <mode>', 'sharing mode').choices(SHARING_MODES))
    .addOption(
      new Option(
        '--isolation <level>',
        'for --mode auto: strict (MIG instance, else whole GPUs), standard (MPS, the default), none (time-slicing)',
      ).choices(ISOLATION_LEVELS),
    )
    .addOption(
      new Option(
        '--priority <class-or-n>',
        'low, normal, high, critical, or an integer 0..1000000 (higher first)',
      ).argParser(asArgParser(parsePriority)),
    )
    .addOption(
      new Option(
        '--preemptible',
        'may be preempted (checkpoint protocol) for a more important job (default: yes below priority high)',
      ),
    )
    .addOption(
      new Option(
        '--no-preemptible',
        'not preempted for a more important job (while its tenant borrows above its guarantee it may ' +
          'still be reclaimed)',
      ),
    )
    .addOption(
      new Option(
        '--tenant <tenant>',
        'owner tenant (default: the token\'s tenant; for an admin token, tenant "default")',
      ),
    )
    .addOption(new Option('--name <name>', 'display name (default: the program name)'))
    .addOption(
      new Option('--time-limit <duration>', 'wall-clock limit per attempt: 90, 90s, 15m, 2h, 1h30m, 1d').argParser(
        asArgParser((t) => parseDurationSeconds(t)),
      ),
    )
    .addOption(
      new Option('--retries <n>', `retries of a failed attempt, 0..${MAX_RETRIES}`).argParser(
        asArgParser((t) => parseIntegerInRange('--retries', t, 0, MAX_RETRIES)),
      ),
    )
    .addOption(
      new Option('--cpu <cores>', 'host CPU: cores (2, 0.5) or milli-cores (500m)').argParser(
        asArgParser(parseCpuMilli),
      ),
    )
    .addOption(
      new Option('--host-memory <size>', 'host memory: MiB, or with unit MiB/GiB').argParser(
        asArgParser((t) => parseMemoryMiB('--host-memory', t, 0)),
      ),
    )
    .addOption(new Option('--env <key=value>', 'environment variable for the job (repeatable)').argParser(collect))
    .addOption(
      new Option(
        '--workdir <dir>',
        'working folder of the job; it must be one the job may use (default: the current folder, or a private ' +
          "one when the tenant's uid cannot write it)",
      ),
    )
    .addOption(
      new Option(
        '--private-workdir',
        "run in a private working folder of the job's own on the server (without --workdir a sandboxed " +
          "server picks one itself when the current folder is not the tenant's to write)",
      ),
    )
    .addOption(new Option('--wait', 'follow the job until it ends and exit with its exit status'))
    .addOption(
      new Option(
        '--qos-step-seconds <s>',
        'QoS target: seconds per training step; the job reports with `gpushare report` (docs/qos.md)',
      ).argParser((t) => parseQosSeconds('--qos-step-seconds', t)),
    )
    .addOption(
      new Option('--qos-latency-seconds <s>', 'QoS target: seconds per request').argParser((t) =>
        parseQosSeconds('--qos-latency-seconds', t),
      ),
    )
    .action((args: string[], opts: SubmitOptions) => submit(args, opts, io));
  return addConnectionOptions(command);
}
