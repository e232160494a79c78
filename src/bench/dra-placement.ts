/**
 * `npm run bench -- --only dra`: the placement comparison of docs/kubernetes/dra-placement.md, the
 * same trace streams placed by kube-scheduler with the gpushare extender and by DRA's stock
 * allocator (test/kubernetes/bench/dra-placement.measure.ts, run here with vitest on the test
 * control plane). Skipped, with the reason, when the Kubernetes components are not built
 * (scripts/build-kubernetes.sh).
 */
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { homedir, tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { formatTable } from '../lib/text-table.js';
import type { PlacementFigures } from './dra-placement-metrics.js';
import type { PlacementSampling } from './dra-placement-workload.js';
import { num } from './format.js';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const MEASURE_FILE = 'test/kubernetes/bench/dra-placement.measure.ts';

/** One stream's figures. */
export interface PlacementStream {
  readonly sampling: PlacementSampling;
  readonly nodes: number;
  readonly gpus: number;
  readonly pods: number;
  readonly wholeGpuPods: number;
  readonly multiGpuPods: number;
  /** GPU demand of the stream, milli-GPU. */
  readonly demandGpuMilli: number;
  readonly claimTemplates: number;
  readonly extender: PlacementFigures;
  readonly dra: PlacementFigures;
}

/** The measured figures. */
export interface PlacementComparison {
  /** Pods created at once. */
  readonly concurrency: number;
  /** A path ended once no pod was bound for this long (and the rest were Unschedulable). */
  readonly quietSeconds: number;
  readonly streams: readonly PlacementStream[];
}

/** Runs the measurement; a reason instead when the components are missing or it failed. */
export function measurePlacementComparison(progress: (m: string) => void): PlacementComparison | { skipped: string } {
  const dir = process.env.GPUSHARE_KUBERNETES_DIR || join(homedir(), '.cache', 'gpushare', 'kubernetes', 'v1.37.2');
  if (!existsSync(join(dir, 'kube-scheduler')))
    return { skipped: `Kubernetes components not built in ${dir} (run scripts/build-kubernetes.sh)` };
  const scratch = mkdtempSync(join(tmpdir(), 'gpushare-bench-'));
  const out = join(scratch, 'dra-placement.json');
  try {
    progress('dra: trace streams through kube-scheduler with the extender, then through DRA (about 5 minutes)');
    const run = spawnSync(
      process.execPath,
      [
        join(ROOT, 'node_modules', 'vitest', 'vitest.mjs'),
        'run',
        '--config',
        'vitest.kubernetes-bench.config.ts',
        MEASURE_FILE,
      ],
      { cwd: ROOT, env: { ...process.env, GPUSHARE_BENCH_OUT: out }, encoding: 'utf8', timeout: 900_000 },
    );
    if (!existsSync(out))
      return {
        skipped:
          `the measurement failed (exit ${run.status}): ` +
          `${(run.stdout + run.stderr).split('\n').slice(-20).join('\n')}`,
      };
    return JSON.parse(readFileSync(out, 'utf8')) as PlacementComparison;
  } finally {
    rmSync(scratch, { recursive: true, force: true });
  }
}

function rows(stream: PlacementStream): string[][] {
  const row = (label: string, f: PlacementFigures): string[] => [
    `${stream.sampling.podList}`,
    label,
    `${f.gpusUsed} / ${f.totalGpus}`,
    num(f.unallocatedOfUsedPct, 1),
    num(f.unallocatedOfAllPct, 1),
    num(f.allocatedGpuMilli / 1000, 2),
    `${f.podsNeverFit} / ${f.pods}`,
    num(f.freeGpuMilli.whereHostFull / 1000, 2),
    num(f.freeGpuMilli.whereHostFits / 1000, 2),
    num(f.bindsPerSecond, 1),
    String(f.overcommitted.length),
  ];
  return [row('kube-scheduler + gpushare extender', stream.extender), row('DRA, stock kube-scheduler', stream.dra)];
}

/** The report lines: one table, two rows per stream. */
export function formatPlacementComparison(result: PlacementComparison | { skipped: string }, title: string): string[] {
  if ('skipped' in result) return [`${title}: skipped: ${result.skipped}`];
  const first = result.streams[0];
  return [
    `${title}: the same trace pods placed by the real kube-scheduler v1.37.2, ` +
      (first ? `${first.nodes} nodes, ${first.gpus} GPUs, ` : '') +
      `pods created ${result.concurrency} at a time, same run`,
    ...result.streams.map(
      (s) =>
        `  ${s.sampling.podList}: ${s.pods} pods (every ${s.sampling.podStride}th GPU pod; ` +
        `${s.wholeGpuPods} whole-GPU, ` +
        `${s.multiGpuPods} multi-GPU) asking for ${num(s.demandGpuMilli / 1000, 2)} GPUs, ` +
        `${num((100 * s.demandGpuMilli) / (1000 * s.gpus), 0)} % of the GPUs`,
    ),
    formatTable(
      [
        [
          'pods',
          'placed by',
          'GPUs used',
          'unalloc. % of used',
          'unalloc. % of all',
          'GPUs allocated',
          'never fit',
          'free, host full',
          'free, host fits',
          'binds/s',
          'over 1000',
        ],
        ...result.streams.flatMap(rows),
      ],
      { right: [false, false, true, true, true, true, true, true, true, true, true] },
    ),
    'free, host full / host fits: unallocated GPUs on nodes whose free CPU and memory take none / some of the pods ' +
      'that never fit',
  ];
}
