import { describe, expect, it } from 'vitest';
import type { GpuDevice } from '../model/gpu-device.js';
import type { GpuRequest, JobRequest } from '../model/request.js';
import { whyUnresolvable, type HostCapacity } from './unresolvable.js';

const MEMORY: Record<string, number> = { 'A100-80GB': 81920, 'H100-80GB': 81559, T4: 16384 };

function gpu(index: number, model: string, extra: Partial<GpuDevice> = {}): GpuDevice {
  return {
    index,
    uuid: `GPU-${index}`,
    model,
    gpuMemoryMiB: MEMORY[model]!,
    migEnabled: false,
    schedulable: true,
    ...extra,
  };
}

function job(request: Partial<GpuRequest>, extra: Partial<JobRequest> = {}): JobRequest {
  return {
    id: 1,
    tenant: 't',
    priority: 500,
    submittedAtMs: 0,
    cpuMilli: 1000,
    hostMemoryMiB: 1024,
    gpu: { gpuCount: 1, gpuMilli: 1000, gpuMemoryMiB: null, mode: 'auto', ...request },
    ...extra,
  };
}

const host: HostCapacity = { cpuMilli: 64_000, hostMemoryMiB: 262_144 };
const a100 = [gpu(0, 'A100-80GB')];
const t4AndA100 = [gpu(0, 'T4'), gpu(1, 'A100-80GB')];
const twoT4OneA100 = [gpu(0, 'T4'), gpu(1, 'T4'), gpu(2, 'A100-80GB')];
const allMig = [gpu(0, 'A100-80GB', { migEnabled: true }), gpu(1, 'A100-80GB', { migEnabled: true })];
const migMixedModels = [gpu(0, 'A100-80GB', { migEnabled: true }), gpu(1, 'H100-80GB', { migEnabled: true })];

describe('whyUnresolvable', () => {
  const cases: { name: string; job: JobRequest; gpus: readonly GpuDevice[]; expected: string | null }[] = [
    { name: 'fits', job: job({ gpuMilli: 500, gpuMemoryMiB: 40_000 }), gpus: a100, expected: null },
    {
      name: 'cpuMilli above the host',
      job: job({}, { cpuMilli: 64_001 }),
      gpus: a100,
      expected: "cpuMilli 64001 exceeds the server's 64000",
    },
    {
      name: 'hostMemoryMiB above the host',
      job: job({}, { hostMemoryMiB: 262_145 }),
      gpus: a100,
      expected: "hostMemoryMiB 262145 exceeds the server's 262144",
    },
    {
      name: 'memory above the largest GPU',
      job: job({ gpuMilli: 500, gpuMemoryMiB: 81_921 }),
      gpus: t4AndA100,
      expected: 'gpuMemoryMiB 81921 exceeds the largest GPU of this server (81920 MiB)',
    },
    {
      name: 'memory equal to the GPU fits',
      job: job({ gpuMilli: 500, gpuMemoryMiB: 81_920 }),
      gpus: t4AndA100,
      expected: null,
    },
    {
      name: 'explicit memory above the GPU, whole GPU (exclusive via auto)',
      job: job({ gpuMilli: 1000, gpuMemoryMiB: 20_000 }),
      gpus: [gpu(0, 'T4')],
      expected: 'gpuMemoryMiB 20000 exceeds the largest GPU of this server (16384 MiB)',
    },
    {
      name: 'explicit memory above the GPU, mode exclusive',
      job: job({ gpuMilli: 1000, gpuMemoryMiB: 16_385, mode: 'exclusive' }),
      gpus: [gpu(0, 'T4')],
      expected: 'gpuMemoryMiB 16385 exceeds the largest GPU of this server (16384 MiB)',
    },
    {
      name: 'gpuCount above the GPUs',
      job: job({ gpuCount: 2 }),
      gpus: a100,
      expected:
        "gpuCount 2 exceeds the 1 GPU(s) of one model on this server that can hold it (a job's GPUs are " +
        'distinct GPUs of one model)',
    },
    {
      name: 'gpuCount only over models',
      job: job({ gpuCount: 2 }),
      gpus: t4AndA100,
      expected:
        "gpuCount 2 exceeds the 1 GPU(s) of one model on this server that can hold it (a job's GPUs are " +
        'distinct GPUs of one model)',
    },
    {
      name: 'gpuCount counts only the models the memory fits',
      job: job({ gpuCount: 2, gpuMilli: 500, gpuMemoryMiB: 20_000 }),
      gpus: twoT4OneA100,
      expected:
        "gpuCount 2 exceeds the 1 GPU(s) of one model on this server that can hold it (a job's GPUs are " +
        'distinct GPUs of one model)',
    },
    {
      name: 'gpuCount on two T4s',
      job: job({ gpuCount: 2, gpuMilli: 500, gpuMemoryMiB: 16_000 }),
      gpus: twoT4OneA100,
      expected: null,
    },
    {
      name: 'unschedulable GPUs still count (could run once healthy)',
      job: job({ gpuCount: 2 }),
      gpus: [gpu(0, 'T4', { schedulable: false }), gpu(1, 'T4', { schedulable: false })],
      expected: null,
    },
    {
      name: 'shared mode on an all-MIG server',
      job: job({ gpuMilli: 300, gpuMemoryMiB: 1, mode: 'timeslice' }),
      gpus: allMig,
      expected: 'mode timeslice needs a GPU not in MIG mode; every GPU of this server is in MIG mode',
    },
    {
      name: 'mig without MIG GPUs',
      job: job({ gpuMilli: 100, gpuMemoryMiB: 1, mode: 'mig' }),
      gpus: t4AndA100,
      expected: 'mode mig needs a GPU in MIG mode; this server has none',
    },
    {
      name: 'mig memory above every profile',
      job: job({ gpuMilli: 100, gpuMemoryMiB: 80_897, mode: 'mig' }),
      gpus: allMig,
      expected: "gpuMemoryMiB 80897 exceeds every MIG profile of this server's MIG GPUs",
    },
    {
      name: 'mig memory of the 7g fits',
      job: job({ gpuMilli: 100, gpuMemoryMiB: 80_896, mode: 'mig' }),
      gpus: allMig,
      expected: null,
    },
    {
      name: 'mig whole GPU without memory (gets the 7g)',
      job: job({ gpuMilli: 1000, mode: 'mig' }),
      gpus: allMig,
      expected: null,
    },
    {
      name: 'mig gpuCount above the MIG GPUs',
      job: job({ gpuCount: 3, gpuMilli: 100, mode: 'mig' }),
      gpus: allMig,
      expected:
        'gpuCount 3 exceeds the 2 MIG GPU(s) of one model on this server that can hold the instance (a ' +
        "job's GPUs are distinct GPUs of one model)",
    },
    {
      name: 'mig gpuCount over MIG GPUs of two models',
      job: job({ gpuCount: 2, gpuMilli: 100, mode: 'mig' }),
      gpus: migMixedModels,
      expected:
        'gpuCount 2 exceeds the 1 MIG GPU(s) of one model on this server that can hold the instance (a ' +
        "job's GPUs are distinct GPUs of one model)",
    },
    {
      name: 'mig ignores non-MIG GPUs',
      job: job({ gpuCount: 2, gpuMilli: 100, mode: 'mig' }),
      gpus: [...allMig, gpu(2, 'A100-80GB')],
      expected: null,
    },
  ];

  for (const c of cases) {
    it(c.name, () => {
      expect(whyUnresolvable(c.job, c.gpus, host)).toBe(c.expected);
    });
  }

  it('checks the host before the GPUs', () => {
    expect(whyUnresolvable(job({ gpuCount: 9 }, { cpuMilli: 100_000 }), a100, host)).toMatch(/^cpuMilli /);
  });
});
