/**
 * `gpushare synth-trace`: writes a synthesized variant of the openb pod list (cpuNNN, gpushareNN,
 * multigpuNN or gpuspecNN family of cluster-trace-gpu-v2023; `prodspec` is a gpuspecNN with the
 * production mix of model sets) made from a shipped one; see
 * src/sim/traces/synthesize-variant.ts for what each variant means.
 */
import { Command, InvalidArgumentError, Option } from 'commander';
import { readNodeListFile, readPodListFile } from '../sim/traces/alibaba-csv.js';
import { formatPodListCsv } from '../sim/traces/pod-list-csv-writer.js';
import {
  synthesizeVariant,
  traceShares,
  VARIANT_FIELDS,
  VARIANT_KINDS,
  type VariantKind,
  type VariantSpec,
} from '../sim/traces/synthesize-variant.js';
import { checkOutputPath, shippedTraceFile, writeAtomically } from './output-files.js';
import { parseSeed } from './option-parsers.js';
import { MAX_SEED } from './parse-seeds.js';

/** What each kind's percentage means, for the `--variant` error message and help. */
const VARIANT_MEANING: { readonly [K in VariantKind]: string } = {
  cpu: 'CPU-only tasks, % of tasks',
  gpushare: 'GPU-sharing tasks, % of GPU request',
  multigpu: 'multi-GPU tasks, % of GPU request',
  gpuspec: 'GPU tasks with a gpu_spec, % of GPU tasks',
  prodspec: 'GPU tasks with a gpu_spec in the production mix of model sets, % of GPU tasks',
};
const VARIANT_ALLOWED = `expected KIND:PCT with PCT a number in 0..100 and KIND one of ${VARIANT_KINDS.map(
  (k) => `${k} (${VARIANT_MEANING[k]})`,
).join(', ')}; e.g. cpu:25, gpushare:60, multigpu:40, gpuspec:20, prodspec:25`;

/** Parsed options of `gpushare synth-trace`. */
interface SynthTraceOptions {
  from: string;
  nodes: string;
  variant: VariantSpec;
  seed: number;
  out: string;
}

/**
 * `--variant KIND:PCT`, e.g. `gpushare:60`.
 * @throws InvalidArgumentError listing the allowed kinds and range
 */
export function parseVariant(text: string): VariantSpec {
  const match = /^\s*([a-z]+)\s*:\s*(\d+(?:\.\d*)?|\.\d+)\s*$/.exec(text);
  const kind = match?.[1];
  const value = match === null ? Number.NaN : Number(match[2]);
  if (kind === undefined || !(VARIANT_KINDS as readonly string[]).includes(kind) || !(value >= 0 && value <= 100)) {
    throw new InvalidArgumentError(VARIANT_ALLOWED);
  }
  switch (kind as VariantKind) {
    case 'cpu':
      return { kind: 'cpu', cpuOnlyPct: value };
    case 'gpushare':
      return { kind: 'gpushare', sharingGpuPct: value };
    case 'multigpu':
      return { kind: 'multigpu', multiGpuPct: value };
    case 'gpuspec':
      return { kind: 'gpuspec', constrainedPct: value };
    case 'prodspec':
      return { kind: 'prodspec', constrainedPct: value };
  }
}

/** `kind:pct` as written on the command line. */
function variantText(spec: VariantSpec): string {
  return `${spec.kind}:${(spec as unknown as Record<string, number>)[VARIANT_FIELDS[spec.kind]]}`;
}

async function synthTrace(opts: SynthTraceOptions): Promise<void> {
  await checkOutputPath('--out', opts.out);

  // Read both at once; a failure names --from before --nodes, whichever read finished first.
  const [baseRead, nodesRead] = await Promise.allSettled([readPodListFile(opts.from), readNodeListFile(opts.nodes)]);
  if (baseRead.status === 'rejected') throw baseRead.reason;
  if (nodesRead.status === 'rejected') throw nodesRead.reason;
  const [base, nodes] = [baseRead.value, nodesRead.value];
  const pods = synthesizeVariant(base, nodes, opts.variant, opts.seed);
  await writeAtomically('--out', opts.out, formatPodListCsv(pods));

  const s = traceShares(pods);
  process.stdout.write(
    `${variantText(opts.variant)} seed ${opts.seed}: wrote ${s.pods} pods (${s.gpuTasks} GPU tasks) to ${opts.out}\n` +
      `CPU-only ${s.cpuOnlyPct.toFixed(2)}% of tasks; GPU request ${(s.totalGpuMilli / 1000).toFixed(1)} GPUs, ` +
      (`sharing ${s.sharingGpuPct.toFixed(2)}%, multi-GPU ${s.multiGpuPct.toFixed(2)}%; gpu_spec on ` +
        `${s.constrainedPct.toFixed(2)}% of GPU tasks\n`),
  );
}

/**
 * Builds the `synth-trace` subcommand. Flags: `--from FILE` (default: shipped default pod list),
 * `--nodes FILE` (default: shipped GPU node list), `--variant KIND:PCT` (required; KIND cpu,
 * gpushare, multigpu, gpuspec or prodspec, PCT in 0..100), `--seed N` (default 1), `--out FILE` (required,
 * written atomically).
 *
 * A bad flag makes commander throw a CommanderError (exit 2 through handleCliError); the action
 * rejects with TraceFormatError for a bad input file, OutputFileError for an unwritable output,
 * and Error when the base lacks tasks the variant needs (all exit 1).
 * @returns A fresh Command; run it with `parseAsync`.
 */
export function createSynthTraceCommand(): Command {
  return new Command('synth-trace')
    .allowExcessArguments(false)
    .description(
      'synthesize a cpuNNN / gpushareNN / multigpuNN / gpuspecNN (gpuspec, prodspec) variant of the openb pod list',
    )
    .addOption(
      new Option('--from <file>', 'base pod list CSV (openb_pod_list_*.csv)').default(
        shippedTraceFile('openb_pod_list_default.csv'),
        'shipped openb_pod_list_default.csv',
      ),
    )
    .addOption(
      new Option('--nodes <file>', 'node list CSV, for gpuspec/prodspec models (openb_node_list_*.csv)').default(
        shippedTraceFile('openb_node_list_gpu_node.csv'),
        'shipped openb_node_list_gpu_node.csv',
      ),
    )
    .addOption(
      new Option(
        '--variant <kind:pct>',
        `variant, e.g. cpu:25, gpushare:60, multigpu:40, gpuspec:20, prodspec:25 ` +
          `(${VARIANT_KINDS.join(', ')}; pct 0..100)`,
      )
        .argParser(parseVariant)
        .makeOptionMandatory(),
    )
    .addOption(new Option('--seed <n>', `seed, integer in 0..${MAX_SEED}`).argParser(parseSeed).default(1))
    .addOption(new Option('--out <file>', 'output pod list CSV (11-column format)').makeOptionMandatory())
    .action((opts: SynthTraceOptions) => synthTrace(opts));
}
