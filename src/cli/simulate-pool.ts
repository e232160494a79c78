/**
 * `gpushare simulate --replay timeline --pool-report`: the pool report (docs/simulator.md "Pool
 * replay"): flag parsing, flag checks and the run; the simulate command calls in here when
 * `--pool-report` or one of its flags is given.
 */
import { InvalidArgumentError, type Command } from 'commander';
import { DEFAULT_AUTOSCALE_POLICY, type AutoscalePolicy } from '../core/index.js';
import { runPoolReport } from '../sim/pool/run-pool-report.js';
import { formatPoolTables } from '../sim/report/pool-console-table.js';
import { renderPoolHtmlReport } from '../sim/report/pool-html-report.js';
import { UsageError } from './exit-codes.js';
import { decimal, optionGiven as given } from './option-parsers.js';
import { writeAtomically } from './output-files.js';

/** Defaults of the pool report (the settings docs/simulator.md reports with). */
export const POOL_DEFAULTS = {
  seeds: [42, 43, 44],
  waitTargetSeconds: 1200,
  tolerance: 0.1,
  bootSeconds: 300,
  autoscaleIntervalSeconds: 60,
  scaleUpWaitSeconds: 875,
  scaleDownDelaySeconds: 600,
  scaleDownUtilization: 0.5,
  maxNodes: 400,
  maxPendingJobs: 200,
  hybridGpuModel: 'A100-80GB',
} as const;

/** The options of `simulate` that the pool report reads. */
export interface PoolSimulateOptions {
  readonly nodes: string;
  readonly pods: string;
  readonly policy: readonly string[];
  readonly seeds: readonly number[];
  readonly json?: string;
  readonly report?: string;
  readonly replay: string;
  readonly workload: string;
  readonly arrivalSpeedup: number;
  readonly gpus?: number;
  readonly preemption: string;
  readonly checkpointInterval: number;
  readonly poolReport?: boolean;
  readonly waitTarget?: number;
  readonly bootSeconds?: number;
  readonly autoscaleInterval?: number;
  readonly scaleUpWait?: number;
  readonly scaleDownUtilization?: number;
  readonly hostPrices?: 'on' | 'off';
}

/** Flags that only `--pool-report` reads (option key → flag). */
export const POOL_ONLY_FLAGS: Readonly<Record<string, string>> = {
  waitTarget: '--wait-target',
  bootSeconds: '--boot-seconds',
  autoscaleInterval: '--autoscale-interval',
  scaleUpWait: '--scale-up-wait',
  scaleDownUtilization: '--scale-down-utilization',
  hostPrices: '--host-prices',
};

/** `--scale-down-utilization`: a decimal number in [0, 1]. */
export function parseUtilization(text: string): number {
  const value = decimal(text);
  if (!(value >= 0 && value <= 1)) throw new InvalidArgumentError('expected a share of a node’s GPUs from 0 to 1');
  return value;
}

/**
 * Checks the flags that go with `--pool-report`.
 * @throws UsageError (exit 2) for a pool flag without `--pool-report`, `--pool-report` with
 *   `--replay packing`, `--gpus` (the pools are made of templates), a `--policy` other than
 *   `default`, or `--workload online`
 */
export function checkPoolFlags(opts: PoolSimulateOptions, command: Command): void {
  const poolFlags = Object.keys(POOL_ONLY_FLAGS).filter((k) => given(command, k));
  if (opts.poolReport !== true) {
    if (poolFlags.length > 0)
      throw new UsageError(
        `${poolFlags.map((k) => POOL_ONLY_FLAGS[k]).join(', ')} ${poolFlags.length > 1 ? 'apply' : 'applies'} ` +
          'to --pool-report only; add --replay timeline --pool-report',
      );
    return;
  }
  if (opts.replay !== 'timeline')
    throw new UsageError('--pool-report applies to --replay timeline only; add --replay timeline');
  if (opts.gpus !== undefined)
    throw new UsageError(
      '--gpus is not allowed with --pool-report: its pools are made of node templates (the fixed pool is searched)',
    );
  if (given(command, 'policy') && (opts.policy.length !== 1 || opts.policy[0] !== 'default'))
    throw new UsageError(
      `--pool-report places with the default policy; --policy ${opts.policy.join(',')} is not allowed with it ` +
        '(allowed: default)',
    );
  if (opts.workload !== 'trace')
    throw new UsageError(
      "--pool-report uses the trace's task types as the default policy's workload; --workload online is not " +
        'allowed with it (allowed: trace)',
    );
}

/** Runs the pool report, prints the tables and writes the outputs (already checked writable by the caller). */
export async function simulatePool(
  opts: PoolSimulateOptions,
  command: Command,
  display: (path: string) => string,
): Promise<void> {
  const started = performance.now();
  const tty = process.stderr.isTTY === true;
  const policy: AutoscalePolicy = {
    ...DEFAULT_AUTOSCALE_POLICY,
    scaleUpWaitSeconds: opts.scaleUpWait ?? POOL_DEFAULTS.scaleUpWaitSeconds,
    scaleDownDelaySeconds: POOL_DEFAULTS.scaleDownDelaySeconds,
    scaleDownUtilization: opts.scaleDownUtilization ?? POOL_DEFAULTS.scaleDownUtilization,
    maxNodes: POOL_DEFAULTS.maxNodes,
  };
  const seeds = given(command, 'seeds') ? opts.seeds : POOL_DEFAULTS.seeds;
  // In a pool that grows, a job that does not fit waits for a node: preemption is off unless asked for.
  const preemption = given(command, 'preemption') ? opts.preemption === 'on' : false;
  let report;
  try {
    report = await runPoolReport({
      nodesFile: opts.nodes,
      podsFile: opts.pods,
      seeds,
      arrivalSpeedup: opts.arrivalSpeedup,
      waitTargetSeconds: opts.waitTarget ?? POOL_DEFAULTS.waitTargetSeconds,
      tolerance: POOL_DEFAULTS.tolerance,
      checkpointIntervalSeconds: opts.checkpointInterval,
      preemption,
      bootSeconds: opts.bootSeconds ?? POOL_DEFAULTS.bootSeconds,
      autoscaleIntervalSeconds: opts.autoscaleInterval ?? POOL_DEFAULTS.autoscaleIntervalSeconds,
      maxPendingJobs: POOL_DEFAULTS.maxPendingJobs,
      policies: { 'autoscaled-whole': policy, 'autoscaled-sharing': policy, 'autoscaled-hybrid': policy },
      hybridGpuModel: POOL_DEFAULTS.hybridGpuModel,
      drainable: 'all',
      hostPrices: opts.hostPrices === 'on',
      onProgress: tty ? (message) => process.stderr.write(`\r${message}\x1b[K`) : undefined,
    });
  } finally {
    if (tty) process.stderr.write('\n');
  }
  const { inputs, settings } = report;
  const lines = [
    `${display(opts.pods)}: ${inputs.timedPods} pods with times, ${inputs.cpuOnlyLeftOut} CPU-only left out; ` +
      `templates from ${display(opts.nodes)}; replay timeline, arrival speedup ${settings.arrivalSpeedup}, ` +
      `preemption ${settings.preemption ? 'on' : 'off'}, policy default`,
    `autoscaler: a turn every ${settings.autoscaleIntervalSeconds} s, nodes boot in ${settings.bootSeconds} s, ` +
      `wait-time target ${policy.scaleUpWaitSeconds} s, scale-down after ${policy.scaleDownDelaySeconds} s at ≤ ` +
      `${policy.scaleDownUtilization} of a node's GPUs; ` +
      `prices: ${settings.priceList.name}, ${settings.priceList.date}` +
      (settings.priceList.hostPrices ? ' (GPUs and hosts)' : ' (GPUs only)'),
    '',
    formatPoolTables(report),
    '',
    `${report.runs.length} runs in ${((performance.now() - started) / 1000).toFixed(1)} s (sequential)`,
  ];
  if (opts.json !== undefined) {
    await writeAtomically('--json', opts.json, `${JSON.stringify(report, null, 2)}\n`);
    lines.push(`JSON results written to ${opts.json}`);
  }
  if (opts.report !== undefined) {
    await writeAtomically('--report', opts.report, renderPoolHtmlReport(report));
    lines.push(`HTML report written to ${opts.report}`);
  }
  process.stdout.write(`${lines.join('\n')}\n`);
}
