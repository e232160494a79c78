/**
 * End-to-end tests of `gpushare simulate`: builds the package, then runs the real bin/gpushare
 * as a child process on tiny trace files.
 */
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runPackingReplay } from '../../src/sim/packing-replay.js';
import { readNodeListFile, readPodListFile } from '../../src/sim/traces/alibaba-csv.js';
import { WAIT_MS } from '../../src/testing/deadlines.js';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const BIN = join(ROOT, 'bin', 'gpushare');
const POD_HEADER =
  'name,cpu_milli,memory_mib,num_gpu,gpu_milli,gpu_spec,qos,pod_phase,creation_time,deletion_time,scheduled_time';
const GPU_MILLI = [1000, 500, 250, 750, 300, 1000, 200, 600, 1000, 400];

/** 4 nodes with 2 + 4 + 8 + 2 = 16 GPUs. */
const NODES_CSV = [
  'sn,cpu_milli,memory_mib,gpu,model',
  'node-0,32000,131072,2,T4',
  'node-1,64000,262144,4,V100M16',
  'node-2,96000,393216,8,G2',
  'node-3,32000,131072,2,P100',
].join('\n');

/** 30 pods: every 7th asks for 2 whole GPUs, the rest for a share of one. */
const POD_ROWS = Array.from({ length: 30 }, (_, i) => {
  const name = `pod-${String(i).padStart(2, '0')}`;
  const [gpus, milli] = i % 7 === 6 ? [2, 1000] : [1, GPU_MILLI[i % GPU_MILLI.length]];
  return `${name},${2000 + 1000 * (i % 4)},8192,${gpus},${milli},,LS,Running,${i * 10},,${i * 10}`;
});

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
let nodesFile: string;
let podsFile: string;

beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'gpushare-e2e-'));
  nodesFile = join(dir, 'nodes.csv');
  podsFile = join(dir, 'pods.csv');
  writeFileSync(nodesFile, `${NODES_CSV}\n`);
  writeFileSync(podsFile, `${[POD_HEADER, ...POD_ROWS].join('\n')}\n`);
});

afterAll(() => {
  if (dir) rmSync(dir, { recursive: true, force: true });
});

describe('gpushare simulate (built CLI)', () => {
  it('runs a 2 × 2 grid on worker threads and writes JSON and HTML', async () => {
    const json = join(dir, 'out.json');
    const html = join(dir, 'out.html');
    const r = gpushare(
      'simulate',
      '--nodes',
      nodesFile,
      '--pods',
      podsFile,
      '--policy',
      'best-fit,fgd',
      '--seeds',
      '1-2',
      '--json',
      json,
      '--report',
      html,
      '--workers',
      '2',
    );
    expect(r.stderr).toBe('');
    expect(r.status).toBe(0);
    const out = r.stdout.split('\n');
    expect(out[0]).toBe(
      `${podsFile} on ${nodesFile}: 4 nodes, 16 GPUs, 30 pods, inflation 1.3, seeds 1-2, workload of default: trace`,
    );
    expect(out[2]).toMatch(/^policy\s+seeds\s+unalloc@100\s+unalloc@130\s+published@100\s+failed pods$/);
    expect(out[4]).toMatch(/^best-fit {2}1-2 /);
    expect(out[5]).toMatch(/^fgd {7}1-2 .* — +\d+\.\d\d$/);
    expect(out[7]).toMatch(/^4 runs in \d+\.\d s \(2 worker\(s\)\)$/);
    expect(out.slice(8)).toEqual([`JSON results written to ${json}`, `HTML report written to ${html}`, '']);

    const report = JSON.parse(readFileSync(json, 'utf8'));
    expect(report.cluster).toEqual({ nodes: 4, gpus: 16 });
    expect(report.inputs).toEqual({ nodesFile, podsFile, pods: 30 });
    expect(report.inflation).toBe(1.3);
    expect(report.workloadSource).toBe('trace');
    expect(report.runs).toHaveLength(4);
    expect(report.runs.map((x: { policy: string; seed: number }) => `${x.policy}/${x.seed}`)).toEqual([
      'best-fit/1',
      'best-fit/2',
      'fgd/1',
      'fgd/2',
    ]);
    for (const run of report.runs) {
      expect(Object.keys(run)).toEqual(
        expect.arrayContaining([
          'policy',
          'seed',
          'unallocatedPctAt100',
          'unallocatedPctAt130',
          'failedPods',
          'wallSeconds',
          'allocationPct',
        ]),
      );
      expect(run.allocationPct).toHaveLength(131);
      expect(run.unallocatedPctAt100).toBeGreaterThanOrEqual(0);
      expect(run.unallocatedPctAt130).toBeLessThanOrEqual(run.unallocatedPctAt100);
      expect(run.arrivals).toBe(30);
    }
    // The worker threads must give exactly what an in-process replay gives.
    const input = { nodes: await readNodeListFile(nodesFile), pods: await readPodListFile(podsFile), inflation: 1.3 };
    for (const run of report.runs) {
      const { wallSeconds: _w, ...expected } = runPackingReplay(input, run.policy, run.seed);
      const { wallSeconds: _x, ...actual } = run;
      expect(actual).toEqual(JSON.parse(JSON.stringify(expected)));
    }
    expect(report.summary.map((s: { policy: string; seeds: number[] }) => [s.policy, s.seeds])).toEqual([
      ['best-fit', [1, 2]],
      ['fgd', [1, 2]],
    ]);
    const fgd = report.summary[1];
    expect(fgd.unallocatedPctAt100.mean).toBeCloseTo(
      (report.runs[2].unallocatedPctAt100 + report.runs[3].unallocatedPctAt100) / 2,
      10,
    );
    expect(fgd.published).toBeNull();

    expect(readFileSync(html, 'utf8')).toMatch(/^<!DOCTYPE html>/i);
    expect(existsSync(`${json}.tmp`)).toBe(false);
    expect(existsSync(`${html}.tmp`)).toBe(false);
  });

  it('names the path of a missing trace file (exit 1)', () => {
    const missing = join(dir, 'missing.csv');
    const r = gpushare('simulate', '--nodes', nodesFile, '--pods', missing, '--policy', 'fgd', '--seeds', '1');
    expect(r.status).toBe(1);
    expect(r.stderr).toContain(`error: ${missing}: cannot read file: ENOENT`);
    expect(r.stdout).toBe('');
  });

  it('names the file and line 1 for a wrong header (exit 1)', () => {
    const bad = join(dir, 'bad-header.csv');
    writeFileSync(bad, NODES_CSV.replace('cpu_milli', 'cpu'));
    const r = gpushare('simulate', '--nodes', bad, '--pods', podsFile, '--policy', 'fgd', '--seeds', '1');
    expect(r.status).toBe(1);
    expect(r.stderr).toContain(`${bad}:1: unknown column(s) 'cpu'`);
  });

  it('names file, line 3 and gpu_milli for a malformed row (exit 1)', () => {
    const bad = join(dir, 'bad-row.csv');
    const rows = [...POD_ROWS];
    rows[1] = 'pod-01,2000,8192,1,abc,,LS,Running,10,,10';
    writeFileSync(bad, [POD_HEADER, ...rows].join('\n'));
    const r = gpushare('simulate', '--nodes', nodesFile, '--pods', bad, '--policy', 'fgd', '--seeds', '1');
    expect(r.status).toBe(1);
    expect(r.stderr).toBe(
      `error: ${bad}:3 field 'gpu_milli': expected an integer in 0..1000 (digits only), found 'abc'\n`,
    );
  });

  it('lists the allowed policies for an unknown one (exit 2)', () => {
    const r = gpushare('simulate', '--nodes', nodesFile, '--pods', podsFile, '--policy', 'fgd,nope');
    expect(r.status).toBe(2);
    expect(r.stderr).toContain("option '--policy <list>'");
    expect(r.stderr).toContain(
      "unknown policy 'nope'; allowed: random, dot-product, gpu-clustering, gpu-packing, best-fit, fgd, default, all",
    );
  });

  it.each([
    [
      ['--seeds', '9-3'],
      "option '--seeds <list>' argument '9-3' is invalid. range '9-3' is reversed; expected integers",
    ],
    [['--seeds', 'x'], "option '--seeds <list>' argument 'x' is invalid. 'x' is not a seed"],
    [['--inflation', '0'], "option '--inflation <x>' argument '0' is invalid. expected a decimal number > 0 and <= 10"],
    [
      ['--inflation', '10.5'],
      "option '--inflation <x>' argument '10.5' is invalid. expected a decimal number > 0 and <= 10",
    ],
    [['--workers', '0'], "option '--workers <n>' argument '0' is invalid. expected an integer >= 1"],
    [
      ['--replay', 'churn'],
      "option '--replay <mode>' argument 'churn' is invalid. Allowed choices are packing, timeline.",
    ],
    [
      ['--workload', 'file'],
      "option '--workload <source>' argument 'file' is invalid. Allowed choices are trace, online.",
    ],
    [
      ['--json', 'same.out', '--report', 'same.out'],
      '--json and --report name the same file (same.out); give each its own path',
    ],
    [['extra'], "too many arguments for 'simulate'. Expected 0 arguments but got 1."],
  ])('rejects %j with exit 2', (args, message) => {
    const r = gpushare('simulate', '--nodes', nodesFile, '--pods', podsFile, ...args);
    expect(r.status).toBe(2);
    expect(r.stderr).toContain(`error: ${message}`);
    expect(r.stdout).toBe('');
  });

  it('fails before running when the --json folder does not exist (exit 1)', () => {
    const out = join(dir, 'no-such-folder', 'out.json');
    const r = gpushare(
      'simulate',
      '--nodes',
      nodesFile,
      '--pods',
      podsFile,
      '--policy',
      'fgd',
      '--seeds',
      '1',
      '--json',
      out,
    );
    expect(r.status).toBe(1);
    expect(r.stderr).toBe(
      `error: cannot write --json file '${out}': folder '${join(dir, 'no-such-folder')}' does not exist\n`,
    );
  });

  it('rejects and terminates every worker when a run fails (built runGrid)', async () => {
    const { runGrid } = await import(pathToFileURL(join(ROOT, 'dist', 'sim', 'run-grid.js')).href);
    const ports = (): number => process.getActiveResourcesInfo().filter((r) => r === 'MessagePort').length;
    const before = ports();
    const grid = runGrid({
      nodesFile,
      podsFile,
      policies: ['best-fit', 'fgd'],
      seeds: [1, 2, 3],
      inflation: 1.3,
      workers: 3,
      onProgress: () => {
        throw new Error('progress sink failed');
      },
    });
    await expect(grid).rejects.toThrow('progress sink failed');
    expect(ports()).toBe(before);
  });

  it('prints the version from package.json', () => {
    const pkg = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { version: string };
    const r = gpushare('--version');
    expect(r.status).toBe(0);
    expect(r.stdout).toBe(`${pkg.version}\n`);
  });
});
