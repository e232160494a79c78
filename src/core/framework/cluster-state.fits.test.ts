import { describe, expect, it } from 'vitest';
import { SeededRng } from '../random/rng.js';
import { SchedulingSession } from '../schedule.js';
import { aClusterNode, aGpuDevice, aJob } from '../testing/builders.js';

/** A CPU-only `mps` request (a trace pod without GPUs) of `cpuMilli` and 1 GiB. */
const cpuOnly = (id: number, cpuMilli: number) =>
  aJob(id, { cpuMilli, gpu: { gpuCount: 0, gpuMilli: 0, gpuMemoryMiB: 0, mode: 'mps' } });

describe('ClusterState.fits for a CPU-only job', () => {
  // n0: 8 vCPU with a GPU; n1: 4 vCPU without GPUs.
  const session = () =>
    new SchedulingSession(
      {
        nodes: [
          aClusterNode('n0', [aGpuDevice(0)], { hostCpuMilli: 8000 }),
          aClusterNode('n1', [], { hostCpuMilli: 4000 }),
        ],
        active: [],
      },
      new SeededRng(1),
    );

  it('answers as the placement does: the host CPU and memory of some node decide', () => {
    const s = session();
    for (const [cpuMilli, fits] of [
      [8000, true],
      [8001, false],
    ] as const) {
      expect(s.state.fits(cpuOnly(1, cpuMilli))).toBe(fits);
      expect(s.schedule([cpuOnly(1, cpuMilli)], { nowMs: 0 }).placements.length).toBe(fits ? 1 : 0);
      s.release(1);
    }
  });

  it('counts a node without GPUs, and no longer fits once the CPU is taken', () => {
    const s = session();
    expect(s.schedule([cpuOnly(1, 8000)], { nowMs: 0 }).placements.map((p) => p.node)).toEqual(['n0']);
    expect(s.state.fits(cpuOnly(2, 4000))).toBe(true);
    expect(s.schedule([cpuOnly(2, 4000)], { nowMs: 0 }).placements.map((p) => p.node)).toEqual(['n1']);
    expect(s.state.fits(cpuOnly(3, 1))).toBe(false);
  });
});
