/**
 * `gpushare what-if` (docs/what-if.md): replays a server's history — a file `gpushare history
 * export` wrote, or the history of the server the connection flags name — through the simulator,
 * and prints the GPUs of one model the same work needs with and without sharing at its p95 wait,
 * the policy that needs the fewest, an autoscaled pool's GPU-hours and cost, and right-sizing
 * advice. `-o json` prints the whole report; `--report FILE.html` writes a page.
 */
import { Command, InvalidArgumentError, Option } from 'commander';
import { findGpuModel, POLICY_NAMES } from '../core/index.js';
import { GPU_PER_HOUR } from '../sim/pool/pool-prices.js';
import { renderWhatIfHtml } from '../sim/report/what-if-html.js';
import { formatWhatIf } from '../sim/report/what-if-table.js';
import { readText } from '../sim/traces/alibaba-csv.js';
import { parseHistory } from '../sim/whatif/history-file.js';
import { runWhatIf } from '../sim/whatif/run-what-if.js';
import { addConnectionOptions, connect, type ConnectionFlags } from './connection.js';
import type { CliIo } from './cli-io.js';
import { decimal, parsePositiveSeconds, parseSeconds, parseSeed } from './option-parsers.js';
import { checkOutputPath, writeAtomically } from './output-files.js';

/** Policies in the order `--policy` defaults to: the project's own first (it wins ties). */
export const WHAT_IF_POLICIES: readonly string[] = ['default', ...POLICY_NAMES.filter((p) => p !== 'default')];

/** Parsed options. */
interface WhatIfFlags extends ConnectionFlags {
  trace?: string;
  gpuModel: string;
  gpusPerNode: number;
  nodeCpu: number;
  nodeMemory: number;
  waitTarget?: number;
  policy: string[];
  headroom: number;
  seed: number;
  autoscale: 'on' | 'off';
  bootSeconds: number;
  autoscaleInterval: number;
  preemption: 'on' | 'off';
  checkpointInterval: number;
  output: 'table' | 'json';
  report?: string;
}

/** `--gpu-model`: a catalog model with a device memory. */
export function parseGpuModel(text: string): string {
  const model = findGpuModel(text.trim());
  if (model === undefined || model.gpuMemoryMiB === null)
    throw new InvalidArgumentError(
      `unknown GPU model '${text}'; expected a catalog model such as A100-80GB, H100-80GB, A30, T4, V100M32 ` +
        '(see docs/what-if.md)',
    );
  return model.name;
}

function positiveInteger(max: number): (text: string) => number {
  return (text) => {
    const value = /^\d+$/.test(text.trim()) ? Number(text) : Number.NaN;
    if (!(Number.isSafeInteger(value) && value >= 1 && value <= max))
      throw new InvalidArgumentError(`expected a whole number in 1..${max}`);
    return value;
  };
}

/** `--policy a,b`: known policies, no repeats. */
export function parsePolicies(text: string): string[] {
  const names = text.split(',').map((s) => s.trim());
  const unknown = names.filter((n) => !POLICY_NAMES.includes(n));
  if (names.length === 0 || unknown.length > 0 || new Set(names).size !== names.length)
    throw new InvalidArgumentError(
      `expected distinct policy names separated by commas, from ${WHAT_IF_POLICIES.join(', ')}` +
        (unknown.length > 0 ? `; unknown: ${unknown.join(', ')}` : ''),
    );
  return names;
}

function parseHeadroom(text: string): number {
  const value = decimal(text);
  if (!(value >= 0 && value <= 10)) throw new InvalidArgumentError('expected a fraction from 0 to 10 (0.2 = 20%)');
  return value;
}

async function whatIf(flags: WhatIfFlags, io: CliIo): Promise<void> {
  if (flags.report !== undefined) await checkOutputPath('--report', flags.report);
  let text: string;
  let source: string;
  if (flags.trace !== undefined) {
    source = flags.trace;
    text = await readText(flags.trace);
  } else {
    const client = await connect(flags, io);
    source = 'the server';
    text = await client.exportHistory({});
  }
  const history = parseHistory(text, source);
  const report = runWhatIf(history, {
    shape: {
      gpuModel: flags.gpuModel,
      gpusPerNode: flags.gpusPerNode,
      cpuMilli: flags.nodeCpu * 1000,
      hostMemoryMiB: flags.nodeMemory * 1024,
    },
    seed: flags.seed,
    waitTargetSeconds: flags.waitTarget ?? null,
    policies: flags.policy,
    headroom: flags.headroom,
    autoscale:
      flags.autoscale === 'on' && GPU_PER_HOUR[flags.gpuModel] !== undefined
        ? { bootSeconds: flags.bootSeconds, intervalSeconds: flags.autoscaleInterval }
        : null,
    preemption: flags.preemption === 'on',
    checkpointIntervalSeconds: flags.checkpointInterval,
    ...(process.stderr.isTTY === true
      ? { onProgress: (message: string) => process.stderr.write(`\r${message}\x1b[K`) }
      : {}),
  });
  if (process.stderr.isTTY === true) process.stderr.write('\r\x1b[K');
  if (flags.report !== undefined)
    await writeAtomically('--report', flags.report, renderWhatIfHtml(report, source, new Date().toISOString()));
  const { sizes: _sizes, ...advice } = report.rightSizing;
  io.stdout(
    flags.output === 'json'
      ? `${JSON.stringify({ ...report, rightSizing: advice }, null, 2)}\n`
      : `${formatWhatIf(report)}\n${flags.report === undefined ? '' : `HTML report written to ${flags.report}\n`}`,
  );
}

/** Builds the `what-if` command (bad flags exit 2 naming the flag and the allowed values). */
export function createWhatIfCommand(io: CliIo): Command {
  const command = new Command('what-if')
    .allowExcessArguments(false)
    .description("replay a server's history: GPUs needed with and without sharing, best policy, right-sizing")
    .addOption(new Option('--trace <file>', 'a history file (gpushare history export); default: the server’s history'))
    .addOption(
      new Option('--gpu-model <model>', 'GPU model of the sized nodes (catalog name)')
        .argParser(parseGpuModel)
        .default('A100-80GB'),
    )
    .addOption(new Option('--gpus-per-node <n>', 'GPUs per node, 1..64').argParser(positiveInteger(64)).default(8))
    .addOption(new Option('--node-cpu <cores>', 'CPU cores per node').argParser(positiveInteger(100_000)).default(128))
    .addOption(
      new Option('--node-memory <GiB>', 'host memory per node, GiB')
        .argParser(positiveInteger(1_048_576))
        .default(1024),
    )
    .addOption(
      new Option('--wait-target <s>', "p95 wait to hold, seconds ≥ 0 (default: the history's own)").argParser(
        parseSeconds,
      ),
    )
    .addOption(
      new Option('--policy <list>', `policies to compare with sharing, comma-separated`)
        .argParser(parsePolicies)
        .default(WHAT_IF_POLICIES, WHAT_IF_POLICIES.join(',')),
    )
    .addOption(
      new Option('--headroom <fraction>', 'right-sizing headroom above the observed peak')
        .argParser(parseHeadroom)
        .default(0.2),
    )
    .addOption(new Option('--seed <n>', 'seed of the replays').argParser(parseSeed).default(42))
    .addOption(
      new Option('--autoscale <on|off>', 'also replay an autoscaled pool (priced models only)')
        .choices(['on', 'off'])
        .default('on'),
    )
    .addOption(
      new Option('--boot-seconds <s>', 'autoscaled nodes boot in this many seconds')
        .argParser(parseSeconds)
        .default(300),
    )
    .addOption(
      new Option('--autoscale-interval <s>', 'seconds between the autoscaler’s turns')
        .argParser(parsePositiveSeconds)
        .default(60),
    )
    .addOption(
      new Option('--preemption <on|off>', 'let jobs preempt lower-priority ones in the replays')
        .choices(['on', 'off'])
        .default('off'),
    )
    .addOption(
      new Option('--checkpoint-interval <s>', 'seconds between checkpoints of preempted jobs')
        .argParser(parsePositiveSeconds)
        .default(1800),
    )
    .addOption(new Option('-o, --output <format>', 'output format').choices(['table', 'json']).default('table'))
    .addOption(new Option('--report <file>', 'write an HTML report'));
  addConnectionOptions(command);
  return command.action((flags: WhatIfFlags) => whatIf(flags, io));
}
