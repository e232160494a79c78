/**
 * End-to-end test of `gpushare pack-by-use`: the built bin/gpushare on the shipped GenAI pods
 * (data/alibaba-genai-v2026-gpu-util), with its default settings: the figures of the README's table.
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { WAIT_MS } from '../../src/testing/deadlines.js';
import type { PackByUseResult } from '../../src/sim/genai/pack-by-use.js';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const BIN = join(ROOT, 'bin', 'gpushare');

function gpushare(...args: string[]) {
  const r = spawnSync(process.execPath, [BIN, ...args], { cwd: ROOT, encoding: 'utf8', timeout: WAIT_MS });
  return { status: r.status, stdout: r.stdout, stderr: r.stderr };
}

let dir: string;
beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'gpushare-e2e-pack-'));
});
afterAll(() => {
  if (dir) rmSync(dir, { recursive: true, force: true });
});

describe('gpushare pack-by-use (built CLI)', () => {
  it('packs the GenAI pods on A100-80GB and H200-141GB and judges them on the second half', () => {
    const json = join(dir, 'pack.json');
    const html = join(dir, 'pack.html');
    const r = gpushare('pack-by-use', '--json', json, '--report', html);
    expect([r.status, r.stderr]).toEqual([0, '']);
    expect(r.stdout).toContain(
      'pods: 111 placed and judged; left out: 1 in one file only, 12 absent from the second half, 20 with fewer',
    );
    expect(r.stdout).toMatch(/A100-80GB {3}packed by use {10}5% {4}64 {2}42\.3% {9}3\.98 {10}0\.000/);
    const result = JSON.parse(readFileSync(json, 'utf8')) as PackByUseResult;
    const figures = result.models.map((m) => ({
      model: m.model.name,
      headroom: m.headroom,
      gpus: m.packed.gpus,
      alone: m.onePodPerGpu.gpus,
      busy: m.packed.meanBusyPct.toFixed(2),
      aloneBusy: m.onePodPerGpu.meanBusyPct.toFixed(2),
      overloaded: m.packed.overloadedGpuMinutes,
      breaking: m.packed.gpusBreakingRule,
      overrun: m.packed.memoryOverrunGpuMinutes,
      floor: [m.floor.lowerBound, m.floor.upperBound],
      verdicts: m.goals.map((g) => g.verdict),
    }));
    expect(figures).toEqual([
      {
        model: 'A100-80GB',
        headroom: 0.05,
        gpus: 64,
        alone: 111,
        busy: '3.98',
        aloneBusy: '2.30',
        overloaded: 0,
        breaking: 0,
        overrun: 0,
        floor: [50, 50],
        verdicts: ['missed', 'missed', 'met', 'met'],
      },
      {
        model: 'H200-141GB',
        headroom: 0,
        gpus: 48,
        alone: 111,
        busy: '5.31',
        aloneBusy: '2.30',
        overloaded: 6,
        breaking: 0,
        overrun: 0,
        floor: [26, 27],
        verdicts: ['met', 'missed', 'met', 'met'],
      },
    ]);
    expect(readFileSync(html, 'utf8')).toContain('<td class="num">50 (exact)</td>');
  });

  it('refuses a bad flag value with exit 2, naming the flag and the allowed values', () => {
    const r = gpushare('pack-by-use', '--headroom', '5%');
    expect(r.status).toBe(2);
    expect(r.stderr).toContain(
      "option '--headroom <auto|fraction>' argument '5%' is invalid. expected auto or a fraction of the peak",
    );
    const missing = gpushare('pack-by-use', '--data', join(dir, 'nowhere'));
    expect(missing.status).toBe(1);
    expect(missing.stderr).toContain('pod_gpu_duty_cycle_anon.csv.gz: cannot read file: ENOENT');
  });
});
