import { describe, expect, it } from 'vitest';
import { SeededRng, type IsolationLevel } from '../../core/index.js';
import { HybridCluster, type HybridOutcome, type HybridPod } from './hybrid-cluster.js';
import { sharingGpuModel, type SharingSetting } from './pod-mode.js';

const A100 = sharingGpuModel('A100-80GB')!;

/** A cluster of nodes with the given GPU counts (64 cores, 256 GiB each), ranked in list order. */
function cluster(gpuCounts: readonly number[], sharing: SharingSetting, cpuMilli = 64_000): HybridCluster {
  return new HybridCluster({
    nodes: gpuCounts.map((gpuCount, i) => ({ name: `node-${i}`, cpuMilli, hostMemoryMiB: 262_144, gpuCount })),
    gpuModel: A100,
    sharing,
    nodeRank: Int32Array.from(gpuCounts, (_, i) => i),
    workloadShapes: [
      { cpuMilli: 4000, gpuMilli: 470, gpuCount: 1, allowedGpuModels: [] },
      { cpuMilli: 8000, gpuMilli: 1000, gpuCount: 1, allowedGpuModels: [] },
    ],
    rng: new SeededRng(7),
  });
}

function pod(gpuMilli: number, isolation: IsolationLevel, gpuCount = 1, cpuMilli = 1000): HybridPod {
  return { cpuMilli, hostMemoryMiB: 1024, gpuCount, gpuMilli, isolation };
}

function placed(outcome: HybridOutcome): Extract<HybridOutcome, { kind: 'placed' }> {
  if (outcome.kind !== 'placed') throw new Error('expected a placement');
  return outcome;
}

describe('HybridCluster, --sharing auto', () => {
  it(
    'gives a strict pod a MIG instance of the smallest covering profile and switches an empty GPU into MIG ' + 'mode',
    () => {
      const c = cluster([2], 'auto');
      const o = placed(c.place(pod(100, 'strict')));
      expect(o.placement!.mode).toBe('mig');
      expect(o.placement!.gpus).toHaveLength(1);
      expect(o.placement!.gpus[0]!.mig).toMatchObject({ profileName: '1g.10gb', computeSlices: 1 });
      expect(o.migSwitches).toBe(1);
      const gpu = o.placement!.gpus[0]!.index;
      expect(c.gpuStates().find((g) => g.gpu === gpu)).toEqual({
        node: 0,
        gpu,
        mode: 'mig',
        migEnabled: true,
        jobs: 1,
        usedMilli: 143,
      });
      expect(c.nodeGpus(0).find((d) => d.index === gpu)!.migEnabled).toBe(true);
      // The other GPU stays out of MIG mode.
      expect(c.gpuStates().filter((g) => g.migEnabled)).toHaveLength(1);
      expect(c.reservedMilli).toBe(143);
    },
  );

  it('puts a second strict pod on the GPU already in MIG mode, without another switch', () => {
    const c = cluster([2], 'auto');
    const first = placed(c.place(pod(100, 'strict')));
    const second = placed(c.place(pod(300, 'strict')));
    expect(second.placement!.gpus[0]!.index).toBe(first.placement!.gpus[0]!.index);
    expect(second.placement!.gpus[0]!.mig!.profileName).toBe('3g.40gb');
    expect(second.migSwitches).toBe(0);
    expect(c.gpuStates().filter((g) => g.migEnabled)).toHaveLength(1);
    expect(c.reservedMilli).toBe(571); // 4 of 7 compute slices
  });

  it('never puts a standard pod on a MIG GPU', () => {
    const one = cluster([1], 'auto');
    placed(one.place(pod(100, 'strict')));
    expect(one.place(pod(100, 'standard'))).toMatchObject({ kind: 'failed', decision: { mode: 'mps' } });

    const two = cluster([2], 'auto');
    const mig = placed(two.place(pod(100, 'strict'))).placement!.gpus[0]!.index;
    const mps = placed(two.place(pod(100, 'standard'))).placement!;
    expect(mps.mode).toBe('mps');
    expect(mps.gpus[0]!.index).not.toBe(mig);
    expect(mps.gpus[0]!.mig).toBeNull();
    expect(
      two
        .gpuStates()
        .map((g) => g.mode)
        .sort(),
    ).toEqual(['mig', 'mps']);
  });

  it('time-slices pods without isolation, and keeps modes apart on one GPU', () => {
    const c = cluster([1], 'auto');
    const t = placed(c.place(pod(400, 'none'))).placement!;
    expect([t.mode, t.gpus[0]!.accountedGpuMilli]).toEqual(['timeslice', 400]);
    expect(placed(c.place(pod(500, 'none'))).placement!.mode).toBe('timeslice');
    // 100 milli are free on the GPU, but it runs timeslice, not mps.
    expect(c.place(pod(100, 'standard')).kind).toBe('failed');
    expect(c.place(pod(200, 'none')).kind).toBe('failed'); // only 100 free
    expect(placed(c.place(pod(100, 'none'))).placement!.mode).toBe('timeslice');
    expect(c.reservedMilli).toBe(1000);
  });

  it('gives whole-GPU pods empty GPUs only, exclusive', () => {
    const c = cluster([4], 'auto');
    const shared = placed(c.place(pod(250, 'none'))).placement!.gpus[0]!.index;
    const whole = placed(c.place(pod(1000, 'strict', 2))).placement!;
    expect(whole.mode).toBe('exclusive');
    expect(whole.gpus.map((g) => g.index)).not.toContain(shared);
    expect(whole.gpus.every((g) => g.accountedGpuMilli === 1000)).toBe(true);
    // One empty GPU is left: a 2-GPU pod fails, a 1-GPU pod fits.
    expect(c.place(pod(1000, 'none', 2)).kind).toBe('failed');
    expect(placed(c.place(pod(1000, 'none', 1))).placement!.mode).toBe('exclusive');
    expect(c.reservedMilli).toBe(3250);
  });

  it('does not switch a GPU with jobs into MIG mode, and leaves nothing switched when a MIG pod fails', () => {
    const c = cluster([1], 'auto');
    placed(c.place(pod(100, 'none')));
    expect(c.place(pod(100, 'strict')).kind).toBe('failed');
    expect(c.gpuStates()).toEqual([{ node: 0, gpu: 0, mode: 'timeslice', migEnabled: false, jobs: 1, usedMilli: 100 }]);
  });

  it(
    'chooses among nodes by the default policy: a strict pod joins the node that already has a MIG GPU ' + 'with room',
    () => {
      const c = cluster([2, 2], 'auto');
      const first = placed(c.place(pod(100, 'strict')));
      const second = placed(c.place(pod(100, 'strict')));
      expect(second.nodeIndex).toBe(first.nodeIndex);
      expect(second.placement!.gpus[0]!.index).toBe(first.placement!.gpus[0]!.index);
    },
  );

  it('checks host CPU across CPU-only and GPU pods', () => {
    const c = cluster([2], 'auto', 8000);
    expect(placed(c.place(pod(0, 'none', 0, 6000))).placement).toBeNull();
    expect(c.place(pod(100, 'strict', 1, 3000)).kind).toBe('failed');
    expect(placed(c.place(pod(100, 'strict', 1, 2000))).placement!.mode).toBe('mig');
    expect(c.place(pod(0, 'none', 0, 1)).kind).toBe('failed');
  });
});

describe('HybridCluster, other settings', () => {
  it('mig: every GPU starts in MIG mode; whole-GPU pods get 7g instances, shares the smallest covering profile', () => {
    const c = cluster([2], 'mig');
    expect(c.gpuStates().every((g) => g.migEnabled && g.mode === 'mig')).toBe(true);
    const whole = placed(c.place(pod(1000, 'standard'))).placement!;
    expect(whole.gpus[0]!.mig!.profileName).toBe('7g.80gb');
    const share = placed(c.place(pod(300, 'none'))).placement!;
    expect(share.gpus[0]!.mig!.profileName).toBe('3g.40gb');
    expect(share.gpus[0]!.index).not.toBe(whole.gpus[0]!.index);
    expect(placed(c.place(pod(470, 'strict'))).placement!.gpus[0]!.mig!.profileName).toBe('4g.40gb');
    expect(c.place(pod(100, 'none')).kind).toBe('failed'); // 7 of 7 slices used on both GPUs
    expect(c.reservedMilli).toBe(2000);
  });

  it('mps: strict shares use MPS too', () => {
    const c = cluster([1], 'mps');
    expect(placed(c.place(pod(300, 'strict'))).placement!.mode).toBe('mps');
    expect(placed(c.place(pod(700, 'none'))).placement!.mode).toBe('mps');
    expect(c.place(pod(1000, 'none')).kind).toBe('failed');
  });

  it('timeslice: shares time-sliced, whole GPUs exclusive', () => {
    const c = cluster([2], 'timeslice');
    expect(placed(c.place(pod(300, 'strict'))).placement!.mode).toBe('timeslice');
    expect(placed(c.place(pod(1000, 'strict'))).placement!.mode).toBe('exclusive');
  });
});

describe('HybridCluster, one tenant per MPS GPU', () => {
  function tenantCluster(mpsOneTenantPerGpu: boolean): HybridCluster {
    return new HybridCluster({
      nodes: [0, 1].map((i) => ({ name: `node-${i}`, cpuMilli: 64_000, hostMemoryMiB: 262_144, gpuCount: 2 })),
      gpuModel: A100,
      sharing: 'mps',
      nodeRank: Int32Array.from([0, 1]),
      workloadShapes: [{ cpuMilli: 1000, gpuMilli: 250, gpuCount: 1, allowedGpuModels: [] }],
      rng: new SeededRng(7),
      tenants: ['a', 'b', 'c', 'd', 'e'],
      mpsOneTenantPerGpu,
    });
  }
  const where = (o: HybridOutcome): string => {
    const p = placed(o);
    return `${p.nodeIndex}/${p.placement!.gpus[0]!.index}`;
  };

  it(
    "gives each tenant's MPS pods GPUs of their own, packed, and fails a tenant when every GPU runs " +
      "another tenant's pods",
    () => {
      const c = tenantCluster(true);
      const tenants = ['a', 'b', 'a', 'c', 'b', 'a'];
      const spots = tenants.map((tenant) => where(c.place({ ...pod(250, 'standard'), tenant })));
      const byGpu = new Map<string, Set<string>>();
      spots.forEach((spot, i) => byGpu.set(spot, new Set([...(byGpu.get(spot) ?? []), tenants[i]!])));
      expect([...byGpu.values()].every((owners) => owners.size === 1)).toBe(true);
      expect(byGpu.size).toBe(3);
      // The fourth GPU goes to tenant d; tenant e finds no GPU free of other tenants.
      where(c.place({ ...pod(250, 'standard'), tenant: 'd' }));
      expect(c.place({ ...pod(250, 'standard'), tenant: 'e' }).kind).toBe('failed');
      expect(c.refusals).toBe(0);
      expect(() => c.place({ ...pod(250, 'standard'), tenant: 'z' })).toThrow(
        "pod of tenant z: not one of the cluster's tenants (a, b, c, d, e)",
      );
    },
  );

  it('without the rule, tenants share MPS GPUs as one tenant would', () => {
    const shared = tenantCluster(false);
    const single = tenantCluster(false);
    const tenants = ['a', 'b', 'a', 'c', 'b', 'a'];
    expect(tenants.map((tenant) => where(shared.place({ ...pod(250, 'standard'), tenant })))).toEqual(
      tenants.map(() => where(single.place(pod(250, 'standard')))),
    );
  });
});
