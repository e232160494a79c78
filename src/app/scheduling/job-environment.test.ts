import { describe, expect, it } from 'vitest';
import type { Placement } from '../../core/index.js';
import { buildJobEnvironment } from './job-environment.js';

const mps: Placement = {
  mode: 'mps',
  gpus: [
    { index: 0, uuid: 'GPU-a', gpuMilli: 250, accountedGpuMilli: 250, gpuMemoryMiB: 20480, mig: null },
    { index: 3, uuid: 'GPU-b', gpuMilli: 250, accountedGpuMilli: 250, gpuMemoryMiB: 20480, mig: null },
  ],
};

describe('buildJobEnvironment', () => {
  it('hands GPUs over as CUDA expects, for MPS with the thread share and memory limit', () => {
    const env = buildJobEnvironment({
      jobId: 7,
      attempt: 2,
      placement: mps,
      visibleDevices: ['GPU-a', 'GPU-b'],
      simulated: false,
      resume: true,
      jobEnvironment: { MY_VAR: 'x', CUDA_VISIBLE_DEVICES: 'ignored', PATH: '/job/bin' },
      serverEnvironment: { PATH: '/usr/bin', HOME: '/root', SECRET_TOKEN: 'never-copied' },
    });
    expect(env).toEqual({
      PATH: '/job/bin',
      HOME: '/root',
      MY_VAR: 'x',
      CUDA_VISIBLE_DEVICES: 'GPU-a,GPU-b',
      CUDA_MPS_ACTIVE_THREAD_PERCENTAGE: '25',
      CUDA_MPS_PINNED_DEVICE_MEM_LIMIT: 'GPU-a=20480M,GPU-b=20480M',
      GPUSHARE_JOB_ID: '7',
      GPUSHARE_ATTEMPT: '2',
      GPUSHARE_MODE: 'mps',
      GPUSHARE_GPU_MILLI: '250',
      GPUSHARE_GPU_MEMORY_MIB: '20480',
      GPUSHARE_GPU_COUNT: '2',
      GPUSHARE_RESUME: '1',
    });
  });

  it('rounds the MPS thread percentage up and sets no MPS variables for other modes', () => {
    const one = (mode: Placement['mode'], gpuMilli: number) =>
      buildJobEnvironment({
        jobId: 1,
        attempt: 1,
        placement: {
          mode,
          gpus: [{ index: 0, uuid: 'GPU-a', gpuMilli, accountedGpuMilli: gpuMilli, gpuMemoryMiB: 1024, mig: null }],
        },
        visibleDevices: ['GPU-a'],
        simulated: true,
        resume: false,
        jobEnvironment: {},
        serverEnvironment: {},
      });
    expect(one('mps', 333).CUDA_MPS_ACTIVE_THREAD_PERCENTAGE).toBe('34');
    const timeslice = one('timeslice', 600);
    expect(timeslice.CUDA_MPS_ACTIVE_THREAD_PERCENTAGE).toBeUndefined();
    expect(timeslice.GPUSHARE_SIMULATED_GPUS).toBe('1');
    expect(timeslice.GPUSHARE_RESUME).toBeUndefined();
  });

  it(
    'passes the report token, the server URL and its CA (not overridable by the job), and omits them when ' + 'absent',
    () => {
      const base = {
        jobId: 9,
        attempt: 1,
        placement: mps,
        visibleDevices: ['GPU-a', 'GPU-b'],
        simulated: false,
        resume: false,
        serverEnvironment: {},
      };
      const ca = '-----BEGIN CERTIFICATE-----\nMIIB\n-----END CERTIFICATE-----\n';
      const env = buildJobEnvironment({
        ...base,
        reportToken: 'gs_abc',
        serverUrl: 'https://127.0.0.1:7070',
        serverCaCert: ca,
        jobEnvironment: { GPUSHARE_JOB_TOKEN: 'forged', GPUSHARE_URL: 'http://evil', GPUSHARE_CA_CERT: 'forged' },
      });
      expect([env.GPUSHARE_JOB_TOKEN, env.GPUSHARE_URL, env.GPUSHARE_CA_CERT, env.GPUSHARE_JOB_ID]).toEqual([
        'gs_abc',
        'https://127.0.0.1:7070',
        ca,
        '9',
      ]);
      const without = buildJobEnvironment({ ...base, jobEnvironment: {} });
      expect([without.GPUSHARE_JOB_TOKEN, without.GPUSHARE_URL, without.GPUSHARE_CA_CERT]).toEqual([
        undefined,
        undefined,
        undefined,
      ]);
    },
  );
});
