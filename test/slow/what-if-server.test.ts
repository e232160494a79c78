/* eslint-disable @typescript-eslint/no-explicit-any -- API bodies are checked field by field */
/**
 * End-to-end: `gpushare what-if` on a real server's history. 300 jobs of known requests run on
 * simulated A100-80GB GPUs: 240 inference jobs ask for 0.5 GPU and 40 GiB and report (through the
 * job report API) a peak of 10 GiB and 20% of a GPU; 60 training jobs ask for a whole GPU and
 * report nothing. Each job runs until the test has seen it running (and, for an inference job,
 * has posted its report). Then `gpushare history export` writes the history, and `gpushare what-if`
 * replays it, twice from the file and once from the server: the same figures each time.
 */
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  api,
  cleanupServe,
  cli,
  pollFor,
  shellJob,
  startServe,
  type ServeHandle,
} from '../e2e/support/serve-harness.js';

const INFERENCE = 240;
const TRAINING = 60;
/** Bound on the whole run of jobs (each loop turn also has its own bounds). */
const RUN_MS = 240_000;

let server: ServeHandle;
let dir: string;
let historyFile: string;

beforeAll(async () => {
  server = await startServe({ simulateGpus: '4xA100-80GB' });
  dir = mkdtempSync(join(tmpdir(), 'gpushare-what-if-'));
  const gates = join(dir, 'gates');
  mkdirSync(gates);
  const ids: number[] = [];
  for (let i = 0; i < INFERENCE + TRAINING; i++) {
    const inference = i % 5 !== 4;
    const gate = join(gates, String(i));
    const body = shellJob(
      `while [ ! -e "${gate}" ]; do sleep 0.02; done`,
      inference ? { gpuCount: 1, gpuMilli: 500, gpuMemoryMiB: 40_960, mode: 'mps' } : { gpuCount: 1 },
      { name: inference ? 'infer' : 'train', priority: inference ? 500 : 100 },
    );
    const r = await api(server, 'POST', '/api/v1/jobs', body);
    expect(r.status).toBe(201);
    ids.push(r.body.id);
  }
  const gateOf = new Map(ids.map((id, i) => [id, join(gates, String(i))]));
  const inferenceIds = new Set(ids.filter((_, i) => i % 5 !== 4));
  const released = new Set<number>();
  const deadline = Date.now() + RUN_MS;
  while (released.size < ids.length) {
    if (Date.now() > deadline) throw new Error(`only ${released.size} of ${ids.length} jobs ran in ${RUN_MS} ms`);
    const running = (await api(server, 'GET', '/api/v1/jobs?state=running')).body.jobs as any[];
    for (const job of running) {
      if (released.has(job.id)) continue;
      if (inferenceIds.has(job.id)) {
        const report = await api(server, 'POST', `/api/v1/jobs/${job.id}/qos-reports`, {
          gpuMemoryUsedMiB: 10_240,
          gpuUtilizationPct: 20,
        });
        expect(report.status).toBe(200);
      }
      writeFileSync(gateOf.get(job.id)!, '');
      released.add(job.id);
    }
    if (running.length === 0) await new Promise((r) => setTimeout(r, 20));
  }
  await pollFor('every job ended', async () => {
    const left = (await api(server, 'GET', '/api/v1/jobs')).body.jobs as any[];
    return left.length === 0 ? true : undefined;
  });
  const exported = cli(server, ['history', 'export', '-o', 'history.csv'], dir);
  historyFile = join(dir, 'history.csv');
  expect([exported.code, exported.stderr]).toEqual([0, `exported 300 jobs to ${historyFile}\n`]);
}, 300_000);

afterAll(async () => {
  if (server) await cleanupServe(server);
  if (dir) rmSync(dir, { recursive: true, force: true });
});

describe('gpushare what-if on a real server’s history', () => {
  it('exports 300 jobs with their requests and the reported peaks', () => {
    const lines = readFileSync(historyFile, 'utf8').trim().split('\n');
    expect(lines).toHaveLength(301);
    const rows = lines.slice(1).map((l) => l.split(','));
    // gpu_milli, sharing_mode, gpu_memory_mib, measured_gpu_memory_mib, measured_gpu_util_pct
    const kinds = new Map<string, number>();
    for (const r of rows) {
      const key = [r[4], r[12], r[13], r[14], r[15]].join(' ');
      kinds.set(key, (kinds.get(key) ?? 0) + 1);
    }
    expect(Object.fromEntries(kinds)).toEqual({ '500 mps 40960 10240 20': 240, '1000 exclusive 0  ': 60 });
  });

  it('prints the GPUs needed with and without sharing, the recommended policy and the advice', () => {
    const r = cli(server, ['what-if', '--trace', historyFile, '--autoscale', 'off'], dir);
    expect([r.code, r.stderr]).toEqual([0, '']);
    expect(r.stdout).toContain('300 jobs (300 with GPUs, 1 tenant)');
    const whole = Number(/whole GPUs \(no sharing\) +default +(\d+)/.exec(r.stdout)?.[1]);
    const shared = Number(/sharing \(recommended\) +\S+ +(\d+)/.exec(r.stdout)?.[1]);
    expect(whole).toBeGreaterThan(shared);
    expect(r.stdout).toMatch(
      /recommended policy: (default|random|dot-product|gpu-clustering|gpu-packing|best-fit|fgd) /,
    );
    expect(r.stdout).toMatch(
      /default\/infer +240\/240 +1 +500 → 240 +20\.0% +40960 → 12288 +10240 +2 \(both\) → 4 \(compute\)/,
    );
    expect(r.stdout).not.toContain('default/train');
  });

  it('gives identical figures for the same export, and for the server’s own history', () => {
    const args = ['what-if', '--trace', historyFile, '-o', 'json', '--autoscale', 'off'];
    const first = cli(server, args, dir);
    const second = cli(server, args, dir);
    const live = cli(server, ['what-if', '-o', 'json', '--autoscale', 'off'], dir);
    expect(first.code).toBe(0);
    expect(second.stdout).toBe(first.stdout);
    expect(live.stdout).toBe(first.stdout);
    const report = JSON.parse(first.stdout);
    expect(report.inputs.jobs).toBe(300);
    expect(
      report.rightSizing.workloads.map((w: any) => [w.workload, w.gpuMilli.recommended, w.gpuMemoryMiB.recommended]),
    ).toEqual([['default/infer', 240, 12_288]]);
    expect(report.rightSizing.pool.gpus).toBeLessThanOrEqual(
      report.shared.find((s: any) => s.policy === report.recommendedPolicy).gpus,
    );
  });
});
