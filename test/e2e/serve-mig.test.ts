/**
 * End-to-end: MIG instances planned and changed on demand, on a real server whose simulated GPUs
 * are driven through the stand-in nvidia-smi (the same `nvidia-smi mig` code path as real GPUs).
 * Seven concurrent 1g jobs leave seven idle 1g.10gb instances on an A100-80GB; a mixed queue then
 * causes exactly one reconfiguration (idle 1g instances destroyed, a 3g.40gb created), the 1g jobs
 * reuse idle instances, and every job runs with its MIG device UUID in CUDA_VISIBLE_DEVICES.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import {
  api,
  cleanupServe,
  jobFolder,
  type ServeHandle,
  startServe,
  waitForJob,
  untilFileExists,
} from './support/serve-harness.js';

let server: ServeHandle | null = null;
afterEach(async () => {
  if (server) await cleanupServe(server);
  server = null;
});

/** A job that prints its CUDA_VISIBLE_DEVICES, then waits for the file `gate` to appear (when given). */
const echo = (gpu: Record<string, unknown>, gate?: string) => ({
  command: ['sh', '-c', `echo $CUDA_VISIBLE_DEVICES${gate === undefined ? '' : `; ${untilFileExists(gate)}`}`],
  workingDirectory: '/tmp',
  gpu,
});
const ONE_G = { mode: 'mig', gpuMilli: 100, gpuMemoryMiB: 5120 };
const THREE_G = { mode: 'mig', gpuMilli: 400, gpuMemoryMiB: 30 * 1024 };

describe('gpushare serve: MIG layouts changed on demand', () => {
  it(
    'a mixed queue causes one reconfiguration of an idle MIG GPU, then all jobs run with their MIG ' + 'UUIDs',
    async () => {
      server = await startServe({ simulateGpus: '1xA100-80GB:mig,1xT4' });
      // Seven 1g jobs run at once (each until the gate file appears): seven instances, all idle afterwards.
      const gate = join(server.dataDir, 'release');
      const warm = [];
      for (let i = 0; i < 7; i++)
        warm.push((await api(server, 'POST', '/api/v1/jobs', echo(ONE_G, gate))).body.id as number);
      await Promise.all(warm.map((id) => waitForJob(server!, id, (j) => j.state === 'running')));
      writeFileSync(gate, '');
      const warmJobs = await Promise.all(warm.map((id) => waitForJob(server!, id, (j) => j.state === 'succeeded')));
      expect(warmJobs.map((j) => j.placement.gpus[0].migProfile)).toEqual(Array(7).fill('1g.10gb'));
      expect(new Set(warmJobs.map((j) => j.placement.gpus[0].migDeviceUuid)).size).toBe(7);
      const before = (await api(server, 'GET', '/api/v1/status')).body.migReconfigurations as number;
      expect(before).toBe(7); // one instance created per concurrent job

      const queue = [echo(THREE_G), echo(ONE_G), echo(ONE_G), echo({ gpuMilli: 500 }), echo({ gpuMilli: 300 })];
      const ids = [];
      for (const body of queue) ids.push((await api(server, 'POST', '/api/v1/jobs', body)).body.id as number);
      const jobs = await Promise.all(ids.map((id) => waitForJob(server!, id, (j) => j.state === 'succeeded')));
      expect(jobs.map((j) => j.placement.mode)).toEqual(['mig', 'mig', 'mig', 'mps', 'mps']);
      expect(jobs.map((j) => j.placement.gpus[0].migProfile)).toEqual(['3g.40gb', '1g.10gb', '1g.10gb', null, null]);
      const after = (await api(server, 'GET', '/api/v1/status')).body.migReconfigurations as number;
      expect(after - before).toBe(1);
      const reconfigured = jobs[0].events.find((e: { to: string }) => e.to === 'scheduled').reason as string;
      expect(reconfigured).toMatch(/^placed on GPU 0 \(3g\.40gb\) in mode mig/);
      for (const job of jobs.slice(0, 3)) {
        const uuid = job.placement.gpus[0].migDeviceUuid as string;
        expect(uuid).toMatch(/^MIG-[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/);
        expect(readFileSync(join(jobFolder(server, job.id), 'attempt-1.stdout.log'), 'utf8')).toBe(`${uuid}\n`);
      }
      // The 1g jobs reused instances made by the warm-up jobs; the 3g instance is new.
      const warmUuids = new Set(warmJobs.map((j) => j.placement.gpus[0].migDeviceUuid));
      expect(jobs.slice(1, 3).every((j) => warmUuids.has(j.placement.gpus[0].migDeviceUuid))).toBe(true);
      expect(warmUuids.has(jobs[0].placement.gpus[0].migDeviceUuid)).toBe(false);
      const state = JSON.parse(readFileSync(join(server.dataDir, 'data', 'simulated-nvidia-smi.json'), 'utf8')) as {
        gpus: { gpuInstances?: { profileId: number }[] }[];
      };
      expect(state.gpus[0]!.gpuInstances!.map((g) => g.profileId).sort((a, b) => a - b)).toEqual([9, 19, 19, 19, 19]);
    },
  );
});
