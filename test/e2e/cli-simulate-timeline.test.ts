/**
 * End-to-end tests of `gpushare simulate --replay timeline`: builds the package, then runs the
 * real bin/gpushare as a child process on the first 300 pods of the shipped trace.
 */
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { WAIT_MS } from '../../src/testing/deadlines.js';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const BIN = join(ROOT, 'bin', 'gpushare');
const SHIPPED_PODS = join(ROOT, 'data', 'alibaba-gpu-v2023', 'openb_pod_list_default.csv');
const CLASSES = ['critical', 'high', 'normal', 'low'];

interface Result {
  status: number | null;
  stdout: string;
  stderr: string;
}

function gpushare(...args: string[]): Result {
  const r = spawnSync(process.execPath, [BIN, ...args], { cwd: ROOT, encoding: 'utf8', timeout: WAIT_MS });
  return { status: r.status, stdout: r.stdout, stderr: r.stderr };
}

interface Pct {
  p50: number | null;
  p95: number | null;
  p99: number | null;
}
interface Stats {
  jobs: number;
  completed: number;
  waitSeconds: Pct;
  jctSeconds: Pct;
  preemptions: number;
  lostWorkGpuHours: number;
}

let dir: string;
let podsFile: string;

beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'gpushare-e2e-timeline-'));
  podsFile = join(dir, 'pods-300.csv');
  const lines = readFileSync(SHIPPED_PODS, 'utf8').split('\n');
  writeFileSync(podsFile, `${lines.slice(0, 301).join('\n')}\n`);
});

afterAll(() => {
  if (dir) rmSync(dir, { recursive: true, force: true });
});

/** Checks the invariants every run must keep. */
function checkRun(
  run: Record<string, unknown> & { all: Stats; byClass: Record<string, Stats> },
  timedPods: number,
): void {
  expect(run.cluster).toMatchObject({ gpus: 16 });
  expect((run.jobs as number) + (run.unplaceable as number)).toBe(timedPods);
  expect(run.all.jobs).toBe(run.jobs);
  expect(run.all.completed).toBe(run.jobs);
  expect(CLASSES.reduce((s, c) => s + run.byClass[c]!.jobs, 0)).toBe(run.jobs);
  for (const stats of [run.all, ...CLASSES.map((c) => run.byClass[c]!)]) {
    expect(stats.completed).toBe(stats.jobs);
    if (stats.jobs === 0) continue;
    const { p50, p95, p99 } = stats.waitSeconds;
    expect(p50).toBeGreaterThanOrEqual(0);
    expect(p95).toBeGreaterThanOrEqual(p50!);
    expect(p99).toBeGreaterThanOrEqual(p95!);
    expect(stats.jctSeconds.p50).toBeGreaterThanOrEqual(0);
    expect(stats.lostWorkGpuHours).toBeGreaterThanOrEqual(0);
  }
  expect(run.byClass.critical!.preemptions).toBe(0);
  expect(run.byClass.high!.preemptions).toBe(0);
  expect(run.offeredLoadPct).toBeGreaterThan(0);
  const allocation = run.allocation as { intervalSeconds: number; pct: number[] };
  expect(allocation.pct).toHaveLength(200);
  for (const pct of allocation.pct) {
    expect(pct).toBeGreaterThanOrEqual(0);
    expect(pct).toBeLessThanOrEqual(100 + 1e-9);
  }
}

describe('gpushare simulate --replay timeline (built CLI)', () => {
  it('replays 300 pods on 16 sampled GPUs and writes JSON and HTML', () => {
    const json = join(dir, 'timeline.json');
    const html = join(dir, 'timeline.html');
    const r = gpushare(
      'simulate',
      '--replay',
      'timeline',
      '--pods',
      podsFile,
      '--gpus',
      '16',
      '--seeds',
      '1-2',
      '--arrival-speedup',
      '8',
      '--json',
      json,
      '--report',
      html,
    );
    expect(r.stderr).toBe('');
    expect(r.status).toBe(0);
    const out = r.stdout.split('\n');
    expect(out[0]).toBe(
      `${podsFile} on 16 GPUs sampled per seed from data/alibaba-gpu-v2023/openb_node_list_gpu_node.csv; ` +
        ('replay timeline, policy default, seeds 1-2, arrival speedup 8, preemption on, checkpoint every ' +
          '1800 s, workload of default: trace'),
    );
    expect(out[1]).toMatch(
      new RegExp(
        /^300 pods: \d+ replayed, \d+ skipped without creation\/scheduled\/deletion /.source +
          /time, 0 skipped with deletion_time < scheduled_time$/.source,
      ),
    );
    expect(out[2]).toMatch(
      new RegExp(
        /^mean offered load = Σ\(GPU-equivalents × duration\) \/ \(cluster GPUs /.source +
          /× \(last arrival − first arrival\)\): \d+\.\d% \(mean over seeds\)$/.source,
      ),
    );
    expect(r.stdout).toMatch(/^default {2}1 {5}critical /m);
    expect(r.stdout).toMatch(/^2 runs in \d+\.\d s \(sequential\)$/m);
    expect(r.stdout).toContain(`JSON results written to ${json}\nHTML report written to ${html}\n`);

    const report = JSON.parse(readFileSync(json, 'utf8'));
    expect(report.replay).toBe('timeline');
    expect(report.cluster).toEqual({ source: 'sampled', gpus: 16, nodes: null });
    expect(report.inputs.pods).toBe(300);
    expect(report.inputs.timedPods + report.inputs.skippedMissingTimes + report.inputs.skippedNegativeDuration).toBe(
      300,
    );
    expect(report.inputs.skippedMissingTimes).toBeGreaterThan(0);
    expect(report.settings).toMatchObject({
      policies: ['default'],
      seeds: [1, 2],
      arrivalSpeedup: 8,
      preemption: true,
      checkpointIntervalSeconds: 1800,
      workloadSource: 'trace',
      qosPriority: { LS: 1000, Guaranteed: 900, Burstable: 500, BE: 100 },
    });
    expect(report.offeredLoadDefinition).toContain('Σ(GPU-equivalents × duration)');
    expect(report.runs.map((x: { policy: string; seed: number }) => `${x.policy}/${x.seed}`)).toEqual([
      'default/1',
      'default/2',
    ]);
    for (const run of report.runs) checkRun(run, report.inputs.timedPods);
    expect(report.summary).toHaveLength(1);
    expect(report.summary[0].seeds).toEqual([1, 2]);
    expect(report.summary[0].byClass.critical.waitP95Seconds.mean).toBeCloseTo(
      (report.runs[0].byClass.critical.waitSeconds.p95 + report.runs[1].byClass.critical.waitSeconds.p95) / 2,
      6,
    );

    const page = readFileSync(html, 'utf8');
    expect(page).toMatch(/^<!doctype html>/i);
    expect(page).toContain('id="chart-alloc-arrivals-title"');
    expect(page).toContain('id="chart-wait-title"');
    expect(existsSync(`${json}.tmp`)).toBe(false);
  });

  it('never preempts with --preemption off, and is deterministic per seed', () => {
    const runOnce = (name: string): Record<string, unknown>[] => {
      const json = join(dir, name);
      const r = gpushare(
        'simulate',
        '--replay',
        'timeline',
        '--pods',
        podsFile,
        '--gpus',
        '16',
        '--seeds',
        '3',
        '--arrival-speedup',
        '8',
        '--preemption',
        'off',
        '--json',
        json,
      );
      expect(r.status).toBe(0);
      const report = JSON.parse(readFileSync(json, 'utf8'));
      expect(report.settings.preemption).toBe(false);
      return report.runs.map(({ wallSeconds: _w, ...rest }: Record<string, unknown>) => rest);
    };
    const [first] = runOnce('off-1.json') as (Record<string, unknown> & {
      all: Stats;
      byClass: Record<string, Stats>;
    })[];
    checkRun(first!, (first!.jobs as number) + (first!.unplaceable as number));
    expect(first!.all.preemptions).toBe(0);
    expect(first!.all.lostWorkGpuHours).toBe(0);
    for (const c of CLASSES) expect(first!.byClass[c]!.preemptions).toBe(0);
    expect(runOnce('off-2.json')).toEqual([first]);
  });

  it.each([
    [
      ['--replay', 'churn'],
      "option '--replay <mode>' argument 'churn' is invalid. Allowed choices are packing, timeline.",
    ],
    [
      ['--replay', 'timeline', '--arrival-speedup', '0'],
      "option '--arrival-speedup <k>' argument '0' is invalid. expected a decimal number > 0",
    ],
    [
      ['--replay', 'timeline', '--arrival-speedup', '-2'],
      "option '--arrival-speedup <k>' argument '-2' is invalid. expected a decimal number > 0",
    ],
    [
      ['--replay', 'timeline', '--arrival-speedup', 'fast'],
      "option '--arrival-speedup <k>' argument 'fast' is invalid. expected a decimal number > 0",
    ],
    [
      ['--replay', 'timeline', '--gpus', '0'],
      "option '--gpus <n>' argument '0' is invalid. expected a whole number of GPUs in 1..1000000",
    ],
    [
      ['--replay', 'timeline', '--gpus', '2.5'],
      "option '--gpus <n>' argument '2.5' is invalid. expected a whole number of GPUs in 1..1000000",
    ],
    [
      ['--replay', 'timeline', '--preemption', 'maybe'],
      "option '--preemption <on|off>' argument 'maybe' is invalid. Allowed choices are on, off.",
    ],
    [
      ['--replay', 'timeline', '--checkpoint-interval', '0'],
      "option '--checkpoint-interval <seconds>' argument '0' is invalid. expected a number of seconds > 0",
    ],
    [['--replay', 'timeline', '--gpus', '16', '--nodes', 'x.csv'], '--gpus and --nodes are exclusive'],
    [['--gpus', '16'], '--gpus applies to --replay timeline only, not --replay packing'],
    [
      ['--replay', 'packing', '--arrival-speedup', '2', '--preemption', 'off'],
      '--arrival-speedup, --preemption apply to --replay timeline only, not --replay packing',
    ],
    [['--checkpoint-interval', '60'], '--checkpoint-interval applies to --replay timeline only'],
    [
      ['--replay', 'timeline', '--inflation', '1.3'],
      '--inflation applies to --replay packing only, not --replay timeline',
    ],
    [['--replay', 'timeline', '--workers', '2'], '--workers applies to --replay packing only, not --replay timeline'],
  ])('rejects %j with exit 2', (args, message) => {
    const r = gpushare('simulate', '--pods', podsFile, ...args);
    expect(r.status).toBe(2);
    expect(r.stderr).toContain(`error: ${message}`);
    expect(r.stdout).toBe('');
  });

  it('names the pod file when no pod has times (exit 1)', () => {
    const bare = join(dir, 'bare.csv');
    writeFileSync(bare, 'name,cpu_milli,memory_mib,num_gpu,gpu_milli\np0,1000,1024,1,500\n');
    const r = gpushare('simulate', '--replay', 'timeline', '--pods', bare, '--gpus', '4', '--seeds', '1');
    expect(r.status).toBe(1);
    expect(r.stderr).toBe(
      `error: ${bare}: no pod has creation_time, scheduled_time and deletion_time (with deletion_time >= ` +
        `scheduled_time); --replay timeline needs them\n`,
    );
  });
});
