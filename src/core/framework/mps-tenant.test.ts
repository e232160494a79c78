import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { schedule, SchedulingSession } from '../schedule.js';
import { waitMessage } from '../model/wait-message.js';
import { tenantViewer } from '../model/status-viewer.js';
import { waitOf } from '../testing/plan-waits.js';
import { SeededRng } from '../random/rng.js';
import type { ActiveJob, ClusterSnapshot } from '../model/cluster.js';
import type { GpuDevice } from '../model/gpu-device.js';
import type { GpuRequest, JobRequest } from '../model/request.js';
import { OneNodeCluster } from '../testing/one-node-cluster.js';
import { ClusterState } from './cluster-state.js';
import { findPolicy } from '../policies/registry.js';
import { WAIT_CODES } from '../model/status.js';

const gpu = (index: number): GpuDevice => ({
  index,
  uuid: `GPU-${index}`,
  model: 'A100-80GB',
  gpuMemoryMiB: 81920,
  migEnabled: false,
  schedulable: true,
});

function job(id: number, tenant: string, request: Partial<GpuRequest> = {}): JobRequest {
  return {
    id,
    tenant,
    priority: 500,
    submittedAtMs: 1_000 + id,
    cpuMilli: 0,
    hostMemoryMiB: 0,
    gpu: { gpuCount: 1, gpuMilli: 250, gpuMemoryMiB: 10240, mode: 'mps', ...request },
  };
}

function active(request: JobRequest, gpuIndex: number): ActiveJob {
  const { gpuMilli, gpuMemoryMiB } = request.gpu;
  return {
    request,
    assignment: {
      jobId: request.id,
      node: 'node-0',
      cpuMilli: 0,
      hostMemoryMiB: 0,
      placement: {
        mode: request.gpu.mode === 'timeslice' ? 'timeslice' : 'mps',
        gpus: [
          {
            index: gpuIndex,
            uuid: `GPU-${gpuIndex}`,
            gpuMilli,
            accountedGpuMilli: gpuMilli,
            gpuMemoryMiB: gpuMemoryMiB!,
            mig: null,
          },
        ],
      },
    },
    preemptible: true,
    startedAtMs: 0,
    preemptionCount: 0,
    stopping: false,
  };
}

function snapshot(gpus: readonly GpuDevice[], running: readonly ActiveJob[]): ClusterSnapshot {
  return { nodes: [{ name: 'node-0', hostCpuMilli: 64_000, hostMemoryMiB: 262_144, gpus }], active: running };
}

const cluster = (gpus: readonly GpuDevice[]): OneNodeCluster =>
  new OneNodeCluster(gpus, {
    hostCpuMilli: 64_000,
    hostMemoryMiB: 262_144,
    timesliceOvercommitRatio: 1,
    rng: new SeededRng(7),
  });
const gpusOf = (outcome: ReturnType<OneNodeCluster['tryPlace']>): number[] | string =>
  outcome.kind === 'placed' ? outcome.placement.gpus.map((g) => g.index) : outcome.reason;

describe('one tenant per MPS GPU', () => {
  it("packs a tenant's MPS jobs together and sends another tenant's MPS job to another GPU", () => {
    const s = cluster([gpu(0), gpu(1)]);
    expect(gpusOf(s.tryPlace(job(1, 'a')))).toEqual([0]);
    expect(gpusOf(s.tryPlace(job(2, 'a')))).toEqual([0]);
    expect(gpusOf(s.tryPlace(job(3, 'b')))).toEqual([1]);
    expect(gpusOf(s.tryPlace(job(4, 'b')))).toEqual([1]);
  });

  it('does not apply to time-sliced jobs: two tenants share one GPU', () => {
    const s = cluster([gpu(0), gpu(1)]);
    expect(gpusOf(s.tryPlace(job(1, 'a', { mode: 'timeslice' })))).toEqual([0]);
    expect(gpusOf(s.tryPlace(job(2, 'b', { mode: 'timeslice' })))).toEqual([0]);
  });

  it(
    "keeps another tenant's MPS job waiting with mps-tenant while the GPU has room, and places it once the " +
      'GPU is empty',
    () => {
      const a = job(1, 'a');
      const b = job(2, 'b');
      const plan = schedule({
        snapshot: snapshot([gpu(0)], [active(a, 0)]),
        pending: [b],
        nowMs: 0,
        rng: new SeededRng(1),
      });
      expect(plan.placements).toEqual([]);
      const reason = waitOf(plan, 2)!;
      expect(reason).toEqual({ code: WAIT_CODES.mpsTenant, lasting: false, details: { tenant: 'b' } });
      expect(waitMessage(reason)).toBe('waiting for an MPS GPU free of other tenants (one tenant per MPS GPU)');
      const explained = new SchedulingSession(snapshot([gpu(0)], [active(a, 0)]), new SeededRng(1)).explainWait(
        b,
        reason,
      );
      expect(explained.details).toEqual({ tenant: 'b', gpus: [{ node: 'node-0', gpuIndex: 0, tenant: 'a' }] });
      expect(waitMessage(explained)).toBe(
        'waiting for an MPS GPU free of other tenants (one tenant per MPS GPU): GPU 0 runs MPS jobs of tenant a',
      );
      expect(
        waitMessage(
          explained,
          tenantViewer('b', () => 'a'),
        ),
      ).toBe(
        'waiting for an MPS GPU free of other tenants (one tenant per MPS GPU): GPU 0 runs MPS jobs of another tenant',
      );
      expect(plan.blockedJobId).toBe(2);

      const after = schedule({ snapshot: snapshot([gpu(0)], []), pending: [b], nowMs: 0, rng: new SeededRng(1) });
      expect(after.placements.map((p) => [p.jobId, p.placement.gpus[0]!.index])).toEqual([[2, 0]]);
    },
  );

  it('gives the capacity reason when the job would not fit even without the rule', () => {
    const a = job(1, 'a', { gpuMilli: 900, gpuMemoryMiB: 70000 });
    const plan = schedule({
      snapshot: snapshot([gpu(0)], [active(a, 0)]),
      pending: [job(2, 'b')],
      nowMs: 0,
      rng: new SeededRng(1),
    });
    expect(waitOf(plan, 2)!.code).toBe(WAIT_CODES.gpuCapacity);
  });

  it('packs across tenants when the rule is off (mpsOneTenantPerGpu: false)', () => {
    const plan = schedule({
      snapshot: snapshot([gpu(0)], [active(job(1, 'a'), 0)]),
      pending: [job(2, 'b')],
      nowMs: 0,
      rng: new SeededRng(1),
      options: { mpsOneTenantPerGpu: false },
    });
    expect(plan.placements.map((p) => [p.jobId, p.placement.gpus[0]!.index])).toEqual([[2, 0]]);
    expect(plan.waiting).toEqual([]);
  });

  it(
    "a GPU holding MPS jobs of two tenants (placed before the rule) takes neither tenant's job until one " +
      "tenant's jobs are gone",
    () => {
      const a = job(1, 'a');
      const b = job(2, 'b');
      const both = snapshot([gpu(0)], [active(a, 0), active(b, 0)]);
      const plan = schedule({ snapshot: both, pending: [job(3, 'a'), job(4, 'c')], nowMs: 0, rng: new SeededRng(1) });
      expect(plan.placements).toEqual([]);
      const session = new SchedulingSession(both, new SeededRng(1));
      expect(waitMessage(session.explainWait(job(3, 'a'), waitOf(plan, 3)!))).toBe(
        'waiting for an MPS GPU free of other tenants (one tenant per MPS GPU): GPU 0 runs MPS jobs of several tenants',
      );
      expect(session.explainWait(job(4, 'c'), waitOf(plan, 4)!).details).toEqual({
        tenant: 'c',
        gpus: [{ node: 'node-0', gpuIndex: 0, tenant: null }],
      });
      const state = new ClusterState(both, {
        profile: (n) => findPolicy('default')!.create({ nodeCount: n }),
        rng: new SeededRng(1),
        timesliceOvercommitRatio: 1,
      });
      state.release(2);
      expect(state.tryPlace(job(3, 'a')).kind).toBe('placed');
      expect(state.tryPlace(job(4, 'c')).kind).toBe('waiting');
    },
  );

  it('a rolled-back placement gives the GPU back to every tenant', () => {
    const state = new ClusterState(snapshot([gpu(0)], []), {
      profile: (n) => findPolicy('default')!.create({ nodeCount: n }),
      rng: new SeededRng(1),
      timesliceOvercommitRatio: 1,
    });
    const mark = state.mark();
    expect(state.tryPlace(job(1, 'a')).kind).toBe('placed');
    expect(state.tryPlace(job(2, 'b')).kind).toBe('waiting');
    state.undoTo(mark);
    expect(state.tryPlace(job(2, 'b')).kind).toBe('placed');
    expect(state.nodes[0]!.devices.get(0)!.mpsTenant).toBe('b');
  });

  it(
    "property: after any sequence of placements and releases, every MPS GPU holds one tenant's jobs, and a " +
      'job waits for mps-tenant only when a GPU of another tenant is in its way',
    () => {
      const step = fc.oneof(
        fc.record({
          kind: fc.constant('place' as const),
          tenant: fc.constantFrom('a', 'b', 'c'),
          gpuMilli: fc.constantFrom(100, 250, 400, 700),
          mode: fc.constantFrom<'mps' | 'timeslice' | 'exclusive'>('mps', 'mps', 'timeslice', 'exclusive'),
        }),
        fc.record({ kind: fc.constant('release' as const), pick: fc.nat() }),
      );
      fc.assert(
        fc.property(fc.integer({ min: 1, max: 3 }), fc.array(step, { maxLength: 40 }), (gpuCount, steps) => {
          const state = new ClusterState(
            snapshot(
              Array.from({ length: gpuCount }, (_, i) => gpu(i)),
              [],
            ),
            {
              profile: (n) => findPolicy('default')!.create({ nodeCount: n }),
              rng: new SeededRng(3),
              timesliceOvercommitRatio: 1,
            },
          );
          const tenants = new Map<number, string>();
          let id = 0;
          for (const s of steps) {
            if (s.kind === 'release') {
              const held = [...tenants.keys()];
              if (held.length === 0) continue;
              const victim = held[s.pick % held.length]!;
              state.release(victim);
              tenants.delete(victim);
              continue;
            }
            const j = job(++id, s.tenant, { gpuMilli: s.gpuMilli, gpuMemoryMiB: s.gpuMilli * 80, mode: s.mode });
            const outcome = state.tryPlace(j);
            if (outcome.kind === 'placed') {
              tenants.set(j.id, s.tenant);
            } else if (outcome.reason.code === WAIT_CODES.mpsTenant) {
              // The rule alone kept it off: on the same GPUs without the rule it fits.
              const mirror = new ClusterState(
                snapshot(
                  Array.from({ length: gpuCount }, (_, i) => gpu(i)),
                  [...tenants].map(([jobId, tenant]) => ({
                    ...active(job(jobId, tenant), 0),
                    assignment: state.assignmentOf(jobId)!,
                  })),
                ),
                {
                  profile: (n) => findPolicy('default')!.create({ nodeCount: n }),
                  rng: new SeededRng(3),
                  timesliceOvercommitRatio: 1,
                  mpsOneTenantPerGpu: false,
                },
              );
              expect(mirror.fits(j)).toBe(true);
            }
            for (const entry of state.nodes) {
              for (const d of entry.devices.values()) {
                const owners = new Set(
                  [...d.jobs]
                    .filter((jobId) => state.assignmentOf(jobId)!.placement.mode === 'mps')
                    .map((jobId) => tenants.get(jobId)),
                );
                expect(owners.size).toBeLessThanOrEqual(1);
                expect(d.mpsTenant).toBe(owners.size === 0 ? null : [...owners][0]);
              }
            }
          }
        }),
        { numRuns: 150, seed: 14 },
      );
    },
  );
});
