/**
 * End-to-end test of `gpushare synth-trace`: builds the package, synthesizes a gpuspec variant of
 * the shipped default pod list with the real bin/gpushare, then replays it with `simulate`.
 */
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readPodListFile } from '../../src/sim/traces/alibaba-csv.js';
import { WAIT_MS } from '../../src/testing/deadlines.js';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const BIN = join(ROOT, 'bin', 'gpushare');

interface Result {
  status: number | null;
  stdout: string;
  stderr: string;
}

function gpushare(...args: string[]): Result {
  const r = spawnSync(process.execPath, [BIN, ...args], { cwd: ROOT, encoding: 'utf8', timeout: WAIT_MS });
  return { status: r.status, stdout: r.stdout, stderr: r.stderr };
}

let dir: string;

beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'gpushare-synth-'));
});

afterAll(() => {
  if (dir) rmSync(dir, { recursive: true, force: true });
});

describe('gpushare synth-trace (built CLI)', () => {
  it('writes a gpuspec:20 variant that simulate replays', async () => {
    const out = join(dir, 'gpuspec20.csv');
    const r = gpushare('synth-trace', '--variant', 'gpuspec:20', '--seed', '3', '--out', out);
    expect(r.stderr).toBe('');
    expect(r.status).toBe(0);
    expect(r.stdout).toBe(
      `gpuspec:20 seed 3: wrote 8152 pods (7064 GPU tasks) to ${out}\n` +
        ('CPU-only 13.35% of tasks; GPU request 6086.8 GPUs, sharing 28.45%, multi-GPU 7.29%; gpu_spec on ' +
          '20.00% of GPU tasks\n'),
    );
    expect(existsSync(`${out}.tmp`)).toBe(false);

    const pods = await readPodListFile(out);
    expect(pods).toHaveLength(8152);
    expect(pods.filter((p) => p.gpuSpec !== '')).toHaveLength(Math.round(0.2 * 7064));
    // Same seed → byte-identical file.
    const again = join(dir, 'again.csv');
    expect(gpushare('synth-trace', '--variant', 'gpuspec:20', '--seed', '3', '--out', again).status).toBe(0);
    expect(readFileSync(again, 'utf8')).toBe(readFileSync(out, 'utf8'));

    const json = join(dir, 'sim.json');
    const sim = gpushare(
      'simulate',
      '--pods',
      out,
      '--policy',
      'best-fit',
      '--seeds',
      '1',
      '--json',
      json,
      '--workers',
      '1',
    );
    expect(sim.stderr).toBe('');
    expect(sim.status).toBe(0);
    const report = JSON.parse(readFileSync(json, 'utf8'));
    expect(report.inputs.pods).toBe(8152);
    expect(report.cluster).toEqual({ nodes: 1213, gpus: 6212 });
    expect(report.runs).toHaveLength(1);
    expect(report.runs[0].policy).toBe('best-fit');
    expect(report.runs[0].seed).toBe(1);
    expect(report.runs[0].arrivals).toBeGreaterThan(8000);
    expect(report.runs[0].unallocatedPctAt130).toBeGreaterThanOrEqual(0);
    expect(report.runs[0].unallocatedPctAt130).toBeLessThan(100);
  });

  it.each([['gpu:20'], ['cpu:120'], ['cpu'], ['gpushare:-5'], ['multigpu:abc']])(
    'rejects --variant %s with exit 2 and lists the allowed kinds and range',
    (variant) => {
      const r = gpushare('synth-trace', '--variant', variant, '--out', join(dir, 'x.csv'));
      expect(r.status).toBe(2);
      expect(r.stderr).toContain(
        `error: option '--variant <kind:pct>' argument '${variant}' is invalid. expected KIND:PCT with ` +
          `PCT a number in 0..100 and KIND one of cpu (`,
      );
      expect(r.stderr).toContain(
        'gpushare (GPU-sharing tasks, % of GPU request), multigpu (multi-GPU tasks, % of GPU request), gpuspec (',
      );
      expect(r.stdout).toBe('');
      expect(existsSync(join(dir, 'x.csv'))).toBe(false);
    },
  );

  it('fails (exit 1) when the --out folder does not exist', () => {
    const out = join(dir, 'missing', 'x.csv');
    const r = gpushare('synth-trace', '--variant', 'cpu:25', '--out', out);
    expect(r.status).toBe(1);
    expect(r.stderr).toBe(`error: cannot write --out file '${out}': folder '${join(dir, 'missing')}' does not exist\n`);
  });
});
