import { describe, expect, it } from 'vitest';
import {
  DEFAULT_PREEMPTION_OPTIONS,
  PRIORITY_CLASSES,
  SeededRng,
  type JobRequest,
  type NodeTemplate,
} from '../../core/index.js';
import { PoolCluster } from './pool-cluster.js';

function template(overrides: Partial<NodeTemplate> = {}): NodeTemplate {
  return {
    name: 'T4x2',
    gpuModel: 'T4',
    gpuCount: 2,
    migCapable: false,
    hostCpuMilli: 32_000,
    hostMemoryMiB: 131_072,
    pricePerHour: 0.7,
    minCount: 0,
    maxCount: 10,
    bootSeconds: 100,
    ...overrides,
  };
}

function job(id: number, gpuMilli: number, mode: JobRequest['gpu']['mode'] = 'mps', gpuMemoryMiB = 0): JobRequest {
  return {
    id,
    tenant: 'trace',
    priority: PRIORITY_CLASSES.low,
    submittedAtMs: 0,
    cpuMilli: 1000,
    hostMemoryMiB: 1024,
    gpu: { gpuCount: 1, gpuMilli, gpuMemoryMiB, mode },
  };
}

const FLAGS = { placementFails: false, mayPreempt: false };

function cluster(templates: NodeTemplate[], scheduling = {}): PoolCluster {
  return new PoolCluster(
    { templates, rng: new SeededRng(1), scheduling: { policy: 'default', ...scheduling } },
    { ...DEFAULT_PREEMPTION_OPTIONS, checkpointIntervalSeconds: 1800, victimsOnOneNode: true },
  );
}

describe('PoolCluster', () => {
  it('says where its GPUs are: held, slivers, idle beside jobs, on empty nodes, cordoned', () => {
    const t = template();
    const c = cluster([t]);
    c.addNodes([
      { id: 1, name: 'T4x2-1', template: t },
      { id: 2, name: 'T4x2-2', template: t },
      { id: 3, name: 'T4x2-3', template: t },
    ]);
    // Node 1 (the oldest) takes 0.6 and 0.3 on one GPU; nodes 2 and 3 stay empty.
    expect(c.place(job(1, 600), 0, 0)).toBe(1);
    expect(c.place(job(2, 300), 0, 0)).toBe(1);
    const onOneGpu = c.gpuUse();
    expect(onOneGpu.held).toBeCloseTo(0.9, 10);
    expect(onOneGpu.slivers).toBeCloseTo(0.1, 10);
    expect(onOneGpu).toMatchObject({ idleOnBusyNodes: 1, emptyNodes: 4, cordoned: 0 });
    c.cordon([3]);
    expect(c.gpuUse()).toMatchObject({ emptyNodes: 2, cordoned: 2 });
  });

  it('places nothing until a node joins, then places by node id', () => {
    const t = template();
    const c = cluster([t]);
    expect(c.fitsEmpty(job(1, 500))).toBe(true);
    expect(c.fitsEmpty({ ...job(2, 0), gpu: { gpuCount: 0, gpuMilli: 0, gpuMemoryMiB: 0, mode: 'exclusive' } })).toBe(
      false,
    );
    expect(c.attempt(job(1, 500), 0, 0, 0, FLAGS)).toEqual({ kind: 'waiting' });
    c.addNodes([{ id: 7, name: 'T4x2-7', template: t }]);
    expect(c.attempt(job(1, 500), 0, 10, 0, FLAGS)).toEqual({ kind: 'placed', nodeIndex: 7 });
    expect(c.jobsOn(7)).toEqual([1]);
    expect(c.reservedTotal).toBe(500);
    expect(c.snapshot().nodes.map((n) => n.name)).toEqual(['T4x2-7']);
    expect(c.snapshot().active.map((a) => a.assignment.node)).toEqual(['T4x2-7']);
  });

  it('keeps running jobs across node changes, takes nothing new on a cordoned node, removes empty nodes only', () => {
    const t = template();
    const c = cluster([t]);
    c.addNodes([{ id: 0, name: 'a', template: t }]);
    expect(c.place(job(1, 1000), 0, 0)).toBe(0);
    c.addNodes([{ id: 1, name: 'b', template: t }]);
    expect(c.jobsOn(0)).toEqual([1]);
    c.cordon([0]);
    // Node a still has a free GPU, but it is cordoned: the job goes to b.
    expect(c.place(job(2, 1000), 1, 0)).toBe(1);
    expect(() => c.removeNodes([0])).toThrow(/removed with jobs/);
    c.release(1);
    c.removeNodes([0]);
    expect(c.nodeCount).toBe(1);
    expect(c.reservedTotal).toBe(1000);
    expect(() => c.addNodes([{ id: 1, name: 'c', template: t }])).toThrow(/already in the cluster/);
  });

  it('keeps a GPU in MIG mode with its jobs when the pool changes (hybrid modes)', () => {
    const a100 = template({ name: 'A100x2', gpuModel: 'A100-80GB', migCapable: true });
    const c = cluster([a100], { modeViews: true, migModeOnDemand: true });
    c.addNodes([{ id: 0, name: 'a', template: a100 }]);
    const mig = job(1, 460, 'mig', 37_683);
    expect(c.attempt(mig, 0, 0, 0, FLAGS)).toEqual({ kind: 'placed', nodeIndex: 0 });
    // A 4g.40gb instance: 4 of 7 compute slices.
    expect(c.reservedTotal).toBe(571);
    c.addNodes([{ id: 1, name: 'b', template: a100 }]);
    const gpus = c.snapshot().nodes[0]!.gpus;
    expect(gpus.map((g) => g.migEnabled)).toEqual([true, false]);
    // An exclusive job takes the other GPU of a, or b; not the MIG GPU.
    const exclusive = {
      ...job(2, 1000, 'exclusive'),
      gpu: { gpuCount: 2, gpuMilli: 1000, gpuMemoryMiB: null, mode: 'exclusive' as const },
    };
    expect(c.place(exclusive, 0, 0)).toBe(1);
  });
});
