/* eslint-disable @typescript-eslint/no-explicit-any -- API bodies are checked field by field */
/**
 * End-to-end: a real server's history as a trace. Three jobs run on simulated GPUs: two report the
 * GPU memory and utilization they use with `gpushare report` (from their own environment, no QoS
 * target needed), one reports nothing; the simulated GPUs' usage samples (taken every 100 ms while
 * the jobs run) measure nothing. Once all have ended, `gpushare history export -o FILE` writes a
 * file that the simulator's reader (parsePodListCsv) reads back with each job's request, times,
 * tenant, priority, mode and peaks.
 */
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { parsePodListCsv } from '../../src/sim/traces/alibaba-csv.js';
import {
  api,
  cleanupServe,
  cli,
  GPUSHARE_BIN,
  pollFor,
  startServe,
  submittedId,
  waitForJob,
  type ServeHandle,
  untilFileExists,
} from './support/serve-harness.js';

let server: ServeHandle | null = null;
/** Folders this file made, removed after each test. */
const folders: string[] = [];
afterEach(async () => {
  if (server) await cleanupServe(server);
  server = null;
  for (const folder of folders.splice(0)) rmSync(folder, { recursive: true, force: true });
});

describe('gpushare serve: history as a trace', () => {
  it('exports the jobs that ran: requests, times, modes and reported peaks; the simulator reads it', async () => {
    server = await startServe({ simulateGpus: '2xA100-80GB', config: { usagePollIntervalSeconds: 0.1 } });
    const dir = mkdtempSync(join(tmpdir(), 'gpushare-e2e-history-'));
    folders.push(dir);
    const stop = join(dir, 'stop');
    const report = (args: string) => `"$GS_NODE" "$GS_BIN" report ${args} || exit 9`;
    const waitForStop = untilFileExists(stop);
    const submit = (flags: string[], script: string) =>
      submittedId(
        cli(server!, [
          'submit',
          ...flags,
          '--env',
          `GS_NODE=${process.execPath}`,
          '--env',
          `GS_BIN=${GPUSHARE_BIN}`,
          '--',
          'sh',
          '-c',
          script,
        ]),
      );
    // The lower memory report after the higher one leaves the peak at 10 GiB; the utilization rises to 85%.
    const trainer = submit(
      ['--gpu', '0.5', '--gpu-memory', '20GiB', '--priority', 'high', '--name', 'trainer'],
      `${report('--gpu-memory-used 10GiB --gpu-util 70')}; ${report('--gpu-memory-used 8GiB --gpu-util 85')}; ` +
        waitForStop,
    );
    const evaluator = submit(['--gpu', '1', '--name', 'eval, "v2"'], `${report('--gpu-memory-used 30000')}; exit 3`);
    const idle = submit(['--gpu', '0.25', '--name', 'idle'], waitForStop);

    await waitForJob(server, trainer, (j) => j.usagePeak?.gpuUtilizationPct === 85);
    await waitForJob(server, evaluator, (j) => j.state === 'failed');
    // A simulated usage sample with the idle job on its GPU: it measures nothing for the job.
    await pollFor('a simulated usage sample of the running jobs', async () => {
      const gpus = (await api(server!, 'GET', '/api/v1/gpus')).body.gpus as any[];
      const sampled = gpus.some((g) => g.measuredSource === 'simulated' && g.jobs.some((j: any) => j.id === idle));
      return sampled ? true : undefined;
    });
    writeFileSync(stop, '');
    const ended = await Promise.all(
      [trainer, evaluator, idle].map((id) => waitForJob(server!, id, (j) => ['succeeded', 'failed'].includes(j.state))),
    );
    expect(
      ended.map((j) => [j.state, j.usagePeak?.gpuMemoryMiB ?? null, j.usagePeak?.gpuUtilizationPct ?? null]),
    ).toEqual([
      ['succeeded', 10240, 85],
      ['failed', 30000, null],
      ['succeeded', null, null],
    ]);
    const shown = cli(server, ['show', String(trainer)]);
    expect(shown.stdout).toContain('\npeak use:    10240 MiB GPU memory (on one GPU), 85% utilization\n');

    const exported = cli(server, ['history', 'export', '-o', 'history.csv'], dir);
    const file = join(dir, 'history.csv');
    expect([exported.code, exported.stdout, exported.stderr]).toEqual([0, '', `exported 3 jobs to ${file}\n`]);
    expect(existsSync(`${file}.tmp`)).toBe(false);
    const pods = parsePodListCsv(readFileSync(file, 'utf8'), file);

    /** What the export must say of a job, from the API's view of it. */
    const expected = (job: any, name: string, measured: [number | null, number | null]) => {
      const start = Date.parse(job.attempts[0].startedAt);
      const run = Date.parse(job.attempts[0].endedAt) - start;
      return {
        name,
        cpuMilli: job.cpuMilli,
        hostMemoryMiB: job.hostMemoryMiB,
        gpuCount: job.gpu.gpuCount,
        gpuMilli: job.gpu.gpuMilli,
        allowedGpuModels: [],
        gpuSpec: '',
        qos: null,
        creationTimeSeconds: Date.parse(job.submittedAt) / 1000,
        deletionTimeSeconds: (start + run) / 1000,
        tenant: 'default',
        priority: job.priority,
        sharingMode: job.placement.mode,
        gpuMemoryMiB: job.gpu.gpuMemoryMiB ?? 0,
        measuredGpuMemoryMiB: measured[0],
        measuredGpuUtilPct: measured[1],
      };
    };
    const [trainerJob, evalJob, idleJob] = ended;
    expect(pods).toEqual([
      expected(evalJob, `eval___v2_-${evaluator}`, [30000, null]),
      expected(idleJob, `idle-${idle}`, [null, null]),
      expected(trainerJob, `trainer-${trainer}`, [10240, 85]),
    ]);
    expect([trainerJob.priority, trainerJob.gpu.gpuMilli, trainerJob.gpu.gpuMemoryMiB, evalJob.gpu.gpuMilli]).toEqual([
      900, 500, 20480, 1000,
    ]);
    // The header and the scheduled times as the timeline replay reads them (ms precision).
    const text = readFileSync(file, 'utf8');
    expect(text.split('\n')[0]).toBe(
      'name,cpu_milli,memory_mib,num_gpu,gpu_milli,gpu_spec,qos,creation_time,scheduled_time,deletion_time,' +
        'tenant,priority,sharing_mode,gpu_memory_mib,measured_gpu_memory_mib,measured_gpu_util_pct',
    );
    const trainerLine = text.split('\n').find((l) => l.startsWith('trainer-'))!;
    expect(Number(trainerLine.split(',')[8])).toBe(Date.parse(trainerJob.attempts[0].startedAt) / 1000);
  });
});
