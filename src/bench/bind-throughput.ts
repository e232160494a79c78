/**
 * Pods bound per second through the real kube-scheduler with the gpushare extender against the
 * same scheduler without it (test/kubernetes/bench/bind-throughput.measure.ts, run here with
 * vitest on the test control plane). Skipped, with the reason, when the Kubernetes components are
 * not built (scripts/build-kubernetes.sh).
 */
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { homedir, tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { formatTable } from '../lib/text-table.js';
import { num, times } from './format.js';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));

/** The measured figures. */
export interface BindThroughput {
  readonly nodes: number;
  readonly pods: number;
  readonly fractionalSeconds: number;
  readonly wholeSeconds: number;
  readonly fractionalPodsPerSecond: number;
  readonly wholePodsPerSecond: number;
  /** fractional pods/s ÷ whole-GPU pods/s. */
  readonly ratio: number;
}

/** Runs the measurement; null with a reason when the components are missing or it failed. */
export function measureBindThroughput(progress: (m: string) => void): BindThroughput | { skipped: string } {
  const dir = process.env.GPUSHARE_KUBERNETES_DIR || join(homedir(), '.cache', 'gpushare', 'kubernetes', 'v1.37.2');
  if (!existsSync(join(dir, 'kube-scheduler')))
    return { skipped: `Kubernetes components not built in ${dir} (run scripts/build-kubernetes.sh)` };
  const scratch = mkdtempSync(join(tmpdir(), 'gpushare-bench-'));
  const out = join(scratch, 'bind-throughput.json');
  try {
    progress('kubernetes: 200 fractional pods through kube-scheduler with the extender, 200 whole-GPU pods without it');
    const run = spawnSync(
      process.execPath,
      [
        join(ROOT, 'node_modules', 'vitest', 'vitest.mjs'),
        'run',
        '--config',
        'vitest.kubernetes-bench.config.ts',
        'test/kubernetes/bench/bind-throughput.measure.ts',
      ],
      { cwd: ROOT, env: { ...process.env, GPUSHARE_BENCH_OUT: out }, encoding: 'utf8', timeout: 900_000 },
    );
    if (!existsSync(out))
      return {
        skipped:
          `the measurement failed (exit ${run.status}): ` +
          `${(run.stdout + run.stderr).split('\n').slice(-20).join('\n')}`,
      };
    return JSON.parse(readFileSync(out, 'utf8')) as BindThroughput;
  } finally {
    rmSync(scratch, { recursive: true, force: true });
  }
}

/** The report lines. */
export function formatBindThroughput(result: BindThroughput | { skipped: string }, title: string): string[] {
  if ('skipped' in result) return [`${title}: skipped: ${result.skipped}`];
  return [
    `${title}: pods bound per second by the real kube-scheduler v1.37.2, ${result.nodes} nodes × 8 GPUs, ` +
      `${result.pods} pods each, same run`,
    formatTable(
      [
        ['pods', 'placed by', 'seconds', 'pods/s'],
        [
          `${result.pods} × 0.5 GPU (gpushare)`,
          'kube-scheduler + gpushare extender',
          num(result.fractionalSeconds, 2),
          num(result.fractionalPodsPerSecond, 1),
        ],
        [
          `${result.pods} × nvidia.com/gpu: 1`,
          'kube-scheduler alone',
          num(result.wholeSeconds, 2),
          num(result.wholePodsPerSecond, 1),
        ],
      ],
      { right: [false, false, true, true] },
    ),
    `ratio (with extender ÷ without): ${times(result.ratio, 2)} (target ≥ 0.5×: ` +
      `${result.ratio >= 0.5 ? 'met' : 'not met'})`,
  ];
}
