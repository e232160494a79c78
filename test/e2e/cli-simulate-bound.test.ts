/**
 * End-to-end tests of `gpushare simulate --bound` (docs/packing-bound.md): the real bin/gpushare
 * on a tiny trace, loading HiGHS through the composition root.
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
const POD_HEADER =
  'name,cpu_milli,memory_mib,num_gpu,gpu_milli,gpu_spec,qos,pod_phase,creation_time,deletion_time,scheduled_time';
/** 20 nodes of 8 GPUs (160 GPUs): one whole GPU is 0.625% of capacity, so every 1% bin has samples. */
const NODES_CSV = [
  'sn,cpu_milli,memory_mib,gpu,model',
  ...Array.from({ length: 20 }, (_, i) => `node-${String(i).padStart(2, '0')},32000,131072,8,G2`),
].join('\n');
/** 40 pods: 650-milli shares (two never share a GPU), 12-core whole GPUs, a few 2-GPU pods. */
const POD_ROWS = Array.from({ length: 40 }, (_, i) => {
  const [gpus, milli, cpu] = i % 4 === 0 ? [1, 1000, 12000] : i % 10 === 5 ? [2, 1000, 4000] : [1, 650, 1000];
  return `pod-${String(i).padStart(2, '0')},${cpu},4096,${gpus},${milli},,LS,Running,0,,0`;
});

function gpushare(...args: string[]): { status: number | null; stdout: string; stderr: string } {
  const r = spawnSync(process.execPath, [BIN, ...args], { cwd: ROOT, encoding: 'utf8', timeout: WAIT_MS });
  return { status: r.status, stdout: r.stdout, stderr: r.stderr };
}

let dir: string;
let files: string[];
beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'gpushare-e2e-bound-'));
  const nodes = join(dir, 'nodes.csv');
  const pods = join(dir, 'pods.csv');
  writeFileSync(nodes, `${NODES_CSV}\n`);
  writeFileSync(pods, `${[POD_HEADER, ...POD_ROWS].join('\n')}\n`);
  files = ['--nodes', nodes, '--pods', pods];
});
afterAll(() => {
  if (dir) rmSync(dir, { recursive: true, force: true });
});

describe('gpushare simulate --bound (built CLI)', () => {
  it('prints the bound beside each policy and writes it to the JSON', () => {
    const json = join(dir, 'out.json');
    const r = gpushare(
      'simulate',
      ...files,
      '--policy',
      'fgd,default',
      '--seeds',
      '1-2',
      '--bound',
      '--bound-levels',
      '100,130',
      '--json',
      json,
    );
    expect(r.stderr).toBe('');
    expect(r.status).toBe(0);
    const out = r.stdout.split('\n');
    const at = out.indexOf(
      'Unallocated GPU % at each arrival level (mean over seeds) and its gap to the bound no placement can beat:',
    );
    expect(at).toBeGreaterThan(0);
    expect(out[at + 1]).toMatch(/^policy\s+U@100 \(gap\)\s+U@130 \(gap\)$/);
    expect(out[at + 3]).toMatch(/^bound\s+\d+\.\d\d\s+\d+\.\d\d$/);
    expect(out[at + 4]).toMatch(/^fgd\s+\d+\.\d\d \(\+\d+\.\d\d\)\s+\d+\.\d\d \(\+\d+\.\d\d\)$/);
    expect(out[at + 7]).toMatch(/^bound: 2 seed\(s\) × 2 level\(s\) in \d+\.\d s \(docs\/packing-bound\.md\)$/);
    const report = JSON.parse(readFileSync(json, 'utf8'));
    expect(report.bound.levelsPct).toEqual([100, 130]);
    expect(report.bound.seeds).toEqual([1, 2]);
    for (const run of report.runs) {
      const bound = report.bound.unallocatedPctBoundBySeed[report.bound.seeds.indexOf(run.seed)];
      expect(run.unallocatedPctAt100).toBeGreaterThanOrEqual(bound[0]);
      expect(run.unallocatedPctAt130).toBeGreaterThanOrEqual(bound[1]);
    }
  });

  it.each([
    [['--bound', '--bound-levels', '131'], "'131' is out of range; expected integer levels 0..130"],
    [['--bound-levels', '100'], '--bound-levels needs --bound'],
    [['--replay', 'timeline', '--bound'], '--bound applies to --replay packing only, not --replay timeline'],
  ])('refuses %j (exit 2)', (args, message) => {
    const r = gpushare('simulate', ...files, ...args);
    expect(r.status).toBe(2);
    expect(r.stderr).toContain(message);
  });
});
