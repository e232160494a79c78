/**
 * End-to-end tests of `gpushare simulate --replay timeline --pool-report`: runs the built
 * bin/gpushare as a child process on the first 300 pods of the shipped trace, and checks its flags.
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { WAIT_MS } from '../../src/testing/deadlines.js';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const BIN = join(ROOT, 'bin', 'gpushare');
const SHIPPED_PODS = join(ROOT, 'data', 'alibaba-gpu-v2023', 'openb_pod_list_default.csv');

function gpushare(...args: string[]) {
  const r = spawnSync(process.execPath, [BIN, ...args], { cwd: ROOT, encoding: 'utf8', timeout: WAIT_MS });
  return { status: r.status, stdout: r.stdout, stderr: r.stderr };
}

let dir: string;
let podsFile: string;

beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'gpushare-e2e-pool-'));
  podsFile = join(dir, 'pods-300.csv');
  const lines = readFileSync(SHIPPED_PODS, 'utf8').split('\n');
  writeFileSync(podsFile, `${lines.slice(0, 301).join('\n')}\n`);
});

afterAll(() => {
  if (dir) rmSync(dir, { recursive: true, force: true });
});

describe('gpushare simulate --pool-report (built CLI)', () => {
  it('prints the four scenarios and the goals, and writes the JSON and a self-contained HTML report', () => {
    const json = join(dir, 'pool.json');
    const html = join(dir, 'pool.html');
    const r = gpushare(
      'simulate',
      '--replay',
      'timeline',
      '--pool-report',
      '--pods',
      podsFile,
      '--seeds',
      '42',
      '--json',
      json,
      '--report',
      html,
    );
    expect(r.stderr).toBe('');
    expect(r.status).toBe(0);
    for (const label of [
      '(0) fixed pool',
      '(a) autoscaled, whole GPUs',
      '(b) autoscaled, sharing',
      '(c) autoscaled, hybrid',
    ])
      expect(r.stdout).toContain(label);
    expect(r.stdout).toContain('sharing ceiling: 1 − ');
    expect(r.stdout).toMatch(/NOT MET +\(b\) saves at least 90% of the ceiling/);
    expect(r.stdout).toMatch(
      /packing bound: 1 − \d+ GPU-h that the jobs running at once occupy at least \(shares packed/,
    );
    expect(r.stdout).toContain('where the GPU-hours paid went (means over seeds):');
    expect(r.stdout).toContain('preemption off');
    expect(r.stdout).toContain('prices: Google Cloud Compute Engine, on-demand, us-central1, 2025-03-06 (GPUs only)');
    const report = JSON.parse(readFileSync(json, 'utf8'));
    expect(report.replay).toBe('pool');
    expect(report.settings).toMatchObject({
      seeds: [42],
      waitTargetSeconds: 1200,
      preemption: false,
      arrivalSpeedup: 1,
    });
    expect(report.summary.map((s: { scenario: string }) => s.scenario)).toEqual([
      'fixed-whole',
      'autoscaled-whole',
      'autoscaled-sharing',
      'autoscaled-hybrid',
    ]);
    expect(report.runs.map((run: { gpuHours: number }) => Math.round(run.gpuHours))).toEqual([
      139_782, 44_300, 38_694, 44_116,
    ]);
    for (const run of report.runs)
      expect(run.jobs + run.unplaceable).toBe(report.inputs.timedPods - report.inputs.cpuOnlyLeftOut);
    const page = readFileSync(html, 'utf8');
    expect(page.startsWith('<!doctype html>')).toBe(true);
    expect(page.match(/<svg /g)).toHaveLength(3);
    expect(page).not.toMatch(/<script|<link|src=|href=/);
    expect(page).toContain('Where the GPU-hours paid went (means over seeds)');
    expect(page).toContain('Packing bound: 1 − ');
  });

  it.each([
    [
      ['--pool-report', '--wait-target', '0'],
      "option '--wait-target <seconds>' argument '0' is invalid. expected a number of seconds > 0",
    ],
    [
      ['--pool-report', '--scale-down-utilization', '1.5'],
      "option '--scale-down-utilization <x>' argument '1.5' is invalid. expected a share of a node’s GPUs from 0 to 1",
    ],
    [
      ['--pool-report', '--host-prices', 'maybe'],
      "option '--host-prices <on|off>' argument 'maybe' is invalid. Allowed choices are on, off.",
    ],
    [
      ['--pool-report', '--boot-seconds', '-1'],
      "option '--boot-seconds <seconds>' argument '-1' is invalid. expected a number of seconds ≥ 0",
    ],
    [['--wait-target', '60'], '--wait-target applies to --pool-report only; add --replay timeline --pool-report'],
    [['--pool-report', '--gpus', '16'], '--gpus is not allowed with --pool-report'],
    [
      ['--pool-report', '--policy', 'fgd'],
      '--pool-report places with the default policy; --policy fgd is not allowed with it (allowed: default)',
    ],
    [
      ['--pool-report', '--workload', 'online'],
      "--pool-report uses the trace's task types as the default policy's workload; --workload online is not allowed",
    ],
    [['--pool-report', '--replay', 'packing'], '--pool-report applies to --replay timeline only'],
    [['--pool-report', '--sharing', 'auto', '--gpu-model', 'A100-80GB'], '--sharing applies to --replay packing only'],
  ])('rejects %j with exit 2', (args, message) => {
    const r = gpushare('simulate', '--replay', 'timeline', '--pods', podsFile, ...args);
    expect(r.status).toBe(2);
    expect(r.stderr).toContain(`error: ${message}`);
    expect(r.stdout).toBe('');
  });
});
