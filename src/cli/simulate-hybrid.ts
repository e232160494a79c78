/**
 * `gpushare simulate --sharing ... --gpu-model MODEL`: the packing replay with per-GPU sharing
 * modes (docs/simulator.md "Hybrid sharing"). Flag parsing, flag checks and the run itself; the
 * simulate command calls in here when either flag is given.
 */
import { InvalidArgumentError, type Command } from 'commander';
import { runHybridGrid } from '../sim/hybrid/run-hybrid.js';
import {
  migCapableModelNames,
  SHARING_SETTINGS,
  sharingGpuModel,
  sharingGpuModelNames,
  type SharingSetting,
} from '../sim/hybrid/pod-mode.js';
import { formatProgressBar } from '../sim/report/console-table.js';
import { formatHybridTable } from '../sim/report/hybrid-console-table.js';
import { renderHybridHtmlReport } from '../sim/report/hybrid-html-report.js';
import { formatSeeds } from '../sim/report/html-escape.js';
import { UsageError } from './exit-codes.js';
import { optionGiven as given } from './option-parsers.js';
import { writeAtomically } from './output-files.js';

/** The options of `simulate` that the hybrid replay reads. */
export interface HybridSimulateOptions {
  readonly nodes: string;
  readonly pods: string;
  readonly policy: readonly string[];
  readonly seeds: readonly number[];
  readonly inflation: number;
  readonly json?: string;
  readonly report?: string;
  readonly workers: number;
  readonly replay: string;
  readonly workload: string;
  readonly sharing?: readonly SharingSetting[];
  readonly gpuModel?: string;
  readonly tenants?: number;
  readonly mpsAnyTenant?: boolean;
}

/** `--sharing`: a comma list of `auto, mig, mps, timeslice`, or `all`. */
export function parseSharingList(text: string): SharingSetting[] {
  const allowed = `allowed: ${SHARING_SETTINGS.join(', ')} (a comma list), or all`;
  const items = text.split(',').map((s) => s.trim());
  if (items.length === 1 && items[0] === 'all') return [...SHARING_SETTINGS];
  for (const item of items) {
    if (!(SHARING_SETTINGS as readonly string[]).includes(item))
      throw new InvalidArgumentError(`unknown sharing setting '${item}'; ${allowed}`);
  }
  const twice = items.find((s, i) => items.indexOf(s) !== i);
  if (twice !== undefined) throw new InvalidArgumentError(`sharing setting '${twice}' is listed twice; ${allowed}`);
  return items as SharingSetting[];
}

/** `--gpu-model`: a catalog model (name or alias) whose memory is known; returns the canonical name. */
export function parseGpuModel(text: string): string {
  const model = sharingGpuModel(text.trim());
  if (!model)
    throw new InvalidArgumentError(
      `expected a GPU model of the catalog with known memory; allowed: ${sharingGpuModelNames().join(', ')}`,
    );
  return model.name;
}

/**
 * Checks the flags that go with `--sharing` / `--gpu-model`.
 * @throws UsageError (exit 2) when one is given without the other, with `--replay timeline`, with a
 *   `--policy` other than `default`, with `--workload online`, or `--sharing mig` on a model without MIG
 */
export function checkHybridFlags(opts: HybridSimulateOptions, command: Command): void {
  if (opts.sharing === undefined)
    throw new UsageError(`--gpu-model applies to --sharing only; add --sharing ${SHARING_SETTINGS.join('|')}`);
  if (opts.gpuModel === undefined) {
    throw new UsageError(
      `--sharing needs --gpu-model MODEL (the trace's GPUs have no memory or MIG): allowed: ` +
        `${sharingGpuModelNames().join(', ')}`,
    );
  }
  if (opts.replay !== 'packing') throw new UsageError('--sharing applies to --replay packing only');
  if (given(command, 'policy') && (opts.policy.length !== 1 || opts.policy[0] !== 'default')) {
    throw new UsageError(
      `--sharing chooses nodes with the default policy; --policy ${opts.policy.join(',')} is not allowed ` +
        `with it (allowed: default)`,
    );
  }
  if (opts.workload !== 'trace')
    throw new UsageError(
      "--sharing uses the trace's task types as the default policy's workload; --workload online is not " +
        'allowed with it (allowed: trace)',
    );
  if (opts.sharing.includes('mig') && !sharingGpuModel(opts.gpuModel)!.migCapable) {
    throw new UsageError(
      `--sharing mig needs a MIG-capable --gpu-model; ${opts.gpuModel} has no MIG; allowed: ` +
        `${migCapableModelNames().join(', ')}`,
    );
  }
}

/** Runs the hybrid grid, prints the table and writes the outputs (already checked writable by the caller). */
export async function simulateHybrid(opts: HybridSimulateOptions, display: (path: string) => string): Promise<void> {
  const sharing = opts.sharing!;
  const tty = process.stderr.isTTY === true;
  const total = sharing.length * opts.seeds.length;
  const started = performance.now();
  if (tty) process.stderr.write(`\r${formatProgressBar(0, total, 30, '')}`);
  let report;
  try {
    report = await runHybridGrid({
      nodesFile: opts.nodes,
      podsFile: opts.pods,
      sharing,
      seeds: opts.seeds,
      inflation: opts.inflation,
      gpuModel: opts.gpuModel!,
      workers: opts.workers,
      tenants: opts.tenants ?? 1,
      mpsOneTenantPerGpu: opts.mpsAnyTenant !== true,
      onProgress: tty
        ? (done, all, last) =>
            process.stderr.write(`\r${formatProgressBar(done, all, 30, `${last.sharing} seed ${last.seed}`)}\x1b[K`)
        : undefined,
    });
  } finally {
    if (tty) process.stderr.write('\n');
  }
  const seconds = (performance.now() - started) / 1000;
  const lines = [
    `${display(opts.pods)} on ${display(opts.nodes)}: ${report.cluster.nodes} nodes, ` +
      `${report.cluster.gpus} GPUs, ${report.inputs.pods} pods, inflation ${report.inflation}, ` +
      (`seeds ${formatSeeds(opts.seeds)}, every GPU a ${report.gpuModel} (${report.gpuMemoryMiB} MiB), ` +
        `sharing ${sharing.join(',')}, node choice: default policy`) +
      (report.tenants > 1
        ? `, ${report.tenants} tenants, ` +
          `${report.mpsOneTenantPerGpu ? 'one tenant per MPS GPU' : 'MPS GPUs shared across tenants'}`
        : ''),
    '',
    formatHybridTable(report.summary),
    '',
    'unalloc = 100 − reserved GPU % (a MIG instance reserves its compute slices / 7 of its GPU); ' +
      "unrequested = 100 − the placed pods' requested GPU %;",
    'HW-isolated = placed GPU pods on MIG; strict = qos LS; reconfig. = GI creations + GPUs switched ' +
      'into/out of MIG mode; MPS GPUs = GPUs running MPS pods at the end',
    `${report.runs.length} runs in ${seconds.toFixed(1)} s (${Math.min(opts.workers, total)} worker(s))`,
  ];
  if (opts.json !== undefined) {
    await writeAtomically('--json', opts.json, `${JSON.stringify(report, null, 2)}\n`);
    lines.push(`JSON results written to ${opts.json}`);
  }
  if (opts.report !== undefined) {
    await writeAtomically('--report', opts.report, renderHybridHtmlReport(report));
    lines.push(`HTML report written to ${opts.report}`);
  }
  process.stdout.write(`${lines.join('\n')}\n`);
}
