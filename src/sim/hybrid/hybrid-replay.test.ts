import { describe, expect, it } from 'vitest';
import type { TraceNode, TracePod } from '../traces/trace-types.js';
import { hybridPodOf, runHybridReplay, type HybridReplayInput } from './hybrid-replay.js';
import { sharingGpuModel } from './pod-mode.js';
import { summarizeHybridRuns } from './run-hybrid.js';

const NODES: TraceNode[] = [
  { name: 'n0', cpuMilli: 64_000, hostMemoryMiB: 262_144, gpuCount: 4, gpuModel: 'G2' },
  { name: 'n1', cpuMilli: 32_000, hostMemoryMiB: 131_072, gpuCount: 2, gpuModel: 'T4' },
  { name: 'n2', cpuMilli: 96_000, hostMemoryMiB: 393_216, gpuCount: 8, gpuModel: 'G2' },
];
const QOS = ['LS', 'BE', 'LS', 'Burstable', 'BE', 'LS', 'Guaranteed'];
const MILLI = [100, 470, 1000, 300, 650, 250, 1000, 810, 460];

/** 40 pods of mixed isolation and size; every 9th is CPU-only, every 10th asks for 2 whole GPUs. */
const PODS: TracePod[] = Array.from({ length: 40 }, (_, i) => {
  const [gpuCount, gpuMilli] = i % 9 === 8 ? [0, 0] : i % 10 === 9 ? [2, 1000] : [1, MILLI[i % MILLI.length]!];
  return {
    name: `pod-${String(i).padStart(2, '0')}`,
    cpuMilli: 2000 + 500 * (i % 5),
    hostMemoryMiB: 4096,
    gpuCount,
    gpuMilli,
    allowedGpuModels: i % 11 === 3 ? ['V100M16'] : [],
    gpuSpec: i % 11 === 3 ? 'V100M16' : '',
    qos: QOS[i % QOS.length]!,
    creationTimeSeconds: null,
    deletionTimeSeconds: null,
  };
});

const INPUT: HybridReplayInput = { nodes: NODES, pods: PODS, inflation: 1.3, gpuModel: sharingGpuModel('A100-80GB')! };

function withoutWall<T extends { wallSeconds: number }>(r: T): Omit<T, 'wallSeconds'> {
  const { wallSeconds: _w, ...rest } = r;
  return rest;
}

describe('runHybridReplay', () => {
  it('gives the same result for the same seed, and another arrival order for another seed', () => {
    const a = runHybridReplay(INPUT, 'auto', 42);
    const b = runHybridReplay(INPUT, 'auto', 42);
    expect(withoutWall(b)).toEqual(withoutWall(a));
    const c = runHybridReplay(INPUT, 'auto', 43);
    expect(withoutWall(c)).not.toEqual(withoutWall(a));
  });

  it('keeps its counts consistent under every setting', () => {
    for (const sharing of ['auto', 'mig', 'mps', 'timeslice'] as const) {
      const r = runHybridReplay(INPUT, sharing, 42);
      const modes = Object.values(r.placedByMode).reduce((s, v) => s + v, 0);
      expect(modes).toBe(r.placedGpuPods);
      const iso = Object.values(r.byIsolation);
      expect(iso.reduce((s, o) => s + o.pods, 0)).toBe(r.placedGpuPods + r.failedGpuPods);
      for (const o of iso) expect(o.mig + o.exclusive + o.shared + o.failed).toBe(o.pods);
      expect(r.failedPods).toBeGreaterThanOrEqual(r.failedGpuPods);
      expect(r.arrivals).toBeGreaterThanOrEqual(PODS.length);
      for (const a of r.allocationPct) if (a !== null) expect(a).toBeLessThanOrEqual(100);
      for (const [x, a] of r.requestedAllocationPct.entries())
        if (a !== null) expect(a).toBeLessThanOrEqual(r.allocationPct[x]! + 1e-9);
      expect(r.hardwareIsolatedPct).toBeCloseTo((100 * r.placedByMode.mig) / r.placedGpuPods, 9);
      expect(r.reconfigurations).toBe(r.giCreations + r.migModeSwitches);
      expect(r.migModeSwitches).toBeGreaterThanOrEqual(r.gpusWithMigJobs);
      if (sharing === 'mig') {
        expect([r.hardwareIsolatedPct, r.migModeSwitches]).toEqual([100, 14]); // every GPU switched once, up front
        expect(r.giCreations).toBeGreaterThanOrEqual(r.placedGpuPods);
      } else if (sharing === 'auto') {
        // Only strict shares run on MIG; whole GPUs are exclusive.
        expect(r.placedByMode.mig).toBe(r.byIsolation.strict.mig);
        expect(r.placedByMode.mps).toBe(r.byIsolation.standard.shared);
        expect(r.placedByMode.timeslice).toBe(r.byIsolation.none.shared);
        expect(r.giCreations).toBe(r.placedByMode.mig);
      } else {
        expect([r.placedByMode.mig, r.reconfigurations, r.hardwareIsolatedPct]).toEqual([0, 0, 0]);
        expect(r.unrequestedPctAt100).toBe(r.unallocatedPctAt100);
      }
    }
  });

  it('ignores gpu_spec: every GPU is the --gpu-model', () => {
    expect(hybridPodOf(PODS[3]!)).toEqual({
      cpuMilli: 3500,
      hostMemoryMiB: 4096,
      gpuCount: 1,
      gpuMilli: 300,
      isolation: 'standard',
    });
    const r = runHybridReplay(INPUT, 'mps', 42);
    expect(r.failedGpuPods).toBeLessThan(r.placedGpuPods);
  });

  it('summarizes per setting in the order given', () => {
    const runs = [
      runHybridReplay(INPUT, 'mig', 1),
      runHybridReplay(INPUT, 'auto', 1),
      runHybridReplay(INPUT, 'mig', 2),
    ];
    const summary = summarizeHybridRuns(runs);
    expect(summary.map((s) => [s.sharing, s.seeds])).toEqual([
      ['mig', [1, 2]],
      ['auto', [1]],
    ]);
    expect(summary[0]!.reconfigurations.mean).toBe((runs[0]!.reconfigurations + runs[2]!.reconfigurations) / 2);
  });

  it(
    'spreads pods over tenants by name; without the one-tenant rule tenants change nothing, with it MPS ' +
      'GPUs hold one tenant each',
    () => {
      expect(PODS.slice(0, 4).map((p) => hybridPodOf(p, 3).tenant)).toEqual(
        PODS.slice(0, 4).map((p) => hybridPodOf(p, 3).tenant),
      );
      expect(new Set(PODS.map((p) => hybridPodOf(p, 3).tenant))).toEqual(new Set(['t0', 't1', 't2']));
      expect(hybridPodOf(PODS[0]!, 1).tenant).toBeUndefined();
      const one = runHybridReplay(INPUT, 'mps', 42);
      const anyTenant = runHybridReplay({ ...INPUT, tenants: 3, mpsOneTenantPerGpu: false }, 'mps', 42);
      const { tenants: _t1, mpsOneTenantPerGpu: _r1, ...oneRest } = withoutWall(one);
      const { tenants: _t2, mpsOneTenantPerGpu: _r2, ...anyRest } = withoutWall(anyTenant);
      expect(anyRest).toEqual(oneRest);
      expect([one.tenants, one.mpsOneTenantPerGpu, anyTenant.tenants, anyTenant.mpsOneTenantPerGpu]).toEqual([
        1,
        true,
        3,
        false,
      ]);
      const ruled = runHybridReplay({ ...INPUT, tenants: 3 }, 'mps', 42);
      // Packing is not monotone: here spreading tenants over more GPUs happens to place two more pods.
      expect([one.placedGpuPods, one.mpsGpus, ruled.placedGpuPods, ruled.mpsGpus]).toEqual([20, 6, 22, 7]);
    },
  );
});
