import { describe, expect, it } from 'vitest';
import { readFileSync } from 'node:fs';
import type { UsageInput } from '../../app/ports/gpu-usage.js';
import { NvidiaSmiUnavailableError } from './nvidia-smi-inventory.js';
import {
  USAGE_APP_ARGS,
  USAGE_GPU_ARGS,
  buildNvidiaSmiUsageSample,
  createNvidiaSmiUsageSampler,
} from './nvidia-smi-usage.js';
import { jobsOfPids, type ProcessIds } from './nvidia-smi-usage-pids.js';

const fixture = (name: string): string =>
  readFileSync(new URL(`../../../test/fixtures/nvidia-smi/csv/${name}`, import.meta.url), 'utf8');
const ZERO_UUID = 'GPU-00000000-0000-0000-0000-000000000000';

/** /proc as a table: pid → { pgrp, session }. */
const procs =
  (table: Record<number, [pgrp: number, session: number]>) =>
  (pid: number): ProcessIds | null => {
    const row = table[pid];
    return row ? { pid, pgrp: row[0], session: row[1] } : null;
  };

describe('jobsOfPids: a process belongs to the job whose pid is its own pid, session id or process group id', () => {
  const jobs = [
    { jobId: 7, jobPid: 100, gpus: [] },
    { jobId: 8, jobPid: 200, gpus: [] },
    { jobId: 9, jobPid: null, gpus: [] },
  ];
  it('maps the leader, a session member, a process-group member; ignores others and unknown pids', () => {
    const read = procs({ 100: [100, 100], 101: [101, 100], 202: [200, 1], 300: [300, 300] });
    expect([...jobsOfPids([100, 101, 202, 300, 999], jobs, read)]).toEqual([
      [100, 7],
      [101, 7],
      [202, 8],
    ]);
  });

  it('matches a vanished leader by its pid alone; a job without a pid matches nothing', () => {
    expect([...jobsOfPids([200, 0], jobs, () => null)]).toEqual([[200, 8]]);
  });
});

describe('buildNvidiaSmiUsageSample', () => {
  const input = (jobs: UsageInput['jobs']): UsageInput => ({
    gpus: [{ index: 0, uuid: ZERO_UUID, allocatedGpuMilli: 800 }],
    jobs,
  });

  it(
    'H100 under load: the two memhogs (one session) are job 7 (2566 + 1542 MiB), gpu_burn (process group ' +
      'of job 8) is job 8 (15690 MiB); sum 19798 ≤ GPU 19818',
    () => {
      const read = procs({ 11327: [11327, 11327], 11328: [11328, 11327], 11345: [500, 1] });
      const sample = buildNvidiaSmiUsageSample(
        fixture('query-gpu__all-fields__h100-80gb-hbm3__590.48.01__load.csv'),
        fixture('query-compute-apps__h100-80gb-hbm3__590.48.01__load.csv'),
        input([
          { jobId: 7, jobPid: 11327, gpus: [{ index: 0, gpuMemoryMiB: 40960 }] },
          { jobId: 8, jobPid: 500, gpus: [{ index: 0, gpuMemoryMiB: 40960 }] },
        ]),
        read,
        1234,
      );
      expect(sample).toEqual({
        atMs: 1234,
        source: 'nvidia-smi',
        gpus: [{ index: 0, uuid: ZERO_UUID, utilizationRatio: 1, memoryUsedMiB: 19818 }],
        jobs: [
          { jobId: 7, index: 0, uuid: ZERO_UUID, memoryUsedMiB: 4108 },
          { jobId: 8, index: 0, uuid: ZERO_UUID, memoryUsedMiB: 15690 },
        ],
      });
    },
  );

  it(
    'H200 with MIG: a job on a MIG instance is attributed to the parent GPU (compute-apps reports its ' +
      'UUID); utilization null',
    () => {
      const read = procs({ 12267: [12267, 12267] });
      const sample = buildNvidiaSmiUsageSample(
        fixture('query-gpu__all-fields__h200__mig__590.48.01__load.csv'),
        fixture('query-compute-apps__h200__mig__590.48.01__load.csv'),
        input([{ jobId: 3, jobPid: 12267, gpus: [{ index: 0, gpuMemoryMiB: 71 * 1024 }] }]),
        read,
        0,
      );
      expect(sample.gpus).toEqual([{ index: 0, uuid: ZERO_UUID, utilizationRatio: null, memoryUsedMiB: 16959 }]);
      expect(sample.jobs).toEqual([{ jobId: 3, index: 0, uuid: ZERO_UUID, memoryUsedMiB: 13526 }]);
    },
  );

  it(
    'clamps the jobs of a GPU to its memory used (800 + 800 on a GPU using 1000 → 500 + 500) and reports 0 ' +
      'for a placed job with no process',
    () => {
      const gpuText = `0, ${ZERO_UUID}, 50, 1000\n`;
      const appsText = `${ZERO_UUID}, 10, 800\n${ZERO_UUID}, 20, 800\n${ZERO_UUID}, 30, 999\n`;
      const sample = buildNvidiaSmiUsageSample(
        gpuText,
        appsText,
        input([
          { jobId: 1, jobPid: 10, gpus: [{ index: 0, gpuMemoryMiB: 1 }] },
          { jobId: 2, jobPid: 20, gpus: [{ index: 0, gpuMemoryMiB: 1 }] },
          { jobId: 4, jobPid: 40, gpus: [{ index: 0, gpuMemoryMiB: 1 }] },
          { jobId: 5, jobPid: null, gpus: [{ index: 0, gpuMemoryMiB: 1 }] },
        ]),
        procs({}),
        0,
      );
      expect(sample.gpus[0]!.utilizationRatio).toBe(0.5);
      expect(sample.jobs).toEqual([
        { jobId: 1, index: 0, uuid: ZERO_UUID, memoryUsedMiB: 500 },
        { jobId: 2, index: 0, uuid: ZERO_UUID, memoryUsedMiB: 500 },
        { jobId: 4, index: 0, uuid: ZERO_UUID, memoryUsedMiB: 0 },
      ]);
    },
  );
});

describe('createNvidiaSmiUsageSampler', () => {
  it('runs the two queries with csv,noheader,nounits and builds the sample', async () => {
    const calls: string[] = [];
    const sampler = createNvidiaSmiUsageSampler({
      nvidiaSmiPath: '/opt/nvidia-smi',
      nowMs: () => 42,
      readIds: () => null,
      execFile: async (file, args) => {
        calls.push(`${file} ${args.join(' ')}`);
        return {
          stdout: args[0]!.startsWith('--query-gpu') ? `0, ${ZERO_UUID}, 12, 300\n` : `${ZERO_UUID}, 77, 250\n`,
          stderr: '',
        };
      },
    });
    const sample = await sampler.sample({
      gpus: [],
      jobs: [{ jobId: 9, jobPid: 77, gpus: [{ index: 0, gpuMemoryMiB: 1024 }] }],
    });
    expect(calls.sort()).toEqual(
      [`/opt/nvidia-smi ${USAGE_APP_ARGS.join(' ')}`, `/opt/nvidia-smi ${USAGE_GPU_ARGS.join(' ')}`].sort(),
    );
    expect(USAGE_GPU_ARGS).toEqual([
      '--query-gpu=index,uuid,utilization.gpu,memory.used',
      '--format=csv,noheader,nounits',
    ]);
    expect(USAGE_APP_ARGS).toEqual(['--query-compute-apps=gpu_uuid,pid,used_memory', '--format=csv,noheader,nounits']);
    expect(sample).toEqual({
      atMs: 42,
      source: 'nvidia-smi',
      gpus: [{ index: 0, uuid: ZERO_UUID, utilizationRatio: 0.12, memoryUsedMiB: 300 }],
      jobs: [{ jobId: 9, index: 0, uuid: ZERO_UUID, memoryUsedMiB: 250 }],
    });
  });

  it('rejects with NvidiaSmiUnavailableError naming the command when nvidia-smi fails or prints garbage', async () => {
    const failing = createNvidiaSmiUsageSampler({
      execFile: async () => {
        throw new Error('exited with code 9: NVIDIA-SMI has failed');
      },
    });
    await expect(failing.sample({ gpus: [], jobs: [] })).rejects.toThrow(NvidiaSmiUnavailableError);
    await expect(failing.sample({ gpus: [], jobs: [] })).rejects.toThrow(
      /nvidia-smi --query-(gpu|compute-apps)=.*exited with code 9/,
    );
    const garbage = createNvidiaSmiUsageSampler({ execFile: async () => ({ stdout: 'hello\n', stderr: '' }) });
    await expect(garbage.sample({ gpus: [], jobs: [] })).rejects.toThrow(
      /unrecognised usage output: line 1: expected 4 values, got 1/,
    );
  });
});
