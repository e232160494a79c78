/**
 * `gpushare pack-by-use`: packing by use on the GenAI inference pods (docs/pack-by-use.md): each
 * pod placed once from statistics of the first half of the trace, judged on the second half
 * against one pod per GPU and the memory floor, per GPU model.
 */
import { relative } from 'node:path';
import { Command, InvalidArgumentError, Option } from 'commander';
import { packByUse } from '../sim/genai/pack-by-use.js';
import { DEFAULT_FLOOR_STEPS } from '../sim/genai/memory-floor.js';
import { readGenaiTrace } from '../sim/genai/read-genai-trace.js';
import { sharingGpuModel, sharingGpuModelNames, type SharingGpuModel } from '../sim/hybrid/pod-mode.js';
import { renderPackByUseHtml } from '../sim/report/pack-by-use-html.js';
import { formatPackByUse } from '../sim/report/pack-by-use-table.js';
import { decimal } from './option-parsers.js';
import { checkOutputPath, shippedDataPath, writeAtomically } from './output-files.js';

/** The GPU models compared by default. */
export const DEFAULT_PACK_MODELS = ['A100-80GB', 'H200-141GB'] as const;
/** The interference rule's bound by default, percent of a GPU's occupied minutes. */
export const DEFAULT_MAX_OVERLOAD_PCT = 1;
/** The largest headroom accepted, a fraction of the peak. */
const MAX_HEADROOM = 10;

/** Parsed options of `gpushare pack-by-use`. */
interface PackByUseOptions {
  data: string;
  gpuModel: SharingGpuModel[];
  headroom: number | 'auto';
  maxOverload: number;
  floorSteps: number;
  json?: string;
  report?: string;
}

/** `--gpu-model`: a comma list of catalog models with known memory, each once. */
export function parseGpuModelList(text: string): SharingGpuModel[] {
  const allowed = `allowed: ${sharingGpuModelNames().join(', ')} (a comma list)`;
  const models = text.split(',').map((item) => {
    const model = sharingGpuModel(item.trim());
    if (!model)
      throw new InvalidArgumentError(`unknown GPU model '${item.trim()}' or its memory is not known; ${allowed}`);
    return model;
  });
  const twice = models.find((m, i) => models.findIndex((o) => o.name === m.name) !== i);
  if (twice) throw new InvalidArgumentError(`GPU model '${twice.name}' is listed twice; ${allowed}`);
  return models;
}

/** `--headroom`: `auto`, or a fraction of the peak in 0..10 (0.05 = 5%). */
export function parseHeadroom(text: string): number | 'auto' {
  if (text.trim() === 'auto') return 'auto';
  const value = decimal(text);
  if (!(value <= MAX_HEADROOM))
    throw new InvalidArgumentError(`expected auto or a fraction of the peak from 0 to ${MAX_HEADROOM} (0.05 = 5%)`);
  return value;
}

/** `--max-overload`: percent in 0..100. */
export function parseMaxOverload(text: string): number {
  const value = decimal(text);
  if (!(value <= 100)) throw new InvalidArgumentError('expected a percentage from 0 to 100 (1 = 1% of the minutes)');
  return value;
}

/** `--floor-steps`: a whole number ≥ 0 (0: the lower bounds and the heuristics only). */
export function parseFloorSteps(text: string): number {
  const value = /^\d{1,15}$/.test(text.trim()) ? Number(text) : Number.NaN;
  if (!Number.isSafeInteger(value)) throw new InvalidArgumentError('expected a whole number of steps ≥ 0');
  return value;
}

/** The data folder as printed: relative to the working directory when inside it. */
function displayName(dir: string): string {
  const rel = relative(process.cwd(), dir);
  return rel === '' || rel.startsWith('..') ? dir : rel;
}

async function packByUseAction(opts: PackByUseOptions): Promise<void> {
  if (opts.json !== undefined) await checkOutputPath('--json', opts.json);
  if (opts.report !== undefined) await checkOutputPath('--report', opts.report);
  const started = performance.now();
  const trace = await readGenaiTrace(opts.data);
  const result = packByUse(trace, {
    models: opts.gpuModel.map(({ name, gpuMemoryMiB }) => ({ name, gpuMemoryMiB })),
    headroom: opts.headroom,
    maxOverloadPct: opts.maxOverload,
    floorSteps: opts.floorSteps,
  });
  const name = displayName(opts.data);
  const lines = [formatPackByUse(result, name), '', `done in ${((performance.now() - started) / 1000).toFixed(1)} s`];
  if (opts.json !== undefined) {
    await writeAtomically('--json', opts.json, `${JSON.stringify(result, null, 2)}\n`);
    lines.push(`JSON results written to ${opts.json}`);
  }
  if (opts.report !== undefined) {
    await writeAtomically('--report', opts.report, renderPackByUseHtml(result, name, new Date().toISOString()));
    lines.push(`HTML report written to ${opts.report}`);
  }
  process.stdout.write(`${lines.join('\n')}\n`);
}

/**
 * Builds the `pack-by-use` subcommand. Flags: `--data DIR` (default: the shipped
 * data/alibaba-genai-v2026-gpu-util), `--gpu-model LIST` (default A100-80GB,H200-141GB),
 * `--headroom auto|FRACTION` (default auto), `--max-overload PCT` (default 1), `--floor-steps N`,
 * `--json FILE`, `--report FILE.html`.
 *
 * A bad flag value makes commander throw a CommanderError naming the flag and the allowed values
 * (exit 2 through handleCliError); the action rejects with TraceFormatError for a missing or bad
 * data file and OutputFileError for an unwritable output (exit 1).
 * @returns A fresh Command; run it with `parseAsync`.
 */
export function createPackByUseCommand(): Command {
  return new Command('pack-by-use')
    .allowExcessArguments(false)
    .description(
      'pack the GenAI inference pods by their measured use: placed from the first half of the trace, judged on ' +
        'the second against one pod per GPU and the memory floor',
    )
    .addOption(
      new Option(
        '--data <dir>',
        'folder of pod_gpu_duty_cycle_anon.csv.gz and pod_gpu_memory_used_bytes_anon.csv.gz',
      ).default(shippedDataPath('alibaba-genai-v2026-gpu-util'), 'shipped data/alibaba-genai-v2026-gpu-util'),
    )
    .addOption(
      new Option('--gpu-model <list>', `comma list of GPU models (${sharingGpuModelNames().join(', ')})`)
        .argParser(parseGpuModelList)
        .default(parseGpuModelList(DEFAULT_PACK_MODELS.join(',')), DEFAULT_PACK_MODELS.join(',')),
    )
    .addOption(
      new Option(
        '--headroom <auto|fraction>',
        "memory above each pod's first-half peak: a fraction (0.05 = 5%), or auto (chosen on the first half alone)",
      )
        .argParser(parseHeadroom)
        .default('auto'),
    )
    .addOption(
      new Option(
        '--max-overload <pct>',
        "the interference rule: at most this % of a GPU's minutes with co-located duty cycles over 100%",
      )
        .argParser(parseMaxOverload)
        .default(DEFAULT_MAX_OVERLOAD_PCT),
    )
    .addOption(
      new Option('--floor-steps <n>', "step budget of the memory floor's exact search (0: bounds only)")
        .argParser(parseFloorSteps)
        .default(DEFAULT_FLOOR_STEPS),
    )
    .addOption(new Option('--json <file>', 'write the results as JSON'))
    .addOption(new Option('--report <file>', 'write a self-contained HTML report'))
    .action((opts: PackByUseOptions) => packByUseAction(opts));
}
