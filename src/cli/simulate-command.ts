/**
 * `gpushare simulate`: replays an Alibaba GPU trace with each policy and seed — the FGD paper's
 * packing protocol (`--replay packing`), or over simulated time with queueing, departures and
 * preemption (`--replay timeline`) — prints summary tables and optionally writes JSON and an HTML
 * report.
 */
import { availableParallelism } from 'node:os';
import { isAbsolute, relative, resolve } from 'node:path';
import { Command, InvalidArgumentError, Option } from 'commander';
import { POLICY_NAMES } from '../core/index.js';
import { UnknownPolicyError } from '../sim/packing-replay.js';
import { formatProgressBar, formatSummaryTable } from '../sim/report/console-table.js';
import { formatSeeds } from '../sim/report/html-escape.js';
import { renderHtmlReport } from '../sim/report/html-report.js';
import { formatTimelineTables } from '../sim/report/timeline-console-table.js';
import { renderTimelineHtmlReport } from '../sim/report/timeline-html-report.js';
import { runGrid } from '../sim/run-grid.js';
import { runTimelineGrid } from '../sim/timeline/run-timeline.js';
import { UsageError } from './exit-codes.js';
import { checkOutputPath, shippedTraceFile, writeAtomically } from './output-files.js';
import { decimal, optionGiven, parsePositiveSeconds, parseSeconds, positiveDecimal } from './option-parsers.js';
import { parseSeeds } from './parse-seeds.js';
import { checkHybridFlags, parseGpuModel, parseSharingList, simulateHybrid } from './simulate-hybrid.js';
import { checkPoolFlags, parseUtilization, simulatePool } from './simulate-pool.js';
import {
  boundLines,
  checkBoundFlags,
  DEFAULT_BOUND_LEVELS,
  parseBoundLevels,
  withPackingBound,
  type LoadLinearProgramSolver,
} from './simulate-bound.js';
import type { SharingSetting } from '../sim/hybrid/pod-mode.js';

const MAX_INFLATION = 10;
const MAX_GPUS = 1_000_000;
const REPLAY_MODES = ['packing', 'timeline'] as const;
const WORKLOAD_SOURCES = ['trace', 'online'] as const;
const ON_OFF = ['on', 'off'] as const;
/** Flags that only `--replay timeline` reads, and those only `--replay packing` reads. */
const TIMELINE_ONLY = ['arrivalSpeedup', 'gpus', 'preemption', 'checkpointInterval'] as const;
const PACKING_ONLY = ['inflation', 'workers', 'bound', 'boundLevels'] as const;
const FLAG_NAMES: Readonly<Record<string, string>> = {
  arrivalSpeedup: '--arrival-speedup',
  gpus: '--gpus',
  preemption: '--preemption',
  checkpointInterval: '--checkpoint-interval',
  inflation: '--inflation',
  workers: '--workers',
  bound: '--bound',
  boundLevels: '--bound-levels',
};

/** Parsed options of `gpushare simulate`. */
interface SimulateOptions {
  nodes: string;
  pods: string;
  policy: string[];
  seeds: number[];
  inflation: number;
  json?: string;
  report?: string;
  workers: number;
  replay: (typeof REPLAY_MODES)[number];
  workload: (typeof WORKLOAD_SOURCES)[number];
  arrivalSpeedup: number;
  gpus?: number;
  preemption: (typeof ON_OFF)[number];
  checkpointInterval: number;
  /** `--sharing`: hybrid sharing settings (packing only; with `--gpu-model`). */
  sharing?: SharingSetting[];
  /** `--gpu-model`: the catalog model every GPU gets (with `--sharing`). */
  gpuModel?: string;
  /** `--tenants`: tenants the pods are spread over (with `--sharing`). */
  tenants?: number;
  /** `--mps-any-tenant`: turn the one-tenant-per-MPS-GPU rule off (with `--sharing`). */
  mpsAnyTenant?: boolean;
  /** `--pool-report` and its flags (src/cli/simulate-pool.ts). */
  poolReport?: boolean;
  waitTarget?: number;
  bootSeconds?: number;
  autoscaleInterval?: number;
  scaleUpWait?: number;
  scaleDownUtilization?: number;
  hostPrices?: (typeof ON_OFF)[number];
  /** `--bound`: compute the packing bound beside the policies (packing only). */
  bound?: boolean;
  /** `--bound-levels`: arrival levels of the bound, % of capacity. */
  boundLevels: number[];
}

/** `--policy`: a comma list of registered names, or `all`. */
function parsePolicyList(text: string): string[] {
  const allowed = `allowed: ${POLICY_NAMES.join(', ')}, all`;
  const items = text.split(',').map((s) => s.trim());
  if (items.length === 1 && items[0] === 'all') return [...POLICY_NAMES];
  if (items.some((s) => s === '')) throw new InvalidArgumentError(`empty policy name; ${allowed}`);
  if (items.includes('all')) throw new InvalidArgumentError(`'all' cannot be combined with other policies; ${allowed}`);
  for (const item of items)
    if (!POLICY_NAMES.includes(item)) throw new InvalidArgumentError(new UnknownPolicyError(item).message);
  const twice = items.find((s, i) => items.indexOf(s) !== i);
  if (twice !== undefined) throw new InvalidArgumentError(`policy '${twice}' is listed twice; ${allowed}`);
  return items;
}

/** `--seeds`: see parseSeeds. */
function parseSeedOption(text: string): number[] {
  try {
    return parseSeeds(text);
  } catch (err) {
    throw new InvalidArgumentError(err instanceof Error ? err.message : String(err));
  }
}

/** `--inflation`: a decimal number in (0, 10]. */
function parseInflation(text: string): number {
  const value = decimal(text);
  if (!(value > 0 && value <= MAX_INFLATION)) {
    throw new InvalidArgumentError(`expected a decimal number > 0 and <= ${MAX_INFLATION} (e.g. 1.3)`);
  }
  return value;
}

/** `--workers`: an integer >= 1. */
function parseWorkers(text: string): number {
  const value = /^\d+$/.test(text.trim()) ? Number(text) : Number.NaN;
  if (!Number.isSafeInteger(value) || value < 1) throw new InvalidArgumentError('expected an integer >= 1');
  return value;
}

/** `--arrival-speedup`: a decimal number > 0. */
function parseArrivalSpeedup(text: string): number {
  const value = positiveDecimal(text);
  if (Number.isNaN(value))
    throw new InvalidArgumentError('expected a decimal number > 0 (e.g. 4: arrival gaps divided by 4)');
  return value;
}

/** `--checkpoint-interval`: seconds, a decimal number > 0. */
function parseCheckpointInterval(text: string): number {
  const value = positiveDecimal(text);
  if (Number.isNaN(value)) throw new InvalidArgumentError('expected a number of seconds > 0 (e.g. 1800)');
  return value;
}

/** `--tenants`: an integer in 1..1000. */
function parseTenants(text: string): number {
  const value = /^\d+$/.test(text.trim()) ? Number(text) : Number.NaN;
  if (!Number.isSafeInteger(value) || value < 1 || value > 1000)
    throw new InvalidArgumentError('expected a whole number of tenants in 1..1000');
  return value;
}

/** `--gpus`: an integer in 1..MAX_GPUS. */
function parseGpus(text: string): number {
  const value = /^\d+$/.test(text.trim()) ? Number(text) : Number.NaN;
  if (!Number.isSafeInteger(value) || value < 1 || value > MAX_GPUS)
    throw new InvalidArgumentError(`expected a whole number of GPUs in 1..${MAX_GPUS}`);
  return value;
}

/** A path relative to the working folder when it lies inside it, else as given. */
function displayPath(path: string): string {
  const rel = relative(process.cwd(), path);
  return rel !== '' && !rel.startsWith('..') && !isAbsolute(rel) ? rel : path;
}

/** Fails with a UsageError when `--json` and `--report` clash, or early when either cannot be written. */
async function checkOutputs(opts: SimulateOptions): Promise<void> {
  if (opts.json !== undefined && opts.report !== undefined && resolve(opts.json) === resolve(opts.report)) {
    throw new UsageError(`--json and --report name the same file (${opts.json}); give each its own path`);
  }
  if (opts.json !== undefined) await checkOutputPath('--json', opts.json);
  if (opts.report !== undefined) await checkOutputPath('--report', opts.report);
}

/**
 * Checks the flag combinations of the chosen replay.
 * @throws UsageError for flags of the other replay mode, or `--gpus` with `--nodes`
 */
function checkReplayFlags(opts: SimulateOptions, command: Command): void {
  const given = (key: string): boolean => optionGiven(command, key);
  const foreign = (opts.replay === 'timeline' ? PACKING_ONLY : TIMELINE_ONLY).filter(given).map((k) => FLAG_NAMES[k]);
  if (foreign.length > 0) {
    const other = opts.replay === 'timeline' ? 'packing' : 'timeline';
    throw new UsageError(
      `${foreign.join(', ')} ${foreign.length > 1 ? 'apply' : 'applies'} to --replay ${other} only, not ` +
        `--replay ${opts.replay}; ` +
        (`allowed with --replay ${opts.replay}: ` +
          `${(opts.replay === 'timeline' ? TIMELINE_ONLY : PACKING_ONLY).map((k) => FLAG_NAMES[k]).join(', ')}`),
    );
  }
  if (opts.gpus !== undefined && given('nodes')) {
    throw new UsageError(
      '--gpus and --nodes are exclusive: --gpus samples a cluster of N GPUs from the shipped node list; ' +
        '--nodes uses a node list as given',
    );
  }
}

async function simulateTimeline(opts: SimulateOptions, policies: readonly string[]): Promise<void> {
  await checkOutputs(opts);
  const tty = process.stderr.isTTY === true;
  const started = performance.now();
  if (tty) process.stderr.write(`\r${formatProgressBar(0, policies.length * opts.seeds.length, 30, '')}`);
  let report;
  try {
    report = await runTimelineGrid({
      nodesFile: opts.nodes,
      podsFile: opts.pods,
      policies,
      seeds: opts.seeds,
      arrivalSpeedup: opts.arrivalSpeedup,
      gpus: opts.gpus ?? null,
      preemption: opts.preemption === 'on',
      checkpointIntervalSeconds: opts.checkpointInterval,
      workloadSource: opts.workload,
      onProgress: tty
        ? (done, all, last) =>
            process.stderr.write(`\r${formatProgressBar(done, all, 30, `${last.policy} seed ${last.seed}`)}\x1b[K`)
        : undefined,
    });
  } finally {
    if (tty) process.stderr.write('\n');
  }
  const { inputs, cluster, settings } = report;
  const clusterText =
    cluster.source === 'sampled'
      ? `${cluster.gpus} GPUs sampled per seed from ${displayPath(opts.nodes)}`
      : `${displayPath(opts.nodes)}: ${cluster.nodes} nodes, ${cluster.gpus} GPUs`;
  const loads = report.summary.map(
    (p) =>
      `${p.offeredLoadPct === null ? 'n/a' : `${p.offeredLoadPct.mean.toFixed(1)}%`}` +
      `${report.summary.length > 1 ? ` (${p.policy})` : ''}`,
  );
  const lines = [
    `${displayPath(opts.pods)} on ${clusterText}; replay timeline, policy ${policies.join(',')}, seeds ` +
      `${formatSeeds(opts.seeds)}, ` +
      (`arrival speedup ${settings.arrivalSpeedup}, preemption ${opts.preemption}, checkpoint every ` +
        `${settings.checkpointIntervalSeconds} s, workload of default: ${settings.workloadSource}`),
    `${inputs.pods} pods: ${inputs.timedPods} replayed, ${inputs.skippedMissingTimes} skipped without ` +
      `creation/scheduled/deletion time, ` +
      `${inputs.skippedNegativeDuration} skipped with deletion_time < scheduled_time`,
    `${report.offeredLoadDefinition}: ${loads.join(', ')} (mean over seeds)`,
    '',
    formatTimelineTables(report),
    '',
    `${report.runs.length} runs in ${((performance.now() - started) / 1000).toFixed(1)} s (sequential)`,
  ];
  if (opts.json !== undefined) {
    await writeAtomically('--json', opts.json, `${JSON.stringify(report, null, 2)}\n`);
    lines.push(`JSON results written to ${opts.json}`);
  }
  if (opts.report !== undefined) {
    await writeAtomically('--report', opts.report, renderTimelineHtmlReport(report));
    lines.push(`HTML report written to ${opts.report}`);
  }
  process.stdout.write(`${lines.join('\n')}\n`);
}

async function simulate(opts: SimulateOptions, command: Command, loadSolver?: LoadLinearProgramSolver): Promise<void> {
  checkReplayFlags(opts, command);
  checkBoundFlags(opts, optionGiven(command, 'boundLevels'));
  checkPoolFlags(opts, command);
  if (opts.sharing === undefined && (opts.tenants !== undefined || opts.mpsAnyTenant !== undefined)) {
    throw new UsageError(`${opts.tenants !== undefined ? '--tenants' : '--mps-any-tenant'} applies to --sharing only`);
  }
  if (opts.sharing !== undefined || opts.gpuModel !== undefined) {
    checkHybridFlags(opts, command); // refuses --replay timeline, so --pool-report too
    await checkOutputs(opts);
    await simulateHybrid(opts, displayPath);
    return;
  }
  if (opts.poolReport === true) {
    await checkOutputs(opts);
    await simulatePool(opts, command, displayPath);
    return;
  }
  if (opts.replay === 'timeline') {
    const policyGiven = command.getOptionValueSource('policy') !== 'default';
    await simulateTimeline(opts, policyGiven ? opts.policy : ['default']);
    return;
  }
  await checkOutputs(opts);
  const tty = process.stderr.isTTY === true;
  const total = opts.policy.length * opts.seeds.length;
  const started = performance.now();
  if (tty) process.stderr.write(`\r${formatProgressBar(0, total, 30, '')}`);
  let report;
  try {
    report = await runGrid({
      nodesFile: opts.nodes,
      podsFile: opts.pods,
      policies: opts.policy,
      seeds: opts.seeds,
      inflation: opts.inflation,
      workloadSource: opts.workload,
      workers: opts.workers,
      onProgress: tty
        ? (done, all, last) =>
            process.stderr.write(`\r${formatProgressBar(done, all, 30, `${last.policy} seed ${last.seed}`)}\x1b[K`)
        : undefined,
    });
  } finally {
    if (tty) process.stderr.write('\n');
  }
  const seconds = (performance.now() - started) / 1000;
  if (opts.bound === true) {
    if (!loadSolver) throw new UsageError('--bound: this build has no LP solver');
    report = await withPackingBound(
      report,
      { nodesFile: opts.nodes, podsFile: opts.pods },
      opts.boundLevels,
      loadSolver,
      (done, all) => {
        if (tty)
          process.stderr.write(
            `\r${formatProgressBar(done, all, 30, `bound seed ${done}/${all}`)}\x1b[K${done === all ? '\n' : ''}`,
          );
      },
    );
  }
  const lines = [
    `${displayPath(opts.pods)} on ${displayPath(opts.nodes)}: ${report.cluster.nodes} nodes, ` +
      `${report.cluster.gpus} GPUs, ` +
      (`${report.inputs.pods} pods, inflation ${report.inflation}, seeds ${formatSeeds(opts.seeds)}, ` +
        `workload of default: ${report.workloadSource}`),
    '',
    formatSummaryTable(report.summary),
    '',
    ...(report.summary.some((p) => Number.isNaN(p.unallocatedPctAt100.mean) || Number.isNaN(p.unallocatedPctAt130.mean))
      ? [
          "note: n/a = the arrived GPU request never reached that % of the cluster's GPU capacity (too " +
            'few GPU pods, or --inflation below it)',
          '',
        ]
      : []),
    `${report.runs.length} runs in ${seconds.toFixed(1)} s (${Math.min(opts.workers, total)} worker(s))`,
    ...boundLines(report),
  ];
  if (opts.json !== undefined) {
    await writeAtomically('--json', opts.json, `${JSON.stringify(report, null, 2)}\n`);
    lines.push(`JSON results written to ${opts.json}`);
  }
  if (opts.report !== undefined) {
    await writeAtomically('--report', opts.report, renderHtmlReport(report));
    lines.push(`HTML report written to ${opts.report}`);
  }
  process.stdout.write(`${lines.join('\n')}\n`);
}

/**
 * Builds the `simulate` subcommand. Flags (public contract): `--nodes FILE`, `--pods FILE`
 * (default: the shipped openb trace), `--policy LIST|all`, `--seeds LIST` (default 42-51),
 * `--inflation X` (0 < X ≤ 10, default 1.3), `--json FILE`, `--report FILE.html`, `--workers N`
 * (default min(available CPUs, 4)), `--replay packing|timeline` (default packing),
 * `--workload trace|online`; for `--replay timeline` only (docs/simulator.md "Timeline replay"):
 * `--arrival-speedup K` (> 0, default 1), `--gpus N` (1..1,000,000; exclusive with `--nodes`),
 * `--preemption on|off` (default on), `--checkpoint-interval SECONDS` (> 0, default 1800); its
 * `--policy` defaults to `default`. `--inflation` and `--workers` are for packing only; a flag of
 * the other mode is a UsageError (exit 2). `--sharing LIST|all` with `--gpu-model MODEL`: the
 * packing replay with per-GPU sharing modes (src/cli/simulate-hybrid.ts, docs/simulator.md
 * "Hybrid sharing"); without them the packing replay is unchanged.
 *
 * Bad flag values make commander throw a CommanderError (the message names the flag and the
 * allowed values); the action rejects with TraceFormatError for a bad trace file and
 * OutputFileError for an unwritable output. Map both with handleCliError.
 * @returns A fresh Command; run it with `parseAsync`.
 */
export function createSimulateCommand(loadSolver?: LoadLinearProgramSolver): Command {
  return new Command('simulate')
    .allowExcessArguments(false)
    .description(
      'replay a GPU trace with each policy and seed: packing (FGD paper protocol, unallocated GPU %) or ' +
        'timeline (waits, JCT, preemption)',
    )
    .addOption(
      new Option('--nodes <file>', 'node list CSV (openb_node_list_*.csv)').default(
        shippedTraceFile('openb_node_list_gpu_node.csv'),
        'shipped openb_node_list_gpu_node.csv',
      ),
    )
    .addOption(
      new Option('--pods <file>', 'pod list CSV (openb_pod_list_*.csv)').default(
        shippedTraceFile('openb_pod_list_default.csv'),
        'shipped openb_pod_list_default.csv',
      ),
    )
    .addOption(
      new Option('--policy <list>', `comma list of policies, or all (${POLICY_NAMES.join(', ')})`)
        .argParser(parsePolicyList)
        .default([...POLICY_NAMES], 'all; default with --replay timeline'),
    )
    .addOption(
      new Option('--seeds <list>', 'seeds: a range a-b, a comma list, or a mix like 42,45-47')
        .argParser(parseSeedOption)
        .default(parseSeeds('42-51'), '42-51'),
    )
    .addOption(
      new Option('--inflation <x>', 'arrived GPU request as a multiple of capacity, > 0 and <= 10')
        .argParser(parseInflation)
        .default(1.3),
    )
    .addOption(new Option('--json <file>', 'write the results as JSON'))
    .addOption(new Option('--report <file>', 'write a self-contained HTML report'))
    .addOption(
      new Option('--workers <n>', 'worker threads, integer >= 1')
        .argParser(parseWorkers)
        .default(Math.min(availableParallelism(), 4)),
    )
    .addOption(
      new Option(
        '--replay <mode>',
        'replay protocol: packing (FGD paper, no departures) or timeline (arrivals over time, queue, ' +
          'departures, preemption)',
      )
        .choices(REPLAY_MODES)
        .default('packing'),
    )
    .addOption(
      new Option('--arrival-speedup <k>', 'timeline: divide the gaps between arrivals by K (> 0); run times are kept')
        .argParser(parseArrivalSpeedup)
        .default(1),
    )
    .addOption(
      new Option(
        '--gpus <n>',
        'timeline: a cluster of N GPUs, node shapes sampled per seed from the shipped node list (not with --nodes)',
      ).argParser(parseGpus),
    )
    .addOption(
      new Option('--preemption <on|off>', 'timeline: let a job that does not fit preempt lower-priority jobs')
        .choices(ON_OFF)
        .default('on'),
    )
    .addOption(
      new Option(
        '--checkpoint-interval <seconds>',
        'timeline: run time between checkpoints; preempted work since the last one is lost',
      )
        .argParser(parseCheckpointInterval)
        .default(1800),
    )
    .addOption(
      new Option(
        '--sharing <list>',
        'packing with per-GPU sharing modes: auto, mig, mps, timeslice (comma list) or all; needs --gpu-model',
      ).argParser(parseSharingList),
    )
    .addOption(
      new Option(
        '--gpu-model <model>',
        'with --sharing: give every GPU this catalog model (e.g. A100-80GB) for its memory and MIG',
      ).argParser(parseGpuModel),
    )
    .addOption(
      new Option(
        '--tenants <n>',
        "with --sharing: spread the pods over N tenants (by pod name); an MPS GPU takes one tenant's pods at a time",
      ).argParser(parseTenants),
    )
    .addOption(
      new Option(
        '--mps-any-tenant',
        'with --sharing: let MPS GPUs take pods of several tenants at once (the cost comparison of docs/mps.md)',
      ),
    )
    .addOption(
      new Option(
        '--pool-report',
        'timeline: the pool report: a fixed pool of whole GPUs and autoscaled pools (whole GPUs, sharing, hybrid ' +
          'modes) at one p95-wait target, with GPU-hours and cost',
      ),
    )
    .addOption(
      new Option(
        '--wait-target <seconds>',
        'with --pool-report: the p95 wait every pool is held to (default 1200)',
      ).argParser(parsePositiveSeconds),
    )
    .addOption(
      new Option('--boot-seconds <seconds>', 'with --pool-report: seconds a new node boots (default 300)').argParser(
        parseSeconds,
      ),
    )
    .addOption(
      new Option(
        '--autoscale-interval <seconds>',
        "with --pool-report: simulated seconds between the autoscaler's turns (default 60)",
      ).argParser(parsePositiveSeconds),
    )
    .addOption(
      new Option(
        '--scale-up-wait <seconds>',
        "with --pool-report: the autoscaler's wait-time target: only jobs that waited this long count (default 875)",
      ).argParser(parseSeconds),
    )
    .addOption(
      new Option(
        '--scale-down-utilization <x>',
        'with --pool-report: a node whose jobs hold at most this share of its GPUs is drained (0..1, default 0.5)',
      ).argParser(parseUtilization),
    )
    .addOption(
      new Option(
        '--host-prices <on|off>',
        "with --pool-report: price hosts' vCPUs and memory too (default off)",
      ).choices(ON_OFF),
    )
    .addOption(
      new Option(
        '--workload <source>',
        "target workload of the default policy: the trace's task types, or learned online from arrivals",
      )
        .choices(WORKLOAD_SOURCES)
        .default('trace'),
    )
    .addOption(
      new Option(
        '--bound',
        'packing: also compute, per seed, the lower bound on unallocated GPU % that no placement can beat ' +
          '(docs/packing-bound.md)',
      ),
    )
    .addOption(
      new Option('--bound-levels <list>', 'with --bound: arrival levels in % of capacity, e.g. 90-130/10 or 100,130')
        .argParser(parseBoundLevels)
        .default([...DEFAULT_BOUND_LEVELS], '90-130/10'),
    )
    .action((opts: SimulateOptions, command: Command) => simulate(opts, command, loadSolver));
}
