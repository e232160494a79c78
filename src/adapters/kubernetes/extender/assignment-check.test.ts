import { describe, expect, it } from 'vitest';
import type { GpuRequest } from '../../../core/index.js';
import { assignmentSigner } from '../schema/assignment-signature.js';
import type { NodeInventory } from '../schema/node-inventory.js';
import type { PodAssignment } from '../schema/pod-assignment.js';
import { gpusOf } from '../testing/kube-fixtures.js';
import { checkAssignment, type AssignmentContext } from './assignment-check.js';

const INVENTORY: NodeInventory = { schema: 'v1', gpus: gpusOf('n1', 2) };
const HALF: GpuRequest = { gpuCount: 1, gpuMilli: 500, gpuMemoryMiB: null, mode: 'mps' };
const WHOLE: GpuRequest = { gpuCount: 1, gpuMilli: 1000, gpuMemoryMiB: null, mode: 'exclusive' };

function assignment(
  gpu: Partial<PodAssignment['gpus'][number]> = {},
  mode: PodAssignment['mode'] = 'mps',
): PodAssignment {
  return {
    schema: 'v1',
    node: 'n1',
    mode,
    gpus: [
      { index: 0, uuid: 'GPU-n1-0', gpuMilli: 500, accountedGpuMilli: 500, gpuMemoryMiB: 40_960, mig: null, ...gpu },
    ],
  };
}

const ctx = (request: GpuRequest, extra: Partial<AssignmentContext> = {}): AssignmentContext => ({
  podUid: 'uid-a',
  request,
  inventory: INVENTORY,
  signer: null,
  ...extra,
});

describe('checkAssignment', () => {
  it('accepts what the core places for the request', () => {
    expect(checkAssignment(assignment(), ctx(HALF))).toBeNull();
    expect(
      checkAssignment(
        assignment({ gpuMilli: 1000, accountedGpuMilli: 1000, gpuMemoryMiB: 81_920 }, 'exclusive'),
        ctx(WHOLE),
      ),
    ).toBeNull();
    // auto: a half GPU goes to MPS; strict isolation may fall back to a whole GPU.
    expect(checkAssignment(assignment(), ctx({ ...HALF, mode: 'auto' }))).toBeNull();
    expect(
      checkAssignment(
        assignment({ accountedGpuMilli: 1000, gpuMemoryMiB: 81_920 }, 'exclusive'),
        ctx({ ...HALF, mode: 'auto', isolation: 'strict' }),
      ),
    ).toBeNull();
  });

  it('refuses GPUs the node does not have, and more memory than the GPU has', () => {
    expect(checkAssignment(assignment({ uuid: 'GPU-elsewhere' }), ctx(HALF))).toEqual({
      code: 'assignment-unknown-gpu',
      details: { field: 'gpus[0]', index: 0, uuid: 'GPU-elsewhere', found: 'GPU-n1-0' },
    });
    expect(checkAssignment(assignment({ index: 7, uuid: 'GPU-n1-7' }), ctx(HALF))).toEqual({
      code: 'assignment-unknown-gpu',
      details: { field: 'gpus[0]', index: 7, uuid: 'GPU-n1-7', found: null },
    });
    expect(checkAssignment(assignment({ gpuMemoryMiB: 90_000 }), ctx(HALF))).toEqual({
      code: 'assignment-over-capacity',
      details: { field: 'gpus[0].gpuMemoryMiB', index: 0, found: 90_000, expected: 81_920 },
    });
  });

  it("refuses what does not match the pod's request: the 1-milli share of a whole-GPU pod, count, memory", () => {
    expect(checkAssignment(assignment({ gpuMilli: 1, accountedGpuMilli: 1 }), ctx(WHOLE))).toEqual({
      code: 'assignment-request-mismatch',
      details: { field: 'mode', expected: 'exclusive', found: 'mps' },
    });
    expect(checkAssignment(assignment({ gpuMilli: 1000, accountedGpuMilli: 1 }, 'exclusive'), ctx(WHOLE))).toEqual({
      code: 'assignment-request-mismatch',
      details: { field: 'gpus[0].accountedGpuMilli', expected: 1000, found: 1 },
    });
    expect(checkAssignment(assignment({ accountedGpuMilli: 1 }), ctx(HALF))).toEqual({
      code: 'assignment-request-mismatch',
      details: { field: 'gpus[0].accountedGpuMilli', expected: 500, found: 1 },
    });
    expect(checkAssignment(assignment(), ctx({ ...HALF, gpuCount: 2 }))).toEqual({
      code: 'assignment-request-mismatch',
      details: { field: 'gpus', expected: 2, found: 1 },
    });
    expect(checkAssignment(assignment({ gpuMemoryMiB: 1 }), ctx(HALF))).toEqual({
      code: 'assignment-request-mismatch',
      details: { field: 'gpus[0].gpuMemoryMiB', expected: 'at least 40960', found: 1 },
    });
    expect(checkAssignment(assignment({ gpuMemoryMiB: 1024 }), ctx({ ...HALF, gpuMemoryMiB: 2048 }))).toEqual({
      code: 'assignment-request-mismatch',
      details: { field: 'gpus[0].gpuMemoryMiB', expected: 'at least 2048', found: 1024 },
    });
  });

  it("with a key: refuses an unsigned assignment and a copy of another pod's signed one", () => {
    const signer = assignmentSigner(Buffer.from('0123456789abcdef0123456789abcdef'));
    const signed = signer.sign('uid-a', assignment());
    expect(checkAssignment(signed, ctx(HALF, { signer }))).toBeNull();
    expect(checkAssignment(assignment(), ctx(HALF, { signer }))).toEqual({
      code: 'assignment-unsigned',
      details: { field: 'signature', found: null },
    });
    expect(checkAssignment(signed, ctx(HALF, { signer, podUid: 'uid-b' }))).toEqual({
      code: 'assignment-bad-signature',
      details: { field: 'signature', found: 'not the extender’s' },
    });
  });
});
