import { describe, expect, it } from 'vitest';
import { InvariantViolation } from '../model/errors.js';
import type { ClusterSnapshot } from '../model/cluster.js';
import type { GpuRequest, JobRequest } from '../model/request.js';
import { findPolicy } from '../policies/registry.js';
import { SeededRng } from '../random/rng.js';
import { aClusterNode, aGpuDevice } from '../testing/builders.js';
import { ClusterQuery, type ClusterQueryOptions } from './cluster-query.js';
import { ClusterState } from './cluster-state.js';

/** Node `one`: one A100; node `two`: two A100s; node `mig`: one A100 in MIG mode with no instance. */
const SNAPSHOT: ClusterSnapshot = {
  nodes: [
    aClusterNode('one', [aGpuDevice(0)]),
    aClusterNode('two', [aGpuDevice(0), aGpuDevice(1)]),
    aClusterNode('mig', [aGpuDevice(0, { migEnabled: true, migInstances: [] })]),
  ],
  active: [],
};

const OPTIONS: ClusterQueryOptions = { policy: 'default', learnWorkloadOnline: true, migReuseOnly: true };

function job(id: number, gpu: Partial<GpuRequest> = {}): JobRequest {
  return {
    id,
    tenant: 'team',
    priority: 0,
    submittedAtMs: 0,
    cpuMilli: 0,
    hostMemoryMiB: 0,
    gpu: { gpuCount: 1, gpuMilli: 500, gpuMemoryMiB: 20_480, mode: 'mps', ...gpu },
  };
}

describe('ClusterQuery', () => {
  it('scores each node that fits with the policy, as the pass state ranks it', () => {
    const query = new ClusterQuery(SNAPSHOT, OPTIONS);
    const state = new ClusterState(SNAPSHOT, {
      profile: (unitCount) => findPolicy('default')!.create({ nodeCount: unitCount, learnWorkloadOnline: true }),
      rng: new SeededRng(1),
      timesliceOvercommitRatio: 1,
    });
    const answers = query.rank(job(1), ['one', 'two']);
    const ranking = state.rankNodes(job(1), [0, 1], true);
    expect([...answers.scores.keys()]).toEqual(['one', 'two']);
    expect(answers.scores.get('one')).toBe(ranking.scores.get(0));
    expect(answers.scores.get('two')).toBe(ranking.scores.get(1));
    expect(answers.refusals.size).toBe(0);
  });

  it('refuses a node with a coded Status: lasting for its GPUs, passing for a shortage', () => {
    const query = new ClusterQuery(SNAPSHOT, OPTIONS);
    const big = query.rank(job(1, { gpuMemoryMiB: 100_000 }), ['one']);
    expect(big.scores.size).toBe(0);
    expect(big.refusals.get('one')).toEqual({
      code: 'gpu-memory-too-small',
      lasting: true,
      details: { neededGpuMemoryMiB: 100_000, largestGpuMemoryMiB: 81_920 },
    });
    const pair = query.rank(job(2, { gpuCount: 2 }), ['one', 'two']);
    expect([...pair.scores.keys()]).toEqual(['two']);
    expect(pair.refusals.get('one')).toMatchObject({
      code: 'gpu-capacity',
      lasting: false,
      details: { qualifyingGpus: 1, neededGpus: 2 },
    });
  });

  it('refuses a MIG node that would need a new instance when only idle instances count', () => {
    const mig = job(1, { gpuMilli: 142, gpuMemoryMiB: 10_240, mode: 'mig' });
    expect(new ClusterQuery(SNAPSHOT, OPTIONS).rank(mig, ['mig']).refusals.get('mig')).toEqual({
      code: 'mig-reuse-only',
      lasting: false,
      details: {},
    });
    expect(new ClusterQuery(SNAPSHOT, { ...OPTIONS, migReuseOnly: false }).rank(mig, ['mig']).scores.has('mig')).toBe(
      true,
    );
  });

  it('binds a job on the node asked for and holds it until released', () => {
    const query = new ClusterQuery(SNAPSHOT, OPTIONS);
    const whole = { gpuMilli: 1000, gpuMemoryMiB: null, mode: 'exclusive' } as const;
    const bound = query.bind(job(1, whole), 'one');
    expect(bound).toEqual({
      placement: {
        mode: 'exclusive',
        gpus: [{ index: 0, uuid: 'GPU-0', gpuMilli: 1000, accountedGpuMilli: 1000, gpuMemoryMiB: 81_920, mig: null }],
      },
    });
    expect(query.usage().map((u) => [u.node, u.device.index, u.jobIds])).toEqual([
      ['one', 0, [1]],
      ['two', 0, []],
      ['two', 1, []],
      ['mig', 0, []],
    ]);
    const second = query.bind(job(2, whole), 'one');
    expect('refusal' in second && second.refusal.code).toBe('gpu-capacity');
    expect(query.rank(job(3), ['one']).refusals.get('one')?.code).toBe('gpu-capacity');
    query.release(1);
    query.release(1);
    expect(query.rank(job(3), ['one']).scores.has('one')).toBe(true);
  });

  it('holds a placement made elsewhere, and refuses one that over-commits', () => {
    const query = new ClusterQuery(SNAPSHOT, OPTIONS);
    const placement = {
      mode: 'mps',
      gpus: [{ index: 1, uuid: 'GPU-1', gpuMilli: 800, accountedGpuMilli: 800, gpuMemoryMiB: 40_960, mig: null }],
    } as const;
    query.hold(7, 'two', placement, 'team');
    expect(query.usage().find((u) => u.node === 'two' && u.device.index === 1)).toMatchObject({
      mode: 'mps',
      allocatedGpuMilli: 800,
      allocatedGpuMemoryMiB: 40_960,
      jobIds: [7],
    });
    expect(() => query.hold(8, 'two', placement, 'team')).toThrow(InvariantViolation);
    expect(() => query.hold(9, 'nowhere', placement, 'team')).toThrow(InvariantViolation);
  });

  it('changes its score epoch only when the policy relearns, and rejects unknown policies and nodes', () => {
    const query = new ClusterQuery(SNAPSHOT, OPTIONS);
    const before = query.scoreEpoch();
    query.rank(job(1), ['one', 'two']);
    expect(query.scoreEpoch()).toBe(before);
    expect(() => new ClusterQuery(SNAPSHOT, { ...OPTIONS, policy: 'nope' })).toThrow("unknown policy 'nope'");
    expect(() => query.rank(job(1), ['nowhere'])).toThrow('no node nowhere in the cluster');
    expect(() => query.bind(job(1), 'nowhere')).toThrow(InvariantViolation);
  });
});
