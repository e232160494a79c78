import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { migProfilesFor } from '../../../core/index.js';
import { allocatedDevices, ClaimAllocationError, type NodeGpu, type ResourceClaimObject } from './claim-allocation.js';

const GPUS: NodeGpu[] = [
  { index: 0, uuid: 'GPU-0', model: 'A100-80GB', gpuMemoryMiB: 81920 },
  { index: 1, uuid: 'GPU-1', model: 'A100-80GB', gpuMemoryMiB: 81920 },
];

function claim(results: object[], config: object[] = [], uid = 'u1'): ResourceClaimObject {
  return {
    metadata: { namespace: 'ns', name: 'c', uid },
    status: { allocation: { devices: { results, config } } } as ResourceClaimObject['status'],
  };
}

const r = (device: string, extra: object = {}): object => ({
  request: 'gpu',
  driver: 'gpu.gpushare.io',
  pool: 'n1',
  device,
  ...extra,
});

function codeOf(fn: () => unknown): string {
  try {
    fn();
  } catch (error) {
    if (error instanceof ClaimAllocationError) return error.code;
    throw error;
  }
  return 'none';
}

describe('allocatedDevices', () => {
  it('resolves whole, shared and MIG devices of this driver in this pool, in allocation order', () => {
    const profile = migProfilesFor('A100-80GB').find((p) => p.name === '1g.10gb')!;
    const devices = allocatedDevices(
      claim([
        r('gpu-1'),
        r('gpu-0-shared', { shareID: 's1', consumedCapacity: { gpuMilli: '250', memory: '1536Mi' } }),
        r(`gpu-0-mig-${profile.profileId}-${profile.placementStarts[1]}`),
        r('gpu-0', { pool: 'another-node' }),
        r('gpu-9', { driver: 'gpu.nvidia.com' }),
      ]),
      'u1',
      'n1',
      GPUS,
    );
    expect(devices.map((d) => [d.device, d.kind, d.gpu.index, d.gpuMilli, d.memoryMiB, d.mode, d.shareId])).toEqual([
      ['gpu-1', 'gpu', 1, 1000, 81920, 'exclusive', null],
      ['gpu-0-shared', 'shared', 0, 250, 1536, 'timeslice', 's1'],
      [
        `gpu-0-mig-${profile.profileId}-${profile.placementStarts[1]}`,
        'mig',
        0,
        142,
        profile.usableMemoryMiB,
        'mig',
        null,
      ],
    ]);
    expect(devices[2]!.mig).toEqual({
      profileId: profile.profileId,
      profileName: '1g.10gb',
      start: profile.placementStarts[1],
      size: 1,
      computeSlices: 1,
    });
  });

  it('reads a capacity the claim did not name (consumed at its default 0) as not reserved', () => {
    const [memoryOnly] = allocatedDevices(
      claim([r('gpu-0-shared', { consumedCapacity: { gpuMilli: '0', memory: '20Gi' } })]),
      'u1',
      'n1',
      GPUS,
    );
    expect([memoryOnly!.gpuMilli, memoryOnly!.memoryMiB]).toEqual([0, 20480]);
    const [computeOnly] = allocatedDevices(
      claim([r('gpu-0-shared', { consumedCapacity: { gpuMilli: '300' } })]),
      'u1',
      'n1',
      GPUS,
    );
    expect([computeOnly!.gpuMilli, computeOnly!.memoryMiB]).toEqual([300, 0]);
  });

  it('rounds memory up to whole MiB', () => {
    const [d] = allocatedDevices(
      claim([r('gpu-0-shared', { consumedCapacity: { gpuMilli: '1', memory: '1500Ki' } })]),
      'u1',
      'n1',
      GPUS,
    );
    expect(d!.memoryMiB).toBe(2);
  });

  it('takes the sharing mode from the driver config', () => {
    const mps = {
      source: 'FromClass',
      opaque: {
        driver: 'gpu.gpushare.io',
        parameters: { apiVersion: 'gpushare.io/v1', kind: 'GpuShareConfig', mode: 'mps' },
      },
    };
    const [d] = allocatedDevices(
      claim([r('gpu-0-shared', { consumedCapacity: { gpuMilli: '1' } })], [mps]),
      'u1',
      'n1',
      GPUS,
    );
    expect(d!.mode).toBe('mps');
  });

  it('refuses with codes: another UID, no allocation, devices this node lacks, bad capacity, bad config', () => {
    expect(codeOf(() => allocatedDevices(claim([]), 'other', 'n1', GPUS))).toBe('ClaimUidMismatch');
    expect(codeOf(() => allocatedDevices({ metadata: { name: 'c', uid: 'u1' } }, 'u1', 'n1', GPUS))).toBe(
      'ClaimNotAllocated',
    );
    expect(codeOf(() => allocatedDevices(claim([r('gpu-7')]), 'u1', 'n1', GPUS))).toBe('UnknownDevice');
    expect(codeOf(() => allocatedDevices(claim([r('gpu-0-mig-99-0')]), 'u1', 'n1', GPUS))).toBe('UnknownDevice');
    expect(codeOf(() => allocatedDevices(claim([r('nic-0')]), 'u1', 'n1', GPUS))).toBe('UnknownDevice');
    expect(
      codeOf(() =>
        allocatedDevices(claim([r('gpu-0-shared', { consumedCapacity: { memory: 'lots' } })]), 'u1', 'n1', GPUS),
      ),
    ).toBe('InvalidConsumedCapacity');
    const bad = {
      opaque: {
        driver: 'gpu.gpushare.io',
        parameters: { apiVersion: 'gpushare.io/v1', kind: 'GpuShareConfig', mode: 'x' },
      },
    };
    expect(codeOf(() => allocatedDevices(claim([r('gpu-0-shared')], [bad]), 'u1', 'n1', GPUS))).toBe(
      'InvalidDriverConfig',
    );
  });

  it('gives a shared device exactly the consumed gpuMilli and MiB (property)', () => {
    fc.assert(
      fc.property(fc.integer({ min: 0, max: 1000 }), fc.integer({ min: 0, max: 81920 }), (milli, mib) => {
        const [d] = allocatedDevices(
          claim([r('gpu-1-shared', { consumedCapacity: { gpuMilli: String(milli), memory: `${mib}Mi` } })]),
          'u1',
          'n1',
          GPUS,
        );
        return d!.gpuMilli === milli && d!.memoryMiB === mib && d!.gpu.uuid === 'GPU-1';
      }),
      { numRuns: 200 },
    );
  });
});
