import { describe, expect, it } from 'vitest';
import type { PodAssignment } from '../schema/pod-assignment.js';
import { cdiDeviceName, cdiSpecFor, containerEditsFor } from './cdi-spec.js';

const gpu = (index: number, gpuMilli: number, gpuMemoryMiB: number) => ({
  index,
  uuid: `GPU-${index}`,
  gpuMilli,
  accountedGpuMilli: gpuMilli,
  gpuMemoryMiB,
  mig: null,
});

describe('CDI spec of a slot', () => {
  it('names the assigned GPUs in index order for a time-sliced pod', () => {
    const assignment: PodAssignment = {
      schema: 'v1',
      node: 'n',
      mode: 'timeslice',
      gpus: [gpu(3, 500, 20480), gpu(1, 500, 20480)],
    };
    expect(cdiSpecFor('gpu0-slot2', containerEditsFor(assignment, null))).toEqual({
      cdiVersion: '0.6.0',
      kind: 'gpushare.io/gpu',
      devices: [
        {
          name: 'gpu0-slot2',
          containerEdits: {
            env: [
              'CUDA_VISIBLE_DEVICES=GPU-1,GPU-3',
              'NVIDIA_VISIBLE_DEVICES=GPU-1,GPU-3',
              'GPUSHARE_MODE=timeslice',
              'GPUSHARE_GPU_COUNT=2',
              'GPUSHARE_GPU_MILLI=500',
              'GPUSHARE_GPU_MEMORY_MIB=20480',
            ],
          },
        },
      ],
    });
    expect(cdiDeviceName('gpu0-slot2')).toBe('gpushare.io/gpu=gpu0-slot2');
  });

  it('adds the MPS variables and mounts, and refuses an mps pod without daemons', () => {
    const assignment: PodAssignment = { schema: 'v1', node: 'n', mode: 'mps', gpus: [gpu(0, 250, 8192)] };
    const edits = containerEditsFor(assignment, { byDevice: new Map([['GPU-0', '/mps/GPU-0/pipe']]) });
    expect(edits.env.slice(-3)).toEqual([
      'CUDA_MPS_ACTIVE_THREAD_PERCENTAGE=25',
      'CUDA_MPS_PINNED_DEVICE_MEM_LIMIT=GPU-0=8192M',
      'CUDA_MPS_PIPE_DIRECTORY=/mps/GPU-0/pipe',
    ]);
    expect(edits.mounts).toEqual([
      { hostPath: '/mps/GPU-0/pipe', containerPath: '/mps/GPU-0/pipe', options: ['rbind', 'rw'] },
    ]);
    expect(() => containerEditsFor(assignment, null)).toThrow('no MPS daemon pipe directory for device GPU-0');
  });
});
