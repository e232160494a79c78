import { describe, expect, it } from 'vitest';
import type { ActiveJob, ClusterNode } from '../model/cluster.js';
import { InvariantViolation } from '../model/errors.js';
import type { Placement } from '../model/assignment.js';
import type { GpuRequest, JobRequest } from '../model/request.js';
import { findPolicy } from '../policies/registry.js';
import { SeededRng } from '../random/rng.js';
import { SchedulingSession, type ScheduleOptions } from '../schedule.js';
import { aClusterNode, aGpuDevice, aJob } from '../testing/builders.js';
import { ClusterState } from './cluster-state.js';
import { placeOnGpus } from './shared-placement.js';

/** A job asking for `gpu` (one GPU unless given), tenant `team`, 1 vCPU. */
const job = (id: number, gpu: Partial<GpuRequest>, tenant = 'team'): JobRequest => aJob(id, { tenant, gpu });

/** A job of `tenant` holding a share of `gpuMilli` in `mode` on GPU `index` of `node`. */
function shareOn(
  id: number,
  node: string,
  index: number,
  mode: 'mps' | 'timeslice',
  gpuMilli: number,
  tenant = 'team',
) {
  const request = job(id, { mode, gpuMilli, gpuMemoryMiB: 1024 }, tenant);
  return held(request, node, {
    mode,
    gpus: [{ index, uuid: `GPU-${index}`, gpuMilli, accountedGpuMilli: gpuMilli, gpuMemoryMiB: 1024, mig: null }],
  });
}

/** A job holding a `1g.10gb` instance at start `start` of MIG GPU `index` of `node`. */
function oneSliceOn(id: number, node: string, index: number, start: number): ActiveJob {
  const request = job(id, { mode: 'mig', gpuMilli: 100, gpuMemoryMiB: 8192 });
  const mig = { profileId: 19, profileName: '1g.10gb', start, size: 1, computeSlices: 1 };
  return held(request, node, {
    mode: 'mig',
    gpus: [{ index, uuid: `GPU-${index}`, gpuMilli: 100, accountedGpuMilli: 0, gpuMemoryMiB: 9728, mig }],
  });
}

function held(request: JobRequest, node: string, placement: Placement): ActiveJob {
  return {
    request,
    assignment: {
      jobId: request.id,
      node,
      cpuMilli: request.cpuMilli,
      hostMemoryMiB: request.hostMemoryMiB,
      placement,
    },
    preemptible: true,
    startedAtMs: 0,
    preemptionCount: 0,
    stopping: false,
  };
}

/** A session with the `default` policy and the given options. */
function session(nodes: ClusterNode[], active: ActiveJob[], options: ScheduleOptions = {}): SchedulingSession {
  return new SchedulingSession({ nodes, active }, new SeededRng(1), { modeViews: true, ...options });
}

/** Where one pass puts `request`: `node/gpu,gpu` (with the MIG profile), or null. */
function place(s: SchedulingSession, request: JobRequest): string | null {
  const placed = s.schedule([request], { nowMs: 0 }).placements[0];
  if (placed === undefined) return null;
  const gpus = placed.placement.gpus.map((g) => g.index).join(',');
  const mig = placed.placement.gpus[0]?.mig;
  return `${placed.node}/${gpus}${mig ? ` ${mig.profileName}@${mig.start}` : ''}`;
}

const migGpu = (index: number) => aGpuDevice(index, { migEnabled: true });

describe('modeViews: node choice on a view of the job’s mode', () => {
  it('puts a mig job on the node the policy ranks first (the default: the cheapest option in node order)', () => {
    const nodes = [aClusterNode('n0', [migGpu(0)]), aClusterNode('n1', [migGpu(0)])];
    const mig = job(1, { mode: 'mig', gpuMilli: 300, gpuMemoryMiB: 30720 });
    const nodeRank = Int32Array.from([1, 0]);
    expect(place(session(nodes, [], { modeViews: false, nodeRank }), mig)).toBe('n0/0 3g.40gb@4');
    // Equal nodes score equally; the lower rank wins.
    expect(place(session(nodes, [], { nodeRank }), mig)).toBe('n1/0 3g.40gb@4');
  });

  it('skips a node whose MIG GPU has the slices but no valid start for the profile, and counts the refusal', () => {
    // n0: a 1g.10gb at start 0 leaves 6 compute and 7 memory slices, but a 4g.40gb starts only at 0.
    const nodes = [aClusterNode('n0', [migGpu(0)]), aClusterNode('n1', [migGpu(0)])];
    const s = session(nodes, [oneSliceOn(9, 'n0', 0, 0)]);
    expect(place(s, job(1, { mode: 'mig', gpuMilli: 470, gpuMemoryMiB: 38502 }))).toBe('n1/0 4g.40gb@0');
    expect(s.state.viewRefusals).toBe(1);
    expect(place(s, job(2, { mode: 'mig', gpuMilli: 100, gpuMemoryMiB: 8192 }))).toBe('n1/0 1g.10gb@6');
    // The mask is lifted again: a 3g.40gb, too big for n1 now, goes to n0, without a refusal.
    expect(place(s, job(3, { mode: 'mig', gpuMilli: 300, gpuMemoryMiB: 30720 }))).toBe('n0/0 3g.40gb@4');
    expect(s.state.viewRefusals).toBe(1);
  });

  it('shows a GPU of another mode, or in MIG mode, as no room: a share goes to an empty GPU or one of its mode', () => {
    const gpus = [aGpuDevice(0), migGpu(1), aGpuDevice(2), aGpuDevice(3)];
    const active = [shareOn(7, 'n0', 0, 'timeslice', 100), oneSliceOn(8, 'n0', 1, 0), shareOn(9, 'n0', 3, 'mps', 100)];
    const s = session([aClusterNode('n0', gpus)], active);
    // GPU 3 runs mps: the view lets the share join it rather than break into the empty GPU 2.
    expect(place(s, job(1, { mode: 'mps', gpuMilli: 300, gpuMemoryMiB: 1024 }))).toBe('n0/3');
    expect(place(s, job(2, { mode: 'timeslice', gpuMilli: 300, gpuMemoryMiB: 1024 }))).toBe('n0/0');
    // 700 milli fit on no GPU that runs timeslice or is empty but GPU 2; then none is left for mps or exclusive.
    expect(place(s, job(3, { mode: 'timeslice', gpuMilli: 700, gpuMemoryMiB: 1024 }))).toBe('n0/2');
    expect(place(s, job(4, { mode: 'mps', gpuMilli: 700, gpuMemoryMiB: 1024 }))).toBeNull();
    expect(place(s, job(5, { mode: 'exclusive' }))).toBeNull();
  });

  it('gives each tenant its own MPS view under the one-tenant rule', () => {
    const s = session([aClusterNode('n0', [aGpuDevice(0), aGpuDevice(1)])], [shareOn(9, 'n0', 0, 'mps', 100, 'a')]);
    expect(place(s, job(1, { mode: 'mps', gpuMilli: 100, gpuMemoryMiB: 1024 }, 'b'))).toBe('n0/1');
    expect(place(s, job(2, { mode: 'mps', gpuMilli: 100, gpuMemoryMiB: 1024 }, 'a'))).toBe('n0/0');
    expect(place(s, job(3, { mode: 'mps', gpuMilli: 900, gpuMemoryMiB: 1024 }, 'c'))).toBeNull();
  });

  it('places a job without GPUs on the plain view, holding host CPU and memory only', () => {
    const nodes = [aClusterNode('n0', [migGpu(0)], { hostCpuMilli: 4000 }), aClusterNode('n1', [aGpuDevice(0)])];
    const s = session(nodes, []);
    const cpuOnly = (id: number, cpuMilli: number) =>
      aJob(id, { cpuMilli, gpu: { gpuCount: 0, gpuMilli: 0, gpuMemoryMiB: 0 } });
    expect(place(s, cpuOnly(1, 8000))).toBe('n1/');
    expect(s.state.nodes[1]!.freeCpuMilli).toBe(56_000);
    expect(place(s, cpuOnly(2, 60_000))).toBeNull();
  });

  it('needs GPUs of one model', () => {
    const nodes = [aClusterNode('n0', [aGpuDevice(0)]), aClusterNode('n1', [aGpuDevice(0, { model: 'H100-80GB' })])];
    expect(() => session(nodes, [])).toThrow(InvariantViolation);
    expect(() => session(nodes, [], { modeViews: false })).not.toThrow();
  });
});

describe('placeOnGpus: a shared placement on GPUs chosen elsewhere', () => {
  const state = new ClusterState(
    {
      nodes: [aClusterNode('n0', [aGpuDevice(0), aGpuDevice(1), aGpuDevice(2)])],
      active: [shareOn(9, 'n0', 0, 'timeslice', 400)],
    },
    {
      profile: (n) => findPolicy('default')!.create({ nodeCount: n }),
      rng: new SeededRng(1),
      timesliceOvercommitRatio: 1,
    },
  );
  const mps = job(1, { mode: 'mps', gpuMilli: 600, gpuMemoryMiB: 1024 });

  it('builds the placement when each GPU can take the share now', () => {
    expect(placeOnGpus(mps, 'mps', state.groups, 1, 0, [1])).toEqual({
      nodeIndex: 0,
      placement: {
        mode: 'mps',
        gpus: [{ index: 1, uuid: 'GPU-1', gpuMilli: 600, accountedGpuMilli: 600, gpuMemoryMiB: 1024, mig: null }],
      },
    });
    expect(
      placeOnGpus(
        job(2, { mode: 'timeslice', gpuMilli: 600, gpuMemoryMiB: 1024 }),
        'timeslice',
        state.groups,
        1,
        0,
        [0],
      ),
    ).toMatchObject({ placement: { mode: 'timeslice', gpus: [{ index: 0 }] } });
  });

  it('refuses a GPU of another mode or without room, a missing GPU, the wrong count, a node without the host', () => {
    expect(placeOnGpus(mps, 'mps', state.groups, 1, 0, [0])).toBeNull();
    expect(
      placeOnGpus(
        job(3, { mode: 'timeslice', gpuMilli: 700, gpuMemoryMiB: 1024 }),
        'timeslice',
        state.groups,
        1,
        0,
        [0],
      ),
    ).toBeNull();
    expect(placeOnGpus(mps, 'mps', state.groups, 1, 0, [5])).toBeNull();
    expect(placeOnGpus(mps, 'mps', state.groups, 1, 0, [1, 2])).toBeNull();
    expect(placeOnGpus({ ...mps, cpuMilli: 65_000 }, 'mps', state.groups, 1, 0, [1])).toBeNull();
  });
});
