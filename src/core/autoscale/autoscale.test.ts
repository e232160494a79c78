import { describe, expect, it } from 'vitest';
import type { ActiveJob } from '../model/cluster.js';
import { aJob, anExclusiveJob } from '../testing/builders.js';
import { autoscale } from './autoscale.js';
import { INITIAL_AUTOSCALE_STATE, recordProviderFailure } from './autoscale-state.js';
import {
  DEFAULT_AUTOSCALE_POLICY,
  type AutoscaleInput,
  type AutoscaleState,
  type PoolNode,
} from './autoscale-types.js';
import { templateNode, type NodeTemplate } from './node-template.js';

const MINUTE_MS = 60_000;

function aTemplate(overrides: Partial<NodeTemplate> = {}): NodeTemplate {
  return {
    name: 'a100x2',
    gpuModel: 'A100-80GB',
    gpuCount: 2,
    migCapable: true,
    hostCpuMilli: 32_000,
    hostMemoryMiB: 256 * 1024,
    pricePerHour: 8,
    minCount: 0,
    maxCount: 50,
    bootSeconds: 300,
    ...overrides,
  };
}

/** `count` pending MPS jobs of `gpuMilli` each, submitted an hour before now. */
function sharedJobs(count: number, gpuMilli: number, firstId = 1) {
  return Array.from({ length: count }, (_, i) =>
    aJob(firstId + i, { submittedAtMs: 0, gpu: { gpuMilli, mode: 'mps' } }),
  );
}

function input(overrides: Partial<AutoscaleInput> = {}): AutoscaleInput {
  return {
    nowMs: 60 * MINUTE_MS,
    snapshot: { nodes: [], active: [] },
    pool: [],
    pending: [],
    templates: [aTemplate()],
    policy: DEFAULT_AUTOSCALE_POLICY,
    state: INITIAL_AUTOSCALE_STATE,
    ...overrides,
  };
}

/** A job holding whole GPU `gpuIndex` of `node` (UUIDs as templateNode names them). */
function runningOn(id: number, node: string, gpuIndex: number, preemptible: boolean): ActiveJob {
  const job = anExclusiveJob(aJob(id), node, [gpuIndex], { preemptible, startedAtMs: 0 });
  return {
    ...job,
    assignment: {
      ...job.assignment,
      placement: {
        ...job.assignment.placement,
        gpus: job.assignment.placement.gpus.map((g) => ({ ...g, uuid: `GPU-${node}-${g.index}` })),
      },
    },
  };
}

describe('autoscale: scale-up', () => {
  it('asks for 3 nodes of a 2-GPU template for 10 half-GPU jobs on an empty pool, not 10', () => {
    const decision = autoscale(input({ pending: sharedJobs(10, 500) }));
    expect(decision.scaleUp.map((s) => [s.template, s.count])).toEqual([['a100x2', 3]]);
    expect(decision.scaleUpJobIds).toEqual([1, 2, 3, 4, 5, 6, 7, 8, 9, 10]);
    expect(decision.desiredCount).toEqual({ a100x2: 3 });
    expect(decision.scaleUp[0]!.reason).toEqual({
      code: 'unschedulable-jobs',
      lasting: false,
      details: { jobCount: 10, nodeCount: 3, template: 'a100x2' },
    });
  });

  it('asks for 3 one-GPU nodes for 3 jobs of 0.6 GPU (the sum of requests, 1.8, would say 2)', () => {
    const decision = autoscale(
      input({ templates: [aTemplate({ name: 'a100x1', gpuCount: 1 })], pending: sharedJobs(3, 600) }),
    );
    expect(decision.scaleUp.map((s) => [s.template, s.count])).toEqual([['a100x1', 3]]);
  });

  it('adds nothing again while the nodes it asked for boot', () => {
    const first = autoscale(input({ pending: sharedJobs(10, 500) }));
    const pool: PoolNode[] = Array.from({ length: first.scaleUp[0]!.count }, (_, i) => ({
      name: `booting-${i}`,
      template: 'a100x2',
      phase: 'booting',
      requestedAtMs: 60 * MINUTE_MS,
    }));
    const again = autoscale(input({ nowMs: 62 * MINUTE_MS, pool, pending: sharedJobs(10, 500), state: first.state }));
    expect(again.scaleUp).toEqual([]);
    expect(again.desiredCount).toEqual({ a100x2: 3 });
    expect(again.remove).toEqual([]);
  });

  it('gives a booting node up after its boot time and the time-out, and backs the template off', () => {
    const pool: PoolNode[] = [{ name: 'slow', template: 'a100x2', phase: 'booting', requestedAtMs: 0 }];
    const decision = autoscale(
      input({ nowMs: (300 + 900) * 1000 + 1, pool, pending: sharedJobs(1, 500), policy: DEFAULT_AUTOSCALE_POLICY }),
    );
    expect(decision.remove.map((r) => [r.node, r.reason.code])).toEqual([['slow', 'boot-timed-out']]);
    expect(decision.state.failures).toEqual({ a100x2: { count: 1, lastMs: 1_200_001 } });
    // The job still needs a node, but the template backs off for 60 s.
    expect(decision.scaleUp).toEqual([]);
    expect(decision.statuses.map((s) => s.code)).toEqual(['provider-backoff']);
    expect(decision.statuses[0]!.details).toMatchObject({ template: 'a100x2', failures: 1, secondsLeft: 60 });
  });

  it('waits for the queue-length threshold and the wait-time target', () => {
    const policy = { ...DEFAULT_AUTOSCALE_POLICY, scaleUpQueueLength: 3, scaleUpWaitSeconds: 600 };
    const young = sharedJobs(5, 500).map((j) => ({ ...j, submittedAtMs: 59 * MINUTE_MS }));
    const decision = autoscale(input({ policy, pending: [...sharedJobs(2, 500, 10), ...young] }));
    expect(decision.scaleUp).toEqual([]);
    expect(decision.statuses).toEqual([
      { code: 'below-queue-threshold', lasting: false, details: { jobCount: 2, threshold: 3, waitSeconds: 600 } },
    ]);
    // An old third job passes the threshold: a node for the three old jobs; the young ones wait for their target.
    const enough = autoscale(input({ policy, pending: [...sharedJobs(3, 500, 10), ...young] }));
    expect(enough.scaleUp.map((s) => s.count)).toEqual([1]);
    expect(enough.scaleUpJobIds).toEqual([10, 11, 12]);
  });

  it('keeps the cost cap and the node cap, saying which stopped it', () => {
    const capped = autoscale(
      input({ policy: { ...DEFAULT_AUTOSCALE_POLICY, maxCostPerHour: 20 }, pending: sharedJobs(10, 500) }),
    );
    expect(capped.scaleUp.map((s) => s.count)).toEqual([2]);
    expect(capped.scaleUpJobIds).toEqual([1, 2, 3, 4, 5, 6, 7, 8]);
    expect(capped.statuses.map((s) => [s.code, s.details.jobId])).toEqual([
      ['max-cost', 9],
      ['max-cost', 10],
    ]);
    expect(capped.statuses[0]!.details).toMatchObject({ maxCostPerHour: 20, costPerHour: 24 });
    const few = autoscale(
      input({ policy: { ...DEFAULT_AUTOSCALE_POLICY, maxNodes: 1 }, pending: sharedJobs(10, 500) }),
    );
    expect(few.scaleUp.map((s) => s.count)).toEqual([1]);
    expect(few.statuses[0]).toMatchObject({ code: 'max-nodes', details: { maxNodes: 1, jobId: 5 } });
  });

  it('picks the cheapest template per unit of work placed, and says when none fits a job', () => {
    const templates = [
      aTemplate({ name: 'a100x8', gpuCount: 8, pricePerHour: 30 }),
      aTemplate({ name: 'a100x1', gpuCount: 1, pricePerHour: 4.5 }),
      aTemplate({ name: 'tiny', gpuCount: 1, hostCpuMilli: 500, pricePerHour: 1 }),
    ];
    const eight = Array.from({ length: 8 }, (_, i) => aJob(i + 1, { submittedAtMs: 0 }));
    const decision = autoscale(
      input({ templates, pending: [...eight, aJob(9, { submittedAtMs: 0, gpu: { gpuCount: 9 } })] }),
    );
    // 8 whole-GPU jobs (1 vCPU each): one 8-GPU node (30) beats eight 1-GPU nodes (36); `tiny` has too little CPU.
    expect(decision.scaleUp.map((s) => [s.template, s.count])).toEqual([['a100x8', 1]]);
    expect(decision.statuses).toEqual([{ code: 'no-template-fits', lasting: true, details: { jobId: 9 } }]);
  });

  it('keeps mig jobs off templates that are not MIG capable', () => {
    const mig = [aJob(1, { submittedAtMs: 0, gpu: { gpuMilli: 300, mode: 'mig' } })];
    const decision = autoscale(input({ templates: [aTemplate({ migCapable: false })], pending: mig }));
    expect(decision.scaleUp).toEqual([]);
    expect(decision.statuses.map((s) => s.code)).toEqual(['no-template-fits']);
  });
});

describe('autoscale: scale-down', () => {
  const policy = { ...DEFAULT_AUTOSCALE_POLICY, scaleDownDelaySeconds: 600, scaleDownUtilization: 0.5 };
  const pool: PoolNode[] = [
    { name: 'n0', template: 'a100x2', phase: 'ready', requestedAtMs: 0 },
    { name: 'n1', template: 'a100x2', phase: 'ready', requestedAtMs: 0 },
  ];
  const nodes = [templateNode(aTemplate(), 'n0'), templateNode(aTemplate(), 'n1')];

  it('removes an idle node only after the cool-down, cordoning it first', () => {
    const snapshot = { nodes, active: [runningOn(1, 'n0', 0, true), runningOn(2, 'n0', 1, true)] };
    const first = autoscale(input({ nowMs: 0, policy, pool, snapshot }));
    expect(first.remove).toEqual([]);
    expect(first.state.lowUseSinceMs).toEqual({ n1: 0 });
    const early = autoscale(input({ nowMs: 599_000, policy, pool, snapshot, state: first.state }));
    expect(early.remove).toEqual([]);
    const late = autoscale(input({ nowMs: 600_000, policy, pool, snapshot, state: early.state }));
    expect(late.cordon.map((c) => c.node)).toEqual(['n1']);
    expect(late.remove.map((c) => [c.node, c.reason.code, c.reason.details.idleSeconds])).toEqual([
      ['n1', 'node-idle', 600],
    ]);
    expect(late.desiredCount).toEqual({ a100x2: 1 });
  });

  it('forgets a node that got busy again, and keeps the template minimum', () => {
    const idle = autoscale(input({ nowMs: 0, policy, pool, snapshot: { nodes, active: [] } }));
    expect(idle.state.lowUseSinceMs).toEqual({ n0: 0, n1: 0 });
    const busy = { nodes, active: [runningOn(1, 'n0', 0, true), runningOn(2, 'n0', 1, true)] };
    expect(
      autoscale(input({ nowMs: 1000, policy, pool, snapshot: busy, state: idle.state })).state.lowUseSinceMs,
    ).toEqual({
      n1: 0,
    });
    const kept = autoscale(
      input({
        nowMs: 600_000,
        policy,
        pool,
        templates: [aTemplate({ minCount: 1 })],
        snapshot: { nodes, active: [] },
        state: idle.state,
      }),
    );
    expect(kept.remove.map((r) => r.node)).toEqual(['n0']);
    expect(kept.statuses).toEqual([
      { code: 'template-min-count', lasting: false, details: { node: 'n1', template: 'a100x2', minCount: 1 } },
    ]);
  });

  it('drains a nearly idle node whose jobs can be checkpointed and fit elsewhere, then removes it once empty', () => {
    const snapshot = { nodes, active: [runningOn(1, 'n0', 0, true), runningOn(2, 'n1', 0, true)] };
    const state = { ...INITIAL_AUTOSCALE_STATE, lowUseSinceMs: { n0: 0, n1: 0 } };
    const decision = autoscale(input({ nowMs: 600_000, policy, pool, snapshot, state }));
    expect(decision.cordon.map((c) => [c.node, c.reason.code])).toEqual([['n0', 'node-underused']]);
    expect(decision.drainJobIds).toEqual([1]);
    expect(decision.remove).toEqual([]);
    const cordoned: PoolNode[] = [{ ...pool[0]!, phase: 'cordoned' }, pool[1]!];
    const moved = { nodes, active: [runningOn(1, 'n1', 1, true), runningOn(2, 'n1', 0, true)] };
    const after = autoscale(input({ nowMs: 660_000, policy, pool: cordoned, snapshot: moved, state: decision.state }));
    expect(after.remove.map((r) => r.node)).toEqual(['n0']);
    expect(after.desiredCount).toEqual({ a100x2: 1 });
  });

  it('never removes a node while a job that cannot be checkpointed runs on it', () => {
    const snapshot = { nodes, active: [runningOn(1, 'n0', 0, false), runningOn(2, 'n1', 0, true)] };
    let state: AutoscaleState = { ...INITIAL_AUTOSCALE_STATE, lowUseSinceMs: { n0: 0, n1: 0 } };
    for (const nowMs of [600_000, 6_000_000, 60_000_000]) {
      const decision = autoscale(input({ nowMs, policy, pool, snapshot, state }));
      expect(decision.cordon.map((c) => c.node)).toEqual(['n1']);
      expect(decision.drainJobIds).toEqual([2]);
      expect(decision.statuses).toEqual([
        { code: 'uncheckpointable-job', lasting: false, details: { node: 'n0', jobId: 1 } },
      ]);
      state = decision.state;
    }
  });

  it('backs off after provider failures, doubling', () => {
    let state = recordProviderFailure(INITIAL_AUTOSCALE_STATE, 'a100x2', 0);
    state = recordProviderFailure(state, 'a100x2', 1000);
    const decision = autoscale(input({ nowMs: 100_000, pending: sharedJobs(1, 500), state }));
    expect(decision.statuses[0]).toMatchObject({ code: 'provider-backoff', details: { failures: 2, secondsLeft: 21 } });
    expect(
      autoscale(input({ nowMs: 121_000, pending: sharedJobs(1, 500), state })).scaleUp.map((s) => s.count),
    ).toEqual([1]);
  });
});

describe('autoscale: guards', () => {
  const pool: PoolNode[] = [
    { name: 'n0', template: 'a100x2', phase: 'ready', requestedAtMs: 0 },
    { name: 'n1', template: 'a100x2', phase: 'ready', requestedAtMs: 0 },
  ];
  const nodes = [templateNode(aTemplate(), 'n0'), templateNode(aTemplate(), 'n1')];
  const idleSince = { ...INITIAL_AUTOSCALE_STATE, lowUseSinceMs: { n0: 0, n1: 0 } };

  it('keeps an empty node that pending jobs are about to land on (just booted, its jobs not bound yet)', () => {
    const decision = autoscale(
      input({ nowMs: 600_000, pool, snapshot: { nodes, active: [] }, pending: sharedJobs(2, 500), state: idleSince }),
    );
    // The two half-GPU jobs go to n0 in a pass: only n1 is idle.
    expect(decision.remove.map((r) => r.node)).toEqual(['n1']);
    expect(decision.state.lowUseSinceMs).toEqual({});
  });

  it('keeps the nodes of a template whose provider backs off', () => {
    const state = recordProviderFailure(idleSince, 'a100x2', 590_000);
    const decision = autoscale(input({ nowMs: 600_000, pool, snapshot: { nodes, active: [] }, state }));
    expect(decision.remove).toEqual([]);
    expect(decision.statuses.map((s) => [s.code, s.details.node, s.details.secondsLeft])).toEqual([
      ['provider-backoff', 'n0', 50],
      ['provider-backoff', 'n1', 50],
    ]);
  });

  it('refuses node names of the form a scale-up gives the nodes it would add', () => {
    const clash: PoolNode[] = [{ name: 'a100x2+0', template: 'a100x2', phase: 'booting', requestedAtMs: 0 }];
    expect(() => autoscale(input({ pool: clash }))).toThrow(
      "node 'a100x2+0': names starting with 'a100x2+' are the names of nodes a scale-up would add (newNodeName)",
    );
  });
});

describe('autoscale: the queue-length threshold', () => {
  it('gives a job that waited scaleUpMaxWaitSeconds its node even below the threshold', () => {
    const policy = { ...DEFAULT_AUTOSCALE_POLICY, scaleUpQueueLength: 3, scaleUpMaxWaitSeconds: 1800 };
    const two = sharedJobs(2, 500).map((j) => ({ ...j, submittedAtMs: 40 * MINUTE_MS }));
    // 20 minutes of waiting: below the threshold, nothing.
    expect(autoscale(input({ policy, pending: two })).statuses.map((s) => s.code)).toEqual(['below-queue-threshold']);
    // 30 minutes: one node for both.
    const late = autoscale(input({ nowMs: 70 * MINUTE_MS, policy, pending: two }));
    expect(late.scaleUp.map((s) => s.count)).toEqual([1]);
    expect(late.scaleUpJobIds).toEqual([1, 2]);
  });
});
