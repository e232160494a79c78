/**
 * End-to-end tests of `gpushare what-if --trace FILE`: the built bin/gpushare as a child process on
 * a history file in the format `gpushare history export` writes, and its flags.
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
const HEADER =
  'name,cpu_milli,memory_mib,num_gpu,gpu_milli,gpu_spec,qos,creation_time,scheduled_time,deletion_time,' +
  'tenant,priority,sharing_mode,gpu_memory_mib,measured_gpu_memory_mib,measured_gpu_util_pct';

function gpushare(...args: string[]) {
  const r = spawnSync(process.execPath, [BIN, ...args], { cwd: ROOT, encoding: 'utf8', timeout: WAIT_MS });
  return { status: r.status, stdout: r.stdout, stderr: r.stderr };
}

let dir: string;
let history: string;

beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'gpushare-e2e-what-if-'));
  history = join(dir, 'history.csv');
  const rows = [HEADER];
  const t0 = 1_764_950_000;
  // 60 inference jobs of an hour, one a minute: 0.5 GPU and 40 GiB asked, 10 GiB and 20% used.
  for (let i = 0; i < 60; i++) {
    const start = t0 + 60 * i + (i % 5) * 10;
    rows.push(
      `infer-${i},2000,8192,1,500,,,${t0 + 60 * i}.000,${start}.250,${start + 3600}.250,team-a,500,mps,40960,10240,20`,
    );
  }
  // 20 two-GPU training jobs of two hours, nothing measured.
  for (let i = 0; i < 20; i++)
    rows.push(
      `train-${i},8000,65536,2,1000,,,${t0 + 300 * i},${t0 + 300 * i},${t0 + 300 * i + 7200},team-b,900,exclusive,0,,`,
    );
  writeFileSync(history, `${rows.join('\n')}\n`);
});

afterAll(() => {
  if (dir) rmSync(dir, { recursive: true, force: true });
});

describe('gpushare what-if (built CLI)', () => {
  it('prints the GPUs needed with and without sharing, the recommended policy and the advice; writes HTML', () => {
    const html = join(dir, 'what-if.html');
    const r = gpushare('what-if', '--trace', history, '--report', html);
    expect(r.stderr).toBe('');
    expect(r.status).toBe(0);
    expect(r.stdout).toContain('80 jobs (80 with GPUs, 2 tenants)');
    expect(r.stdout).toContain('p95 wait on the server 40 s');
    expect(r.stdout).toMatch(/whole GPUs \(no sharing\) +default +82 +0/);
    expect(r.stdout).toMatch(/sharing \(recommended\) +default +54 +0 +34\.1%/);
    expect(r.stdout).toMatch(/right-sized requests +default +43 +0 +47\.6%/);
    expect(r.stdout).toMatch(/team-a\/infer +60\/60 +1 +500 → 240 +20\.0% +40960 → 12288 +10240/);
    expect(r.stdout).toContain(
      'right-sized requests need 43 GPUs with default, against 54 as asked: 11 GPUs saved (20.4%)',
    );
    const page = readFileSync(html, 'utf8');
    expect(page.startsWith('<!doctype html>')).toBe(true);
    expect(page.match(/<svg /g)).toHaveLength(1);
    expect(page).not.toMatch(/<script|<link|src=|href=/);
  });

  it('prints the same report twice as JSON, with every policy tried', () => {
    const args = ['what-if', '--trace', history, '-o', 'json', '--autoscale', 'off'];
    const a = gpushare(...args);
    const b = gpushare(...args);
    expect(a.status).toBe(0);
    expect(b.stdout).toBe(a.stdout);
    const report = JSON.parse(a.stdout);
    expect(report.shared.map((s: { policy: string; gpus: number }) => [s.policy, s.gpus])).toEqual([
      ['default', 54],
      ['random', 66],
      ['dot-product', 56],
      ['gpu-clustering', 54],
      ['gpu-packing', 56],
      ['best-fit', 56],
      ['fgd', 54],
    ]);
    expect(report.autoscaled).toBeNull();
    expect(report.rightSizing.workloads[0].gpuMilli).toEqual({
      requested: 500,
      peak: 200,
      recommended: 240,
      basis: 'measured-peak',
    });
  });

  it.each([
    [['--gpu-model', 'Z9'], "option '--gpu-model <model>' argument 'Z9' is invalid. unknown GPU model 'Z9'"],
    [['--policy', 'default,nope'], 'unknown: nope'],
    [['--headroom', '-1'], 'expected a fraction from 0 to 10'],
    [['--gpus-per-node', '0'], 'expected a whole number in 1..64'],
    [['--output', 'yaml'], 'Allowed choices are table, json'],
  ])('rejects %j with exit 2', (flags, message) => {
    const r = gpushare('what-if', '--trace', history, ...flags);
    expect(r.status).toBe(2);
    expect(r.stderr).toContain(message);
  });

  it('names the jobs that fit no node and the rows that end before they start, and replays the rest', () => {
    const mixed = join(dir, 'mixed.csv');
    writeFileSync(
      mixed,
      readFileSync(history, 'utf8') +
        'big-1,2000,8192,9,1000,,,1764950000,1764950000,1764953600,team-c,500,exclusive,0,,\n' +
        'late-1,2000,8192,1,500,,,1764950000,1764950100,1764950050,team-c,500,mps,0,,\n',
    );
    const r = gpushare('what-if', '--trace', mixed, '--autoscale', 'off');
    expect(r.status).toBe(0);
    expect(r.stdout).toContain('81 jobs (81 with GPUs, 3 tenants)');
    expect(r.stdout).toContain('1 row(s) left out: their end is before their start');
    expect(r.stdout).toContain(
      '1 job(s) fit no node of 8 A100-80GB GPUs (128 cores, 1024 GiB) and are left out of the replays, ' +
        'e.g. big-1 (9 × 1000 milli-GPU, 2000 milli-CPU, 8192 MiB host)',
    );
    expect(r.stdout).toMatch(/whole GPUs \(no sharing\) +default +82 +0/);
    const empty = join(dir, 'empty.csv');
    writeFileSync(empty, `${HEADER}\n`);
    const none = gpushare('what-if', '--trace', empty);
    expect([none.status, none.stderr]).toEqual([1, `error: ${empty}: the history has no job that ran and ended\n`]);
  });

  it('names the file, line and field of a malformed history (exit 1)', () => {
    const bad = join(dir, 'bad.csv');
    writeFileSync(bad, `${HEADER}\nx-1,1000,1024,1,500,,,10,10,20,t,500,warp,0,,\n`);
    const r = gpushare('what-if', '--trace', bad);
    expect(r.status).toBe(1);
    expect(r.stderr).toContain(`${bad}:2 field 'sharing_mode'`);
  });
});
