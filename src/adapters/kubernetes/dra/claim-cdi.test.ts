import { describe, expect, it } from 'vitest';
import type { AllocatedDevice } from './claim-allocation.js';
import { claimCdiDeviceId, claimCdiSpec, claimContainerEdits, type ReadyDevice } from './claim-cdi.js';

const GPU0 = { index: 0, uuid: 'GPU-0', model: 'A100-80GB', gpuMemoryMiB: 81920 };
const GPU1 = { index: 1, uuid: 'GPU-1', model: 'A100-80GB', gpuMemoryMiB: 81920 };

function shared(
  gpuMilli: number,
  memoryMiB: number,
  mode: 'mps' | 'timeslice',
  extra: Partial<AllocatedDevice> = {},
): ReadyDevice {
  return {
    allocated: {
      request: 'gpu',
      pool: 'n1',
      device: 'gpu-0-shared',
      shareId: 's',
      kind: 'shared',
      gpu: GPU0,
      gpuMilli,
      memoryMiB,
      mode,
      mig: null,
      ...extra,
    },
    migDeviceUuid: null,
  };
}

const PIPES = {
  byDevice: new Map([
    ['GPU-0', '/run/mps/GPU-0/pipe'],
    ['GPU-1', '/run/mps/GPU-1/pipe'],
  ]),
};

describe('claimContainerEdits', () => {
  it('gives an MPS share its thread percentage, pinned memory limit and pipe', () => {
    expect(claimContainerEdits('n1', [shared(500, 10240, 'mps')], PIPES)).toEqual({
      env: [
        'CUDA_VISIBLE_DEVICES=GPU-0',
        'NVIDIA_VISIBLE_DEVICES=GPU-0',
        'GPUSHARE_MODE=mps',
        'GPUSHARE_GPU_COUNT=1',
        'GPUSHARE_GPU_MILLI=500',
        'GPUSHARE_GPU_MEMORY_MIB=10240',
        'CUDA_MPS_ACTIVE_THREAD_PERCENTAGE=50',
        'CUDA_MPS_PINNED_DEVICE_MEM_LIMIT=GPU-0=10240M',
        'CUDA_MPS_PIPE_DIRECTORY=/run/mps/GPU-0/pipe',
      ],
      mounts: [{ hostPath: '/run/mps/GPU-0/pipe', containerPath: '/run/mps/GPU-0/pipe', options: ['rbind', 'rw'] }],
    });
  });

  it('leaves out the thread percentage of a memory-only MPS share and the memory limit of a compute-only one', () => {
    const memoryOnly = claimContainerEdits('n1', [shared(0, 20480, 'mps')], PIPES).env;
    expect(memoryOnly.filter((e) => e.startsWith('CUDA_MPS_'))).toEqual([
      'CUDA_MPS_PINNED_DEVICE_MEM_LIMIT=GPU-0=20480M',
      'CUDA_MPS_PIPE_DIRECTORY=/run/mps/GPU-0/pipe',
    ]);
    const computeOnly = claimContainerEdits('n1', [shared(300, 0, 'mps')], PIPES).env;
    expect(computeOnly.filter((e) => e.startsWith('CUDA_MPS_'))).toEqual([
      'CUDA_MPS_ACTIVE_THREAD_PERCENTAGE=30',
      'CUDA_MPS_PIPE_DIRECTORY=/run/mps/GPU-0/pipe',
    ]);
  });

  it('sums two shares of one GPU in one claim, and lists every GPU of the claim', () => {
    const two = claimContainerEdits(
      'n1',
      [shared(300, 1000, 'timeslice'), shared(300, 2000, 'timeslice', { request: 'b' })],
      null,
    );
    expect(two.env).toEqual([
      'CUDA_VISIBLE_DEVICES=GPU-0',
      'NVIDIA_VISIBLE_DEVICES=GPU-0',
      'GPUSHARE_MODE=timeslice',
      'GPUSHARE_GPU_COUNT=1',
      'GPUSHARE_GPU_MILLI=600',
      'GPUSHARE_GPU_MEMORY_MIB=3000',
    ]);
    const whole = (gpu: typeof GPU0, device: string): ReadyDevice => ({
      allocated: {
        request: 'g',
        pool: 'n1',
        device,
        shareId: null,
        kind: 'gpu',
        gpu,
        gpuMilli: 1000,
        memoryMiB: 81920,
        mode: 'exclusive',
        mig: null,
      },
      migDeviceUuid: null,
    });
    expect(claimContainerEdits('n1', [whole(GPU1, 'gpu-1'), whole(GPU0, 'gpu-0')], null).env.slice(0, 4)).toEqual([
      'CUDA_VISIBLE_DEVICES=GPU-0,GPU-1',
      'NVIDIA_VISIBLE_DEVICES=GPU-0,GPU-1',
      'GPUSHARE_MODE=exclusive',
      'GPUSHARE_GPU_COUNT=2',
    ]);
  });

  it('gives a MIG device its MIG UUID', () => {
    const mig: ReadyDevice = {
      allocated: {
        request: 'g',
        pool: 'n1',
        device: 'gpu-1-mig-9-0',
        shareId: null,
        kind: 'mig',
        gpu: GPU1,
        gpuMilli: 428,
        memoryMiB: 40192,
        mode: 'mig',
        mig: { profileId: 9, profileName: '3g.40gb', start: 0, size: 4, computeSlices: 3 },
      },
      migDeviceUuid: 'MIG-abc',
    };
    expect(claimContainerEdits('n1', [mig], null).env.slice(0, 3)).toEqual([
      'CUDA_VISIBLE_DEVICES=MIG-abc',
      'NVIDIA_VISIBLE_DEVICES=MIG-abc',
      'GPUSHARE_MODE=mig',
    ]);
  });

  it('refuses an MPS claim without a pipe directory', () => {
    expect(() => claimContainerEdits('n1', [shared(500, 0, 'mps')], null)).toThrow(
      'no MPS daemon pipe directory for device GPU-0',
    );
  });
});

describe('claimCdiSpec', () => {
  it('names one CDI device per device name of the claim, of kind gpushare.io/claim', () => {
    const edits = { env: ['A=1'] };
    const spec = claimCdiSpec('uid-1', [shared(1, 1, 'timeslice'), shared(1, 1, 'timeslice', { request: 'b' })], edits);
    expect(spec).toEqual({
      cdiVersion: '0.6.0',
      kind: 'gpushare.io/claim',
      devices: [{ name: 'uid-1-gpu-0-shared', containerEdits: edits }],
    });
    expect(claimCdiDeviceId('uid-1', 'gpu-0-shared')).toBe('gpushare.io/claim=uid-1-gpu-0-shared');
  });
});
