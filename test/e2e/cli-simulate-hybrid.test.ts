/**
 * End-to-end tests of `gpushare simulate --sharing ... --gpu-model ...`: builds the package, then
 * runs the real bin/gpushare on a cut of the shipped trace (the first 400 pods and 100 nodes).
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
const TRACE = join(ROOT, 'data', 'alibaba-gpu-v2023');

interface Result {
  status: number | null;
  stdout: string;
  stderr: string;
}

function gpushare(...args: string[]): Result {
  const r = spawnSync(process.execPath, [BIN, ...args], { cwd: ROOT, encoding: 'utf8', timeout: WAIT_MS });
  return { status: r.status, stdout: r.stdout, stderr: r.stderr };
}

/** The header and the first `rows` data lines of a shipped trace file, written to `dir`. */
function cut(file: string, rows: number): string {
  const lines = readFileSync(join(TRACE, file), 'utf8').split('\n');
  const path = join(dir, file);
  writeFileSync(path, `${lines.slice(0, rows + 1).join('\n')}\n`);
  return path;
}

let dir: string;
let nodesFile: string;
let podsFile: string;

beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'gpushare-e2e-hybrid-'));
  nodesFile = cut('openb_node_list_gpu_node.csv', 100);
  podsFile = cut('openb_pod_list_default.csv', 400);
});

afterAll(() => {
  if (dir) rmSync(dir, { recursive: true, force: true });
});

interface HybridRunJson {
  sharing: string;
  seed: number;
  unallocatedPctAt100: number;
  unrequestedPctAt100: number;
  hardwareIsolatedPct: number;
  reconfigurations: number;
  giCreations: number;
  migModeSwitches: number;
  gpusWithMigJobs: number;
  placedGpuPods: number;
  placedByMode: Record<string, number>;
  allocationPct: (number | null)[];
  requestedAllocationPct: (number | null)[];
}

describe('gpushare simulate --sharing (built CLI)', () => {
  it('runs auto on A100-80GB GPUs and writes JSON whose figures keep their invariants', () => {
    const json = join(dir, 'auto.json');
    const r = gpushare(
      'simulate',
      '--nodes',
      nodesFile,
      '--pods',
      podsFile,
      '--gpu-model',
      'A100-80GB',
      '--sharing',
      'auto',
      '--seeds',
      '1-2',
      '--json',
      json,
    );
    expect(r.stderr).toBe('');
    expect(r.status).toBe(0);
    const out = r.stdout.split('\n');
    expect(out[0]).toBe(
      `${podsFile} on ${nodesFile}: 100 nodes, 544 GPUs, 400 pods, inflation 1.3, seeds 1-2, every GPU a ` +
        `A100-80GB (81920 MiB), sharing auto, node choice: default policy`,
    );
    expect(out[2]).toMatch(
      new RegExp(
        /^sharing\s+seeds\s+unalloc@100\s+unalloc@130\s+unrequested@100\s+failed /.source +
          /pods\s+GPU pods placed %\s+MPS GPUs\s+HW-isolated %/.source,
      ),
    );
    expect(out[4]).toMatch(/^auto +1-2 +\d+\.\d\d ± /);
    expect(out.at(-2)).toBe(`JSON results written to ${json}`);

    const report = JSON.parse(readFileSync(json, 'utf8'));
    expect(report.sharing).toEqual(['auto']);
    expect(report.gpuModel).toBe('A100-80GB');
    expect(report.policy).toBe('default');
    expect(report.cluster).toEqual({ nodes: 100, gpus: 544 });
    expect(report.runs.map((run: HybridRunJson) => [run.sharing, run.seed])).toEqual([
      ['auto', 1],
      ['auto', 2],
    ]);
    for (const run of report.runs as HybridRunJson[]) {
      for (const a of [...run.allocationPct, ...run.requestedAllocationPct])
        if (a !== null) expect(a).toBeLessThanOrEqual(100);
      expect(run.unallocatedPctAt100).toBeGreaterThanOrEqual(0);
      expect(run.unrequestedPctAt100).toBeGreaterThanOrEqual(run.unallocatedPctAt100);
      expect(run.hardwareIsolatedPct).toBeGreaterThan(0); // the cut has LS shares: some get MIG
      expect(run.hardwareIsolatedPct).toBeLessThan(100);
      expect(run.gpusWithMigJobs).toBeGreaterThan(0);
      expect(run.reconfigurations).toBeGreaterThanOrEqual(run.gpusWithMigJobs);
      expect(run.reconfigurations).toBe(run.giCreations + run.migModeSwitches);
      expect(run.giCreations).toBe(run.placedByMode.mig);
    }
    expect(report.summary).toHaveLength(1);
    expect(report.summary[0].sharing).toBe('auto');
  });

  it(
    'spreads pods over tenants: one tenant per MPS GPU, or (--mps-any-tenant) exactly the single-tenant ' + 'packing',
    () => {
      const run = (
        ...extra: string[]
      ): HybridRunJson & {
        tenants: number;
        mpsOneTenantPerGpu: boolean;
        mpsGpus: number;
        placedGpuPodsPct: number;
      } => {
        const json = join(dir, `tenants${extra.join('')}.json`);
        const r = gpushare(
          'simulate',
          '--nodes',
          nodesFile,
          '--pods',
          podsFile,
          '--gpu-model',
          'A100-80GB',
          '--sharing',
          'mps',
          '--seeds',
          '5',
          '--json',
          json,
          ...extra,
        );
        expect([r.status, r.stderr]).toEqual([0, '']);
        return JSON.parse(readFileSync(json, 'utf8')).runs[0];
      };
      const single = run();
      const ruled = run('--tenants', '4');
      const anyTenant = run('--tenants', '4', '--mps-any-tenant');
      expect([
        single.tenants,
        single.mpsOneTenantPerGpu,
        ruled.tenants,
        ruled.mpsOneTenantPerGpu,
        anyTenant.mpsOneTenantPerGpu,
      ]).toEqual([1, true, 4, true, false]);
      expect([anyTenant.placedGpuPods, anyTenant.mpsGpus, anyTenant.unallocatedPctAt100]).toEqual([
        single.placedGpuPods,
        single.mpsGpus,
        single.unallocatedPctAt100,
      ]);
      expect(ruled.mpsGpus).toBeGreaterThan(single.mpsGpus);
      expect(ruled.placedGpuPodsPct).toBeGreaterThan(0);
    },
  );

  it('compares settings on worker threads and writes an HTML report', () => {
    const json = join(dir, 'all.json');
    const html = join(dir, 'all.html');
    const r = gpushare(
      'simulate',
      '--nodes',
      nodesFile,
      '--pods',
      podsFile,
      '--gpu-model',
      'A100-80GB',
      '--sharing',
      'mig,mps,timeslice',
      '--seeds',
      '3',
      '--workers',
      '2',
      '--json',
      json,
      '--report',
      html,
    );
    expect(r.stderr).toBe('');
    expect(r.status).toBe(0);
    expect(r.stdout).toMatch(/\n3 runs in \d+\.\d s \(2 worker\(s\)\)\n/);
    const report = JSON.parse(readFileSync(json, 'utf8'));
    const [mig, mps, timeslice] = report.runs as HybridRunJson[];
    expect(mig!.hardwareIsolatedPct).toBe(100);
    expect(mig!.migModeSwitches).toBe(544);
    expect([mps!.hardwareIsolatedPct, mps!.reconfigurations, timeslice!.reconfigurations]).toEqual([0, 0, 0]);
    expect(existsSync(html)).toBe(true);
    const page = readFileSync(html, 'utf8');
    expect(page).toMatch(/^<!doctype html>/);
    expect(page).toContain('Hybrid sharing');
    expect(page).not.toMatch(/<script|https?:\/\//);
  });

  it.each([
    [['--sharing', 'auto'], /error: --sharing needs --gpu-model MODEL/],
    [['--gpu-model', 'A100-80GB'], /error: --gpu-model applies to --sharing only/],
    [
      ['--sharing', 'auto', '--gpu-model', 'Quadro'],
      new RegExp(
        /error: option '--gpu-model <model>' argument 'Quadro' is invalid\. /.source +
          /expected a GPU model of the catalog with known memory; allowed: /.source,
      ),
    ],
    [
      ['--sharing', 'exclusive', '--gpu-model', 'A100-80GB'],
      new RegExp(
        /error: option '--sharing <list>' argument 'exclusive' is invalid\. /.source +
          /unknown sharing setting 'exclusive'; allowed: auto, mig, mps, timeslice/.source,
      ),
    ],
    [['--sharing', 'mig', '--gpu-model', 'T4'], /error: --sharing mig needs a MIG-capable --gpu-model; T4 has no MIG/],
    [
      ['--sharing', 'auto', '--gpu-model', 'A100-80GB', '--replay', 'timeline'],
      /error: --sharing applies to --replay packing only/,
    ],
    [['--tenants', '3'], /error: --tenants applies to --sharing only/],
    [['--mps-any-tenant'], /error: --mps-any-tenant applies to --sharing only/],
    [
      ['--sharing', 'mps', '--gpu-model', 'A100-80GB', '--tenants', '0'],
      /error: option '--tenants <n>' argument '0' is invalid\. expected a whole number of tenants in 1\.\.1000/,
    ],
  ])('exits 2 for %j', (args, message) => {
    const r = gpushare('simulate', '--nodes', nodesFile, '--pods', podsFile, ...args);
    expect(r.status).toBe(2);
    expect(r.stderr).toMatch(message);
    expect(r.stdout).toBe('');
  });
});
