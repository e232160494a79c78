import { describe, expect, it } from 'vitest';
import type { PlacedGpu, Placement } from '../model/assignment.js';
import type { ClusterNode } from '../model/cluster.js';
import { InvariantViolation } from '../model/errors.js';
import type { GpuRequest, JobRequest } from '../model/request.js';
import { findPolicy } from '../policies/registry.js';
import { SeededRng } from '../random/rng.js';
import { SchedulingSession } from '../schedule.js';
import { aClusterNode, aGpuDevice, aJob } from '../testing/builders.js';
import { ClusterState } from './cluster-state.js';
import { placeSwitchingIntoMig } from './mig-switching.js';
import { Statement } from './statement.js';
import type { DeviceState } from './unit-groups.js';

const job = (id: number, gpu: Partial<GpuRequest>): JobRequest => aJob(id, { gpu });
const strict = (id: number, gpuMilli = 100): JobRequest =>
  job(id, { mode: 'mig', gpuMilli, gpuMemoryMiB: Math.floor((gpuMilli * 81920) / 1000) });

/** A session over `nodes` with mode views and MIG mode on demand. */
function onDemand(nodes: ClusterNode[]): SchedulingSession {
  return new SchedulingSession({ nodes, active: [] }, new SeededRng(1), { modeViews: true, migModeOnDemand: true });
}

/** MIG mode of each GPU of node `n`, by index. */
const migModes = (s: SchedulingSession, n = 0): boolean[] =>
  [...s.state.nodes[n]!.devices.values()]
    .sort((a, b) => a.device.index - b.device.index)
    .map((d) => d.device.migEnabled);

describe('migModeOnDemand: empty GPUs switch into MIG mode for mig jobs', () => {
  it('switches the lowest-index empty GPU, marks it in the plan, and reuses it for the next mig job', () => {
    const s = onDemand([aClusterNode('n0', [aGpuDevice(0), aGpuDevice(1)])]);
    const first = s.schedule([strict(1)], { nowMs: 0 });
    expect(first.placements[0]!.placement.gpus).toMatchObject([
      {
        index: 0,
        mig: { profileName: '1g.10gb', start: 6 },
        migChanges: { enableMig: true, destroy: [], create: [{ start: 6, profileId: 19 }] },
      },
    ]);
    expect(first.migReconfigurations).toMatchObject([
      { node: 'n0', gpuIndex: 0, jobId: 1, changes: { enableMig: true } },
    ]);
    expect(migModes(s)).toEqual([true, false]);
    expect(s.state.usage().map((u) => u.mode)).toEqual(['mig', null]);
    const second = s.schedule([strict(2, 300)], { nowMs: 0 }).placements[0]!.placement.gpus[0]!;
    expect([second.index, second.mig!.profileName, second.migChanges!.enableMig]).toEqual([0, '3g.40gb', undefined]);
    expect(migModes(s)).toEqual([true, false]);
  });

  it('keeps shares off a GPU in MIG mode and switches no GPU that holds jobs', () => {
    const s = onDemand([aClusterNode('n0', [aGpuDevice(0), aGpuDevice(1)])]);
    expect(s.schedule([strict(1)], { nowMs: 0 }).placements).toHaveLength(1);
    const share = s.schedule([job(2, { mode: 'timeslice', gpuMilli: 900, gpuMemoryMiB: 1024 })], { nowMs: 0 });
    expect(share.placements[0]!.placement.gpus.map((g) => g.index)).toEqual([1]);
    expect(s.schedule([job(3, { mode: 'exclusive' })], { nowMs: 0 }).placements).toEqual([]);
    // GPU 0 has 6 compute slices left, GPU 1 runs timeslice: a 7g finds no GPU, and nothing switches.
    expect(s.schedule([strict(4, 1000)], { nowMs: 0 }).placements).toEqual([]);
    expect(migModes(s)).toEqual([true, false]);
  });

  it('undoes a switch when the pass is rolled back', () => {
    const state = new ClusterState(
      { nodes: [aClusterNode('n0', [aGpuDevice(0)])], active: [] },
      {
        profile: (n) => findPolicy('default')!.create({ nodeCount: n }),
        rng: new SeededRng(1),
        timesliceOvercommitRatio: 1,
        modeViews: true,
        migModeOnDemand: true,
      },
    );
    const statement = new Statement(state);
    const before = statement.checkpoint();
    expect(statement.place(strict(1)).kind).toBe('placed');
    expect(state.nodes[0]!.devices.get(0)!.device.migEnabled).toBe(true);
    statement.rollback(before);
    statement.commit();
    expect(state.nodes[0]!.devices.get(0)!.device.migEnabled).toBe(false);
    expect(state.groups.noneBlocked('exclusive')).toBe(true);
    // The views see the GPU empty again: a whole-GPU job takes it.
    expect(state.tryPlace(job(2, { mode: 'exclusive' })).kind).toBe('placed');
  });

  it('needs modeViews', () => {
    expect(
      () =>
        new SchedulingSession({ nodes: [aClusterNode('n0', [aGpuDevice(0)])], active: [] }, new SeededRng(1), {
          migModeOnDemand: true,
        }),
    ).toThrow(new InvariantViolation('migModeOnDemand needs modeViews'));
  });
});

describe('placeSwitchingIntoMig', () => {
  /** Fake GPU states 0..count−1, not in MIG mode. */
  const states = (count: number): DeviceState[] =>
    Array.from({ length: count }, (_, index) => ({
      device: aGpuDevice(index),
      nodeIndex: 0,
      mode: null,
      jobs: new Set<number>(),
      mpsTenant: null,
      unit: null,
      local: index,
    }));
  const onGpus = (indices: number[]): Placement => ({
    mode: 'mig',
    gpus: indices.map((index): PlacedGpu => ({
      index,
      uuid: `GPU-${index}`,
      gpuMilli: 100,
      accountedGpuMilli: 0,
      gpuMemoryMiB: 9728,
      mig: { profileId: 19, profileName: '1g.10gb', start: 6, size: 1, computeSlices: 1 },
      migChanges: { destroy: [], create: [{ start: 6, profileId: 19 }] },
    })),
  });

  it('switches one GPU more until the job fits, and marks the switched GPUs it lands on', () => {
    const gpus = states(3);
    const log: string[] = [];
    const setMig = (s: DeviceState, on: boolean) => log.push(`${s.device.index}:${on}`);
    // The job needs two MIG GPUs: it fits once GPUs 0 and 1 are switched.
    const placed = placeSwitchingIntoMig(gpus, setMig, () => (log.length >= 2 ? onGpus([0, 1]) : null));
    expect(log).toEqual(['0:true', '1:true']);
    expect(placed!.gpus.map((g) => g.migChanges)).toEqual([
      { enableMig: true, destroy: [], create: [{ start: 6, profileId: 19 }] },
      { enableMig: true, destroy: [], create: [{ start: 6, profileId: 19 }] },
    ]);
  });

  it('switches back the GPUs the job does not land on, and all of them when it never fits', () => {
    const log: string[] = [];
    const setMig = (s: DeviceState, on: boolean) => log.push(`${s.device.index}:${on}`);
    const placed = placeSwitchingIntoMig(states(3), setMig, () => (log.length >= 2 ? onGpus([1, 7]) : null));
    expect(log).toEqual(['0:true', '1:true', '0:false']);
    expect(placed!.gpus.map((g) => g.migChanges?.enableMig)).toEqual([true, undefined]);
    log.length = 0;
    expect(placeSwitchingIntoMig(states(2), setMig, () => null)).toBeNull();
    expect(log).toEqual(['0:true', '1:true', '1:false', '0:false']);
  });
});
