/**
 * End-to-end: GPU discovery through a stand-in `nvidia-smi` on PATH that prints a recorded T4
 * output (`-q -x` recorded; `--query-gpu` and `-L` derived from that recording's values), health
 * polling (a GPU that vanishes gets no new jobs), and cordon/uncordon from the CLI.
 */
import { chmodSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import {
  api,
  cleanupServe,
  cli,
  shellJob,
  startServe,
  waitForJob,
  waitForPasses,
  type ServeHandle,
  serverFetch,
} from './support/serve-harness.js';
import { parseMetricsText, sampleValue } from '../../src/adapters/metrics/metrics-text.js';

const FIELDS =
  'index,uuid,name,memory.total,memory.used,memory.free,utilization.gpu,utilization.memory,temperature.gpu,' +
  'power.draw,mig.mode.current,compute_mode,pci.bus_id';
const T4_UUID = 'GPU-d37e67a5-91dd-3774-a5cb-99096249601a';
const T4_CSV = `0, ${T4_UUID}, Tesla T4, 15360, 1032, 13939, 0, 0, 40, 26.78, [N/A], Default, 00000000:00:1E.0\n`;
const T4_LIST = `GPU 0: Tesla T4 (UUID: ${T4_UUID})\n`;
const T4_XML = readFileSync(
  new URL('../fixtures/nvidia-smi/xml/q-x__tesla-t4__515.105.01.xml', import.meta.url),
  'utf8',
);

const smiDir = mkdtempSync(join(tmpdir(), 'gpushare-smi-'));
writeFileSync(
  join(smiDir, 'nvidia-smi'),
  `#!/bin/sh
d="$(dirname "$0")"
if [ -f "$d/gone" ]; then echo "No devices were found"; exit 6; fi
case "$*" in
  "--query-gpu=${FIELDS} --format=csv,noheader,nounits") exec cat "$d/query.csv" ;;
  "-L") exec cat "$d/list.txt" ;;
  "-q -x") exec cat "$d/q.xml" ;;
esac
echo "stand-in nvidia-smi: unexpected arguments: $*" >&2
exit 2
`,
);
chmodSync(join(smiDir, 'nvidia-smi'), 0o755);
writeFileSync(join(smiDir, 'query.csv'), T4_CSV);
writeFileSync(join(smiDir, 'list.txt'), T4_LIST);
writeFileSync(join(smiDir, 'q.xml'), T4_XML);
/** While `gone` exists the stand-in answers as nvidia-smi does when the GPU fell off the bus. */
const present = (yes: boolean) =>
  yes ? rmSync(join(smiDir, 'gone'), { force: true }) : writeFileSync(join(smiDir, 'gone'), '');

let server: ServeHandle | null = null;
afterEach(async () => {
  if (server) await cleanupServe(server);
  server = null;
});
afterAll(() => rmSync(smiDir, { recursive: true, force: true }));

describe('gpushare serve on a host with nvidia-smi', () => {
  it(
    'uses the real GPU nvidia-smi lists, stops placing on it when nvidia-smi loses it, and resumes ' +
      'when it is back',
    async () => {
      present(true);
      const dir = mkdtempSync(join(tmpdir(), 'gpushare-e2e-'));
      server = await startServe({
        dataDir: dir,
        config: { healthPollIntervalSeconds: 1 },
        env: { PATH: `${smiDir}:${process.env.PATH}` },
      });
      const gpus = JSON.parse(cli(server, ['gpus', '-o', 'json']).stdout);
      expect(
        gpus.map((g: Record<string, unknown>) => [
          g.index,
          g.uuid,
          g.model,
          g.name,
          g.gpuMemoryMiB,
          g.simulated,
          g.healthy,
        ]),
      ).toEqual([[0, T4_UUID, 'T4', 'Tesla T4', 15360, false, true]]);
      const first = await api(
        server,
        'POST',
        '/api/v1/jobs',
        shellJob('echo $CUDA_VISIBLE_DEVICES', { gpuMilli: 500 }),
      );
      expect((await waitForJob(server, first.body.id, (j) => j.state === 'succeeded')).placement.simulated).toBe(false);
      expect(cli(server, ['logs', String(first.body.id)]).stdout).toBe(`${T4_UUID}\n`);

      present(false);
      const vanished = await waitForGpu(server, (g) => g.healthy === false);
      expect(vanished.schedulable).toBe(false);
      expect(vanished.healthReason).toMatch(/No devices were found/);
      // What the GpushareGpuUnhealthy alert reads: the vanished GPU keeps its series, at 0.
      const healthy = async () =>
        sampleValue(
          parseMetricsText(
            await (
              await serverFetch(server!, '/metrics', { headers: { authorization: `Bearer ${server!.adminToken}` } })
            ).text(),
          ),
          'gpushare_gpu_healthy',
          { gpu: '0', uuid: T4_UUID, model: 'T4' },
        );
      expect(await healthy()).toBe(0);
      const second = await api(server, 'POST', '/api/v1/jobs', shellJob('echo again', { gpuMilli: 500 }));
      await waitForPasses(server, 3);
      expect((await api(server, 'GET', `/api/v1/jobs/${second.body.id}`)).body.state).toBe('pending');

      present(true);
      await waitForGpu(server, (g) => g.healthy === true);
      expect(await healthy()).toBe(1);
      expect((await waitForJob(server, second.body.id, (j) => j.state === 'succeeded')).exitCode).toBe(0);
    },
  );

  it('cordon takes a GPU out of service and uncordon puts it back (CLI, admin only)', async () => {
    server = await startServe({ simulateGpus: '1xA100-80GB' });
    expect(cli(server, ['gpu', 'cordon', '0']).code).toBe(0);
    const cordoned = (await api(server, 'GET', '/api/v1/gpus')).body.gpus[0];
    expect([cordoned.cordoned, cordoned.schedulable]).toEqual([true, false]);
    const job = await api(server, 'POST', '/api/v1/jobs', shellJob('true', { gpuMilli: 250 }));
    const waiting = await waitForJob(server, job.body.id, (j) => j.reason !== null);
    expect([waiting.state, waiting.reasonCode]).toEqual(['pending', 'gpu-capacity']);
    expect(waiting.reason).toMatch(/at most 0 qualify now/);
    expect(cli(server, ['gpu', 'uncordon', '0']).code).toBe(0);
    expect((await waitForJob(server, job.body.id, (j) => j.state === 'succeeded')).placement.gpus[0].index).toBe(0);
    const jobs = JSON.parse(cli(server, ['jobs', '--all', '-o', 'json']).stdout);
    expect(jobs.map((j: { id: number; state: string }) => [j.id, j.state])).toEqual([[job.body.id, 'succeeded']]);
    expect(cli(server, ['gpu', 'cordon', '7']).stderr).toMatch(/GPU 7 not found \(GPUs: 0\)/);
  });
});

async function waitForGpu(
  handle: ServeHandle,
  predicate: (gpu: Record<string, unknown>) => boolean,
): Promise<Record<string, unknown>> {
  for (let i = 0; i < 100; i++) {
    const gpu = (await api(handle, 'GET', '/api/v1/gpus')).body.gpus[0];
    if (gpu && predicate(gpu)) return gpu;
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error('GPU did not reach the expected health in 10 s');
}
