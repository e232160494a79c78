import { describe, expect, it } from 'vitest';
import { refusalMessage } from './refusal-message.js';
import { NODE_CODES, status, STATUS_CODES, WAIT_CODES } from './status.js';

describe('refusalMessage', () => {
  it('writes each node refusal from its code and figures alone', () => {
    expect(
      refusalMessage(
        status(WAIT_CODES.gpuCapacity, false, {
          qualifyingGpus: 0,
          neededGpus: 1,
          gpuMilli: 100,
          gpuMemoryMiB: 12288,
          mode: 'mps',
          oneTenantPerMpsGpu: true,
        }),
      ),
    ).toBe(
      '0 of the 1 GPU(s) needed have 100 milli-GPU and 12288 MiB of memory free for a mps share ' +
        '(one tenant per MPS GPU)',
    );
    expect(
      refusalMessage(
        status(WAIT_CODES.gpuCapacity, false, {
          qualifyingGpus: 1,
          neededGpus: 2,
          gpuMilli: 500,
          gpuMemoryMiB: null,
          mode: 'timeslice',
          oneTenantPerMpsGpu: false,
        }),
      ),
    ).toBe('1 of the 2 GPU(s) needed have 500 milli-GPU and their share of memory free for a timeslice share');
    expect(
      refusalMessage(
        status(NODE_CODES.gpuMemoryTooSmall, true, { neededGpuMemoryMiB: 90000, largestGpuMemoryMiB: 81920 }),
      ),
    ).toBe('no GPU with 90000 MiB of memory (largest: 81920 MiB)');
    expect(refusalMessage(status(NODE_CODES.gpuModelNotAllowed, true, { allowedGpuModels: ['T4', 'V100M32'] }))).toBe(
      'no GPU of an allowed model (T4, V100M32)',
    );
    expect(refusalMessage(status(WAIT_CODES.migCapacity, false, { gpusWithRoom: 0 }))).toBe(
      'no MIG GPU with room for the instance (0 have room)',
    );
    expect(refusalMessage(status(NODE_CODES.noMigMode, true))).toBe('no GPU in MIG mode');
    expect(refusalMessage(status(NODE_CODES.noMigProfile, true))).toBe('no MIG profile of its GPUs covers the request');
    expect(refusalMessage(status(NODE_CODES.noGpuOutsideMig, true))).toBe('no GPU outside MIG mode');
    expect(refusalMessage(status(NODE_CODES.migReuseOnly, false))).toBe(
      'no idle MIG instance of a profile that covers the request (instances are not created on demand here)',
    );
  });

  it('has a sentence for every code, without figures too', () => {
    for (const code of STATUS_CODES)
      expect([code, refusalMessage(status(code, false)).length > 0]).toEqual([code, true]);
    expect(refusalMessage(status(WAIT_CODES.gpuCapacity, false))).toBe(
      'too few GPUs with enough free milli-GPU and memory',
    );
  });
});
