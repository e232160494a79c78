/**
 * End-to-end: `gpushare serve --demo` (what `npm start` runs) on a machine without GPUs: simulated
 * 2xA100-80GB,1xA100-80GB:mig,1xT4, a data dir under the working directory, a quickstart printed,
 * and the CLI working with no flags through the config it wrote.
 */
import { spawn, spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { WAIT_MS } from '../../src/testing/deadlines.js';
import { endJobCgroups } from './support/serve-harness.js';

const BIN = join(import.meta.dirname, '..', '..', 'bin', 'gpushare');
const dir = mkdtempSync(join(tmpdir(), 'gpushare-demo-'));
const env = {
  ...process.env,
  XDG_CONFIG_HOME: join(dir, 'config'),
  GPUSHARE_URL: '',
  GPUSHARE_TOKEN: '',
  PATH: `/nonexistent-no-nvidia:${process.env.PATH}`,
};
const child = spawn(process.execPath, [BIN, 'serve', '--demo', '--port', '0', '--log-level', 'warn'], {
  cwd: dir,
  env,
  stdio: ['ignore', 'pipe', 'pipe'],
});
afterAll(async () => {
  child.kill('SIGKILL');
  spawnSync('sh', [
    '-c',
    `for f in ${dir}/.gpushare-demo/jobs/*/attempt-*.pid; do kill -9 -$(sed 's/[^0-9]//g' "$f") ` +
      `2>/dev/null; done; true`,
  ]);
  await endJobCgroups(join(dir, '.gpushare-demo'));
  rmSync(dir, { recursive: true, force: true, maxRetries: 10, retryDelay: 100 });
});

function run(args: string[]) {
  return spawnSync(process.execPath, [BIN, ...args], { cwd: dir, env, encoding: 'utf8', timeout: WAIT_MS });
}

describe('gpushare serve --demo', () => {
  it('prints the URL, the token location and a 3-line quickstart, and serves the demo GPUs', async () => {
    const out = await new Promise<string>((resolve, reject) => {
      let text = '';
      const timer = setTimeout(() => reject(new Error(`no quickstart in ${WAIT_MS} ms: ${text}`)), WAIT_MS);
      child.stdout.on('data', (d: Buffer) => {
        text += d.toString();
        if (text.includes('gpushare gpus')) {
          clearTimeout(timer);
          resolve(text);
        }
      });
    });
    const lines = out.trim().split('\n');
    expect(lines[0]).toMatch(/^gpushare \S+ listening on https:\/\/127\.0\.0\.1:\d+$/);
    expect(lines[1]).toBe(`GPUs: simulated (2xA100-80GB,1xA100-80GB:mig,1xT4); data: ${join(dir, '.gpushare-demo')}`);
    const url = /listening on (\S+)$/.exec(lines[0]!)![1]!;
    expect(lines[3]).toBe(`dashboard: ${url}/ (sign in with a token); Prometheus metrics: ${url}/metrics`);
    const ca = join(dir, '.gpushare-demo', 'tls', 'ca.crt');
    expect(lines[4]).toBe(`TLS CA: ${ca} (curl --cacert ${ca}; browsers: docs/dashboard.md)`);
    expect(lines.slice(-3)).toEqual([
      '  node bin/gpushare submit --gpu 0.5 -- sleep 60',
      '  node bin/gpushare submit --gpu 0.5 -- sleep 60',
      '  node bin/gpushare gpus',
    ]);
    expect(statSync(join(dir, 'config', 'gpushare', 'config.yaml')).mode & 0o777).toBe(0o600);
    expect(statSync(join(dir, '.gpushare-demo', 'admin-token')).mode & 0o777).toBe(0o600);
    expect(statSync(join(dir, '.gpushare-demo', 'tls', 'ca.key')).mode & 0o777).toBe(0o600);
    const gpus = JSON.parse(run(['gpus', '-o', 'json']).stdout) as {
      index: number;
      model: string;
      migEnabled: boolean;
      simulated: boolean;
    }[];
    expect(gpus.map((g) => [g.index, g.model, g.migEnabled, g.simulated])).toEqual([
      [0, 'A100-80GB', false, true],
      [1, 'A100-80GB', false, true],
      [2, 'A100-80GB', true, true],
      [3, 'T4', false, true],
    ]);
  });

  it('places a mig job on the MIG GPU as a GPU instance with a MIG device UUID', async () => {
    const submitted = run([
      'submit',
      '--mode',
      'mig',
      '--gpu',
      '0.3',
      '--gpu-memory',
      '15GiB',
      '--',
      'sh',
      '-c',
      'echo $CUDA_VISIBLE_DEVICES',
    ]);
    expect(submitted.status, submitted.stderr).toBe(0);
    const id = submitted.stdout.trim().split('\n').at(-1)!;
    let job:
      | {
          state: string;
          placement: {
            mode: string;
            enforcement: { gpuMemory: string; compute: string };
            gpus: { index: number; migProfile: string; migDeviceUuid: string; gpuMemoryMiB: number }[];
          };
        }
      | undefined;
    for (let i = 0; i < 100; i++) {
      job = JSON.parse(run(['show', id, '-o', 'json']).stdout);
      if (job!.state === 'succeeded') break;
      await new Promise((r) => setTimeout(r, 100));
    }
    expect(job!.state).toBe('succeeded');
    // ceil(300 × 7 / 1000) = 3 compute slices and 15 GiB → 3g.40gb (39.25 GiB usable).
    expect(job!.placement.gpus.map((g) => [g.index, g.migProfile, g.gpuMemoryMiB])).toEqual([[2, '3g.40gb', 40192]]);
    expect(job!.placement.mode).toBe('mig');
    expect(job!.placement.enforcement).toEqual({ gpuMemory: 'hardware', compute: 'hardware' });
    expect(run(['logs', id]).stdout.trim()).toBe(job!.placement.gpus[0]!.migDeviceUuid);
    expect(job!.placement.gpus[0]!.migDeviceUuid).toMatch(
      /^MIG-[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/,
    );
  });
});
