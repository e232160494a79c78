import { describe, expect, it } from 'vitest';
import { findMigProfile } from '../mig/mig-profiles.js';
import { SeededRng } from '../random/rng.js';
import type { GpuDevice, MigInstance } from '../model/gpu-device.js';
import type { Placement } from '../model/assignment.js';
import type { JobRequest } from '../model/request.js';
import { OneNodeCluster } from '../testing/one-node-cluster.js';

const h100: GpuDevice = {
  index: 0,
  uuid: 'GPU-h',
  model: 'H100-80GB',
  gpuMemoryMiB: 81559,
  migEnabled: true,
  schedulable: true,
};
const gi = (name: string, start: number): MigInstance => {
  const p = findMigProfile('H100-80GB', name)!;
  return { profileId: p.profileId, profileName: p.name, start, size: p.memorySlices, computeSlices: p.computeSlices };
};
const migJob = (id: number, gpuMilli: number, gpuMemoryMiB: number | null): JobRequest => ({
  id,
  tenant: 't',
  priority: 500,
  submittedAtMs: id,
  cpuMilli: 0,
  hostMemoryMiB: 0,
  gpu: { gpuCount: 1, gpuMilli, gpuMemoryMiB, mode: 'mig' },
});
const fresh = () =>
  new OneNodeCluster([h100], {
    hostCpuMilli: 8000,
    hostMemoryMiB: 65536,
    timesliceOvercommitRatio: 1,
    rng: new SeededRng(3),
  });
function placed(s: OneNodeCluster, job: JobRequest): Placement {
  const outcome = s.tryPlace(job);
  if (outcome.kind !== 'placed') throw new Error(outcome.reason);
  return outcome.placement;
}
const THREE_G = { gpuMilli: 400, gpuMemoryMiB: 30 * 1024 }; // ceil(400 × 7 / 1000) = 3 slices, 30 GiB → 3g.40gb

describe('MIG placement with persistent GPU instances', () => {
  it(
    'reconfigures idle 1g GIs at 0, 1 and 5 of an H100 for a 3g.40gb: destroys only the one at 5 and ' + 'creates at 4',
    () => {
      const s = fresh();
      s.adoptMigInstances(0, [gi('1g.10gb', 0), gi('1g.10gb', 1), gi('1g.10gb', 5)]);
      const p = placed(s, migJob(1, THREE_G.gpuMilli, THREE_G.gpuMemoryMiB)).gpus[0]!;
      expect(p.mig).toEqual(gi('3g.40gb', 4));
      expect(p.migChanges).toEqual({ destroy: [{ start: 5, profileId: 19 }], create: [{ start: 4, profileId: 9 }] });
      expect(s.idleMigInstances(0).map((i) => i.start)).toEqual([0, 1]);
    },
  );

  it('never destroys a GI in use: with the 1g at 5 busy, it destroys the idle ones at 0 and 1 and creates at 0', () => {
    const s = fresh();
    s.adoptMigInstances(0, [gi('1g.10gb', 0), gi('1g.10gb', 1), gi('1g.10gb', 5)]);
    expect(placed(s, migJob(1, 100, 5000)).gpus[0]!.mig!.start).toBe(5); // reuses the idle 1g with the highest start
    const p = placed(s, migJob(2, THREE_G.gpuMilli, THREE_G.gpuMemoryMiB)).gpus[0]!;
    expect(p.mig).toEqual(gi('3g.40gb', 0));
    expect(p.migChanges).toEqual({
      destroy: [
        { start: 0, profileId: 19 },
        { start: 1, profileId: 19 },
      ],
      create: [{ start: 0, profileId: 9 }],
    });
  });

  it('waits, saying why, when only GIs in use block the profile', () => {
    const s = fresh();
    s.adoptMigInstances(0, [gi('1g.10gb', 0), gi('1g.10gb', 5)]);
    placed(s, migJob(1, 100, 5000));
    placed(s, migJob(2, 100, 5000));
    const outcome = s.tryPlace(migJob(3, THREE_G.gpuMilli, THREE_G.gpuMemoryMiB));
    expect(outcome).toEqual({
      kind: 'waiting',
      reason: 'waiting for 1 MIG GPU(s) of one model with room for the instance; 0 have room now',
    });
  });

  it('keeps a released GI idle and reuses it without changes', () => {
    const s = fresh();
    const first = placed(s, migJob(1, THREE_G.gpuMilli, THREE_G.gpuMemoryMiB)).gpus[0]!;
    expect(first.migChanges).toEqual({ destroy: [], create: [{ start: first.mig!.start, profileId: 9 }] });
    s.release(1);
    expect(s.idleMigInstances(0)).toEqual([first.mig]);
    const again = placed(s, migJob(2, THREE_G.gpuMilli, THREE_G.gpuMemoryMiB)).gpus[0]!;
    expect([again.mig, again.migChanges]).toEqual([first.mig, { destroy: [], create: [] }]);
  });

  it('three 1g.10gb into an empty H100 leave room for a 4g.40gb', () => {
    const s = fresh();
    const starts = [1, 2, 3].map((id) => placed(s, migJob(id, 100, 5000)).gpus[0]!.mig!.start);
    expect(starts).toEqual([6, 5, 4]);
    expect(placed(s, migJob(4, 550, 30 * 1024)).gpus[0]!.mig).toEqual(gi('4g.40gb', 0));
  });
});
