/**
 * The autoscaler loop in memory: the simulated provider (nodes up after the template's boot time on
 * a manual clock), a cluster the test fills with pending and running jobs, the memory store. What a
 * round decides, calls and records; a node that runs a job again by the time it would go; and a
 * restart between the provider's call and the record of it.
 */
import { describe, expect, it } from 'vitest';
import { SimulatedProvider } from '../../adapters/autoscaler/simulated-provider.js';
import { withSimulatedNodes } from '../../adapters/autoscaler/simulated-pool.js';
import { DEFAULT_AUTOSCALE_POLICY, type ActiveJob, type JobRequest, type NodeTemplate } from '../../core/index.js';
import type { AutoscalerReport } from '../ports/autoscaler-reporter.js';
import type { AutoscalerRecord } from '../ports/autoscaler-store.js';
import type { PoolCluster } from '../ports/pool-cluster.js';
import { MemoryAutoscalerStore } from '../testing/memory-autoscaler-store.js';
import { AutoscalerLoop } from './autoscaler-loop.js';

const T0 = Date.UTC(2026, 0, 1);
const A100X2: NodeTemplate = {
  name: 'a100x2',
  gpuModel: 'A100-80GB',
  gpuCount: 2,
  migCapable: false,
  hostCpuMilli: 64_000,
  hostMemoryMiB: 262_144,
  pricePerHour: 4,
  minCount: 0,
  maxCount: 6,
  bootSeconds: 120,
};
const POLICY = { ...DEFAULT_AUTOSCALE_POLICY, scaleDownDelaySeconds: 60 };

/** A job of 0.6 GPU (MPS). */
function job(id: number): JobRequest {
  return {
    id,
    tenant: 'team-a',
    priority: 0,
    submittedAtMs: T0 - 60_000,
    cpuMilli: 0,
    hostMemoryMiB: 0,
    gpu: { gpuCount: 1, gpuMilli: 600, gpuMemoryMiB: null, mode: 'mps' },
  };
}

/** `request` running on GPU `gpu` of `node`. */
function running(request: JobRequest, node: string, gpu: number): ActiveJob {
  return {
    request,
    assignment: {
      jobId: request.id,
      node,
      cpuMilli: 0,
      hostMemoryMiB: 0,
      placement: {
        mode: 'mps',
        gpus: [
          {
            index: gpu,
            uuid: `GPU-${node}-${gpu}`,
            gpuMilli: 600,
            accountedGpuMilli: 600,
            gpuMemoryMiB: 49_152,
            mig: null,
          },
        ],
      },
    },
    preemptible: false,
    startedAtMs: T0,
    preemptionCount: 0,
    stopping: false,
  };
}

/** A store whose saves fail once `crashWhen` says so (the process dies there). */
class CrashingStore extends MemoryAutoscalerStore {
  crashWhen: ((record: AutoscalerRecord) => boolean) | null = null;
  override async save(record: AutoscalerRecord): Promise<void> {
    if (this.crashWhen?.(record)) throw new Error('the autoscaler died here');
    await super.save(record);
  }
}

/** A pool in memory: the test's pending and running jobs, and a simulated provider's nodes. */
function harness() {
  let now = T0;
  const jobs = { pending: [] as JobRequest[], active: [] as ActiveJob[] };
  /** Jobs bound to a node since the last read (a pod bound after the decision). */
  const boundLate = new Map<string, string[]>();
  const provider = new SimulatedProvider([A100X2], () => now);
  const inner: PoolCluster = {
    read: async () => ({ snapshot: { nodes: [], active: jobs.active }, pending: jobs.pending, poolNodes: [] }),
    cordon: async () => false,
    jobsOn: async (node) => [
      ...jobs.active.filter((j) => j.assignment.node === node).map((j) => `job ${j.request.id}`),
      ...(boundLate.get(node) ?? []),
    ],
  };
  const cluster = withSimulatedNodes(inner, provider, [A100X2], () => now);
  const store = new CrashingStore();
  const reports: AutoscalerReport[] = [];
  const newLoop = () =>
    new AutoscalerLoop(
      {
        cluster,
        provider,
        store,
        reporter: { report: async (r) => void reports.push(r) },
        log: { info: () => undefined, warn: () => undefined },
        nowMs: () => now,
      },
      { templates: [A100X2], policy: POLICY },
    );
  return {
    jobs,
    boundLate,
    provider,
    cluster,
    store,
    reports,
    newLoop,
    advance: (seconds: number) => (now += seconds * 1000),
    now: () => now,
  };
}

/** The reports of `kind`, without the others. */
function reportsOf<K extends AutoscalerReport['kind']>(reports: readonly AutoscalerReport[], kind: K) {
  return reports.filter((r): r is Extract<AutoscalerReport, { kind: K }> => r.kind === kind);
}

describe('AutoscalerLoop', () => {
  it(
    'asks for 3 nodes of 2 GPUs for 5 jobs of 0.6 GPU, asks nothing more while they boot, and removes the ' +
      'one left idle after the scale-down delay',
    async () => {
      const h = harness();
      const loop = h.newLoop();
      h.jobs.pending = [1, 2, 3, 4, 5].map(job);

      const first = await loop.round();
      expect(first.decision.scaleUp.map((s) => [s.template, s.count])).toEqual([['a100x2', 3]]);
      expect(h.provider.calls).toEqual([
        { decisionId: first.carriedOut, template: 'a100x2', desiredCount: 3, removeNodes: [] },
      ]);
      expect(first.record.groups.a100x2).toMatchObject({ desiredCount: 3, raisedAtMs: T0, removedNodes: [] });
      expect(first.record.inFlight).toBeNull();
      expect(reportsOf(h.reports, 'scale')).toMatchObject([
        { template: 'a100x2', fromCount: 0, toCount: 3, unchanged: false, reason: { code: 'unschedulable-jobs' } },
      ]);
      expect(reportsOf(h.reports, 'desired').at(-1)).toEqual({ kind: 'desired', template: 'a100x2', count: 3 });

      // Booting: the 3 nodes count, nothing more is asked for.
      h.advance(60);
      const booting = await loop.round();
      expect(booting.decision.scaleUp).toEqual([]);
      expect(booting.carriedOut).toBeNull();
      expect(h.provider.calls).toHaveLength(1);

      // Up: the scheduler places the 5 jobs on 5 of the 6 GPUs.
      h.advance(61);
      const [n1, n2, n3] = h.provider.nodes().map((n) => n.name);
      h.jobs.active = [
        running(job(1), n1!, 0),
        running(job(2), n1!, 1),
        running(job(3), n2!, 0),
        running(job(4), n2!, 1),
      ];
      h.jobs.active.push(running(job(5), n3!, 0));
      h.jobs.pending = [];
      expect((await loop.round()).carriedOut).toBeNull();

      // Job 5 ends: node 3 is idle from now, and goes after 60 s.
      h.jobs.active = h.jobs.active.filter((j) => j.request.id !== 5);
      expect((await loop.round()).record.state.lowUseSinceMs).toEqual({ [n3!]: h.now() });
      h.advance(30);
      expect((await loop.round()).carriedOut).toBeNull();
      h.advance(31);
      const down = await loop.round();
      expect(down.decision.remove.map((r) => [r.node, r.reason.code])).toEqual([[n3, 'node-idle']]);
      expect(h.provider.calls.at(-1)).toEqual({
        decisionId: down.carriedOut,
        template: 'a100x2',
        desiredCount: 2,
        removeNodes: [n3],
      });
      expect(h.provider.nodes().map((n) => n.name)).toEqual([n1, n2]);
      expect(down.record.groups.a100x2!.desiredCount).toBe(2);
      expect(reportsOf(h.reports, 'cordon').map((r) => [r.node, r.reason.code])).toEqual([[n3, 'node-idle']]);
      expect(reportsOf(h.reports, 'remove').map((r) => [r.node, r.nodeExists])).toEqual([[n3, true]]);
      expect(reportsOf(h.reports, 'scale').map((r) => [r.fromCount, r.toCount, r.reason.code])).toEqual([
        [0, 3, 'unschedulable-jobs'],
        [3, 2, 'node-idle'],
      ]);
      expect(h.provider.writes).toBe(2);
    },
  );

  it('keeps a node chosen for removal that runs a job again, cordoned, at the same count', async () => {
    const h = harness();
    const loop = h.newLoop();
    await h.provider.scale({ decisionId: 'setup', template: 'a100x2', desiredCount: 2, removeNodes: [] });
    h.advance(121);
    const [n1, n2] = h.provider.nodes().map((n) => n.name);
    h.jobs.active = [running(job(1), n1!, 0)];
    await loop.round();
    h.advance(61);
    // The decision sees node 2 idle; by the time it is looked at again, a pod was bound to it.
    h.boundLate.set(n2!, ['team-a/late-pod']);
    const round = await loop.round();
    expect(round.decision.remove.map((r) => r.node)).toEqual([n2]);
    expect(h.provider.calls.at(-1)).toMatchObject({ desiredCount: 2, removeNodes: [] });
    expect(h.provider.nodes().map((n) => n.name)).toEqual([n1, n2]);
    expect(h.provider.writes).toBe(1);
    expect(reportsOf(h.reports, 'kept-busy')).toEqual([
      {
        kind: 'kept-busy',
        node: n2,
        template: 'a100x2',
        jobs: ['team-a/late-pod'],
        reason: {
          code: 'node-not-empty',
          lasting: false,
          details: { node: n2, template: 'a100x2', jobs: ['team-a/late-pod'] },
        },
      },
    ]);
    expect(reportsOf(h.reports, 'remove')).toEqual([]);
    expect((await h.cluster.read()).poolNodes.find((n) => n.name === n2)!.cordoned).toBe(true);
  });

  it('a restart after the provider call, before its record, finishes the decision, changes nothing twice', async () => {
    const h = harness();
    h.jobs.pending = [1, 2, 3].map(job);
    // Dies right after the call: the record that marks the step done is never written.
    h.store.crashWhen = (r) => r.inFlight?.steps.some((s) => s.done) === true;
    await expect(h.newLoop().round()).rejects.toThrow('the autoscaler died here');
    const left = (await h.store.load())!;
    expect(left.inFlight!.steps).toMatchObject([{ template: 'a100x2', fromCount: 0, desiredCount: 2, done: false }]);
    expect(h.provider.writes).toBe(1);

    h.store.crashWhen = null;
    h.advance(5);
    const restarted = h.newLoop();
    const round = await restarted.round();
    expect(round.resumed).toBe(left.inFlight!.id);
    // The same request again (the provider compares it with the group): no second change.
    expect(h.provider.calls.map((c) => [c.decisionId, c.desiredCount])).toEqual([
      [left.inFlight!.id, 2],
      [left.inFlight!.id, 2],
    ]);
    expect(h.provider.writes).toBe(1);
    expect(h.provider.nodes()).toHaveLength(2);
    expect(round.carriedOut).toBeNull();
    expect(round.record.inFlight).toBeNull();
    expect(round.record.groups.a100x2).toMatchObject({ desiredCount: 2, raisedAtMs: T0 });
    expect(reportsOf(h.reports, 'resumed')).toEqual([{ kind: 'resumed', decisionId: left.inFlight!.id, stepsLeft: 1 }]);
    expect(reportsOf(h.reports, 'scale').map((r) => r.unchanged)).toEqual([true]);
    await restarted.round();
    expect(h.provider.calls).toHaveLength(2);
  });

  it('asks for one more node for a job that comes while unregistered nodes boot (they count)', async () => {
    const h = harness();
    // The provider's nodes never show in this cluster: the booting ones are only a count.
    const cluster: PoolCluster = {
      read: async () => ({ snapshot: { nodes: [], active: [] }, pending: h.jobs.pending, poolNodes: [] }),
      cordon: async () => false,
      jobsOn: async () => [],
    };
    const loop = new AutoscalerLoop(
      {
        cluster,
        provider: h.provider,
        store: h.store,
        reporter: { report: async () => undefined },
        log: { info: () => undefined, warn: () => undefined },
        nowMs: h.now,
      },
      { templates: [A100X2], policy: POLICY },
    );
    h.jobs.pending = [1, 2, 3, 4].map(job);
    expect((await loop.round()).record.groups.a100x2!.desiredCount).toBe(2);
    h.advance(1);
    h.jobs.pending = [1, 2, 3, 4, 5].map(job);
    const more = await loop.round();
    expect(more.decision.scaleUp.map((s) => [s.template, s.count])).toEqual([['a100x2', 1]]);
    expect(h.provider.calls.map((c) => c.desiredCount)).toEqual([2, 3]);
    h.advance(1);
    expect((await loop.round()).carriedOut).toBeNull();
  });
});
