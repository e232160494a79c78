/**
 * The behaviour every StateStore implementation must have, as one vitest suite. Each
 * implementation's test file calls `describeStateStoreContract` with a factory of fresh stores.
 */
import { mkdtempSync, readdirSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import {
  DEFAULT_TENANT_LIMITS,
  type JobChange,
  type StateStore,
  StoreConflictError,
} from '../../app/ports/state-store.js';
import { HANDLE, MIG_PLACEMENT, note, sampleJob, SHARED_PLACEMENT } from './store-fixtures.js';
import { describeTokenLifecycle } from './token-store.contract.js';
import { describeJobListing } from './job-list.contract.js';
import { describeUsagePeaks } from './usage-peak.contract.js';

/** A fresh store and how to dispose of it (close it, remove its files). */
export interface StoreUnderTest {
  readonly store: StateStore;
  cleanup(): void;
}

const T0 = 1_750_000_000_123;

/**
 * Declares the shared StateStore suite under `describe(name)`.
 * @param factory makes a fresh, empty store for each test
 */
export function describeStateStoreContract(name: string, factory: () => StoreUnderTest): void {
  describe(`StateStore contract: ${name}`, () => {
    let current: StoreUnderTest;
    let store: StateStore;
    beforeEach(() => {
      current = factory();
      store = current.store;
    });
    afterEach(() => {
      current.cleanup();
    });

    /** Tenants `acme` and `beta` and one pending job of acme per entry of `count`. */
    const withJobs = (count: number): number[] => {
      store.createTenant('acme', T0);
      store.createTenant('beta', T0);
      return Array.from({ length: count }, (_, i) => store.insertJob(sampleJob('acme'), T0 + i).id);
    };

    /** Everything readable about the jobs, to prove a failed write changed nothing. */
    const snapshot = (ids: readonly number[]): unknown => ({
      jobs: store.listJobs(),
      events: ids.map((id) => store.listEvents(id)),
      attempts: ids.map((id) => store.listAttempts(id)),
    });

    describe('tenants', () => {
      it('creates, gets and lists tenants by name, with guarantee 0 and no limit', () => {
        expect(store.createTenant('zeta', T0)).toEqual({
          name: 'zeta',
          createdAtMs: T0,
          guaranteedGpuEquivalents: 0,
          limitGpuEquivalents: null,
          ...DEFAULT_TENANT_LIMITS,
        });
        store.createTenant('alpha', T0 + 1);
        expect(store.getTenant('alpha')).toEqual({
          name: 'alpha',
          createdAtMs: T0 + 1,
          guaranteedGpuEquivalents: 0,
          limitGpuEquivalents: null,
          ...DEFAULT_TENANT_LIMITS,
        });
        expect(store.getTenant('nobody')).toBeNull();
        expect(store.listTenants().map((t) => t.name)).toEqual(['alpha', 'zeta']);
      });

      it('rejects a duplicate name with StoreConflictError and keeps the first', () => {
        store.createTenant('acme', T0);
        expect(() => store.createTenant('acme', T0 + 5)).toThrow(StoreConflictError);
        expect(store.listTenants()).toEqual([
          {
            name: 'acme',
            createdAtMs: T0,
            guaranteedGpuEquivalents: 0,
            limitGpuEquivalents: null,
            ...DEFAULT_TENANT_LIMITS,
          },
        ]);
      });

      it('sets quotas: get and list read back exactly what was set (fractions, zero, no limit)', () => {
        store.createTenant('acme', T0);
        store.createTenant('beta', T0 + 1);
        const acme = store.setTenantQuota('acme', { guaranteedGpuEquivalents: 2.5, limitGpuEquivalents: 4 });
        expect(acme).toEqual({
          name: 'acme',
          createdAtMs: T0,
          guaranteedGpuEquivalents: 2.5,
          limitGpuEquivalents: 4,
          ...DEFAULT_TENANT_LIMITS,
        });
        expect(Object.isFrozen(acme)).toBe(true);
        expect(store.getTenant('acme')).toEqual(acme);
        expect(store.listTenants()).toEqual([
          acme,
          {
            name: 'beta',
            createdAtMs: T0 + 1,
            guaranteedGpuEquivalents: 0,
            limitGpuEquivalents: null,
            ...DEFAULT_TENANT_LIMITS,
          },
        ]);
        const again = store.setTenantQuota('acme', { guaranteedGpuEquivalents: 0, limitGpuEquivalents: null });
        expect(again).toEqual({
          name: 'acme',
          createdAtMs: T0,
          guaranteedGpuEquivalents: 0,
          limitGpuEquivalents: null,
          ...DEFAULT_TENANT_LIMITS,
        });
        expect(store.getTenant('acme')).toEqual(again);
        store.setTenantQuota('beta', { guaranteedGpuEquivalents: 0.125, limitGpuEquivalents: 0 });
        expect(store.getTenant('beta')).toMatchObject({ guaranteedGpuEquivalents: 0.125, limitGpuEquivalents: 0 });
        // An earlier snapshot does not change.
        expect(acme.guaranteedGpuEquivalents).toBe(2.5);
      });

      it('rejects a quota of an unknown tenant with StoreConflictError and creates nothing', () => {
        store.createTenant('acme', T0);
        expect(() => store.setTenantQuota('ghost', { guaranteedGpuEquivalents: 1, limitGpuEquivalents: 2 })).toThrow(
          StoreConflictError,
        );
        expect(store.getTenant('ghost')).toBeNull();
        expect(store.listTenants().map((t) => t.name)).toEqual(['acme']);
      });

      it('sets caps and limits: read back exactly, unknown tenant refused, quota untouched', () => {
        store.createTenant('acme', T0);
        store.setTenantQuota('acme', { guaranteedGpuEquivalents: 1, limitGpuEquivalents: 2 });
        const limits = {
          maxPriorityClass: 'critical',
          requestsPerSecond: 2.5,
          requestBurst: 5,
          eventStreamsPerToken: 0,
        } as const;
        const acme = store.setTenantLimits('acme', limits);
        expect(acme).toEqual({
          name: 'acme',
          createdAtMs: T0,
          guaranteedGpuEquivalents: 1,
          limitGpuEquivalents: 2,
          ...limits,
        });
        expect(Object.isFrozen(acme)).toBe(true);
        expect(store.getTenant('acme')).toEqual(acme);
        expect(store.setTenantLimits('acme', DEFAULT_TENANT_LIMITS)).toMatchObject(DEFAULT_TENANT_LIMITS);
        expect(() => store.setTenantLimits('ghost', limits)).toThrow(StoreConflictError);
        expect(store.getTenant('ghost')).toBeNull();
      });

      it('leaves jobs as they are when a quota changes', () => {
        const ids = withJobs(2);
        store.applyJobChanges([{ jobId: ids[0] ?? 0, atMs: T0 + 1, to: 'scheduled' }]);
        const before = snapshot(ids);
        store.setTenantQuota('acme', { guaranteedGpuEquivalents: 1, limitGpuEquivalents: 3 });
        expect(snapshot(ids)).toEqual(before);
        expect(store.listJobs({ states: ['pending'] }).map((j) => j.id)).toEqual([ids[1]]);
      });
    });

    describe('tokens', () => {
      describeTokenLifecycle(() => store, T0);
    });

    describe('job listing', () => {
      describeJobListing(() => store, factory, T0);
    });

    describe('jobs', () => {
      it('lists only the newest N matching jobs, in ascending id order', () => {
        const ids = withJobs(5);
        const other = store.insertJob(sampleJob('beta'), T0 + 9).id;
        store.applyJobChanges([ids[1]!, ids[3]!].map((jobId) => ({ jobId, atMs: T0 + 10, to: 'cancelled' as const })));
        expect(store.listJobs({ newest: 3 }).map((j) => j.id)).toEqual([ids[3], ids[4], other]);
        expect(store.listJobs({ tenant: 'acme', newest: 2 }).map((j) => j.id)).toEqual([ids[3], ids[4]]);
        expect(store.listJobs({ states: ['cancelled'], newest: 1 }).map((j) => j.id)).toEqual([ids[3]]);
        expect(store.listJobs({ tenant: 'acme', states: ['pending'], newest: 10 }).map((j) => j.id)).toEqual([
          ids[0],
          ids[2],
          ids[4],
        ]);
      });

      it('inserts pending jobs with increasing ids, a submit event and the values as written', () => {
        store.createTenant('acme', T0);
        const job = sampleJob('acme', {
          timeLimitSeconds: null,
          priority: -7,
          gpu: { gpuCount: 2, gpuMilli: 1000, gpuMemoryMiB: 81559, mode: 'exclusive' },
        });
        const first = store.insertJob(job, T0);
        const second = store.insertJob(sampleJob('acme', { timeLimitSeconds: 0.5, environment: {} }), T0 + 10);
        expect(second.id).toBeGreaterThan(first.id);
        expect(first).toEqual({
          ...job,
          id: first.id,
          state: 'pending',
          reason: null,
          submittedAtMs: T0,
          updatedAtMs: T0,
          placement: null,
          attempt: 0,
          process: null,
          folder: null,
          startedAtMs: null,
          endedAtMs: null,
          exitCode: null,
          signal: null,
          qos: null,
          reportTokenDigest: null,
          submittedByTokenId: null,
        });
        expect(store.getJob(first.id)).toEqual(first);
        expect(store.getJob(second.id)).toMatchObject({ timeLimitSeconds: 0.5, environment: {} });
        expect(store.getJob(second.id + 1000)).toBeNull();
        expect(store.listEvents(first.id)).toEqual([
          { jobId: first.id, atMs: T0, fromState: null, toState: 'pending', reason: null },
        ]);
        expect(store.listAttempts(first.id)).toEqual([]);
      });

      it('round-trips preemptible true and false', () => {
        store.createTenant('acme', T0);
        const yes = store.insertJob(sampleJob('acme', { preemptible: true }), T0);
        const no = store.insertJob(sampleJob('acme', { preemptible: false, priority: 900 }), T0 + 1);
        expect(yes.preemptible).toBe(true);
        expect(no.preemptible).toBe(false);
        expect(store.getJob(yes.id)?.preemptible).toBe(true);
        expect(store.getJob(no.id)?.preemptible).toBe(false);
        expect(store.listJobs().map((j) => [j.id, j.preemptible])).toEqual([
          [yes.id, true],
          [no.id, false],
        ]);
        store.applyJobChanges([
          { jobId: no.id, atMs: T0 + 2, to: 'scheduled', patch: { placement: SHARED_PLACEMENT } },
        ]);
        expect(store.getJob(no.id)).toMatchObject({ state: 'scheduled', preemptible: false });
      });

      it('rejects a job of an unknown tenant', () => {
        expect(() => store.insertJob(sampleJob('ghost'), T0)).toThrow(StoreConflictError);
        expect(store.listJobs()).toEqual([]);
      });

      it('copies what goes in and hands out deep-frozen snapshots', () => {
        store.createTenant('acme', T0);
        const input = sampleJob('acme');
        const mutableInput = {
          ...input,
          command: [...input.command],
          environment: { ...input.environment },
          gpu: { ...input.gpu },
        };
        const inserted = store.insertJob(mutableInput, T0);
        mutableInput.command.push('--evil');
        mutableInput.environment.EVIL = '1';
        mutableInput.gpu.gpuMilli = 1;
        const read = store.getJob(inserted.id);
        expect(read?.command).toEqual(input.command);
        expect(read?.environment).toEqual(input.environment);
        expect(read?.gpu).toEqual(input.gpu);
        expect(() => (inserted.command as string[]).push('--evil')).toThrow(TypeError);
        expect(() => {
          (read?.environment as Record<string, string>).EVIL = '1';
        }).toThrow(TypeError);
        store.applyJobChanges([
          { jobId: inserted.id, atMs: T0 + 1, to: 'scheduled', patch: { placement: MIG_PLACEMENT, process: HANDLE } },
        ]);
        const placed = store.listJobs({ states: ['scheduled'] })[0];
        expect(Object.isFrozen(placed)).toBe(true);
        expect(Object.isFrozen(placed?.placement?.gpus[1]?.mig)).toBe(true);
        expect(Object.isFrozen(placed?.process)).toBe(true);
        expect(Object.isFrozen(store.listEvents(inserted.id)[1])).toBe(true);
        expect(Object.isFrozen(store.listTenants()[0])).toBe(true);
        // A snapshot read earlier does not change when the job does.
        expect(read?.state).toBe('pending');
        expect(read?.placement).toBeNull();
      });

      it('returns fresh arrays from list methods', () => {
        const [id = 0] = withJobs(1);
        const listed = store.listJobs();
        listed.pop();
        const events = store.listEvents(id);
        events.pop();
        expect(store.listJobs()).toHaveLength(1);
        expect(store.listEvents(id)).toHaveLength(1);
      });

      it('lists jobs by ascending id, filtered by tenant and states', () => {
        store.createTenant('acme', T0);
        store.createTenant('beta', T0);
        const a1 = store.insertJob(sampleJob('acme'), T0).id;
        const b1 = store.insertJob(sampleJob('beta'), T0).id;
        const a2 = store.insertJob(sampleJob('acme'), T0).id;
        const b2 = store.insertJob(sampleJob('beta'), T0).id;
        store.applyJobChanges([
          { jobId: a1, atMs: T0 + 1, to: 'scheduled' },
          { jobId: b2, atMs: T0 + 1, to: 'cancelled' },
        ]);
        const ids = (filter?: Parameters<StateStore['listJobs']>[0]): number[] =>
          store.listJobs(filter).map((j) => j.id);
        expect(ids()).toEqual([a1, b1, a2, b2]);
        expect(ids({})).toEqual([a1, b1, a2, b2]);
        expect(ids({ tenant: 'acme' })).toEqual([a1, a2]);
        expect(ids({ states: ['pending'] })).toEqual([b1, a2]);
        expect(ids({ states: ['cancelled', 'scheduled'] })).toEqual([a1, b2]);
        expect(ids({ states: ['pending', 'pending'] })).toEqual([b1, a2]);
        expect(ids({ tenant: 'beta', states: ['pending', 'cancelled'] })).toEqual([b1, b2]);
        expect(ids({ tenant: 'beta', states: ['running'] })).toEqual([]);
        expect(ids({ states: [] })).toEqual([]);
        expect(ids({ tenant: 'ghost' })).toEqual([]);
        expect(store.listJobs({ states: ['scheduled'] })[0]).toEqual(store.getJob(a1));
      });

      it('lists preempted jobs with pending ones, as queued jobs, by ascending id', () => {
        const [p1 = 0, q1 = 0, p2 = 0, r1 = 0, q2 = 0] = withJobs(5);
        const preempt = (jobId: number, atMs: number): JobChange[] => [
          { jobId, atMs, to: 'scheduled', startAttempt: 1, patch: { attempt: 1 } },
          { jobId, atMs, to: 'running' },
          {
            jobId,
            atMs: atMs + 1,
            expectState: 'running',
            to: 'preempted',
            reason: note('preempted by job 99'),
            endAttempt: { attempt: 1, exitCode: null, signal: 'SIGTERM', endReason: note('preempted') },
          },
        ];
        const ids = (filter?: Parameters<StateStore['listJobs']>[0]): number[] =>
          store.listJobs(filter).map((j) => j.id);
        expect(ids({ states: ['pending', 'preempted'] })).toEqual([p1, q1, p2, r1, q2]); // warms any cache
        store.applyJobChanges([...preempt(p1, T0 + 10), ...preempt(p2, T0 + 20)]);
        store.applyJobChanges([
          { jobId: r1, atMs: T0 + 30, to: 'scheduled' },
          { jobId: r1, atMs: T0 + 31, to: 'running' },
        ]);
        expect(ids({ states: ['pending', 'preempted'] })).toEqual([p1, q1, p2, q2]);
        expect(ids({ states: ['preempted', 'pending'] })).toEqual([p1, q1, p2, q2]);
        expect(ids({ states: ['preempted'] })).toEqual([p1, p2]);
        expect(ids({ tenant: 'acme', states: ['preempted'] })).toEqual([p1, p2]);
        expect(ids({ states: ['pending'] })).toEqual([q1, q2]);
        expect(store.listJobs({ states: ['preempted'] })).toEqual([store.getJob(p1), store.getJob(p2)]);
        expect(store.getJob(p1)).toMatchObject({ state: 'preempted', reason: note('preempted by job 99'), attempt: 1 });
      });
    });

    describe('applyJobChanges', () => {
      it('records transitions as events in order, with reasons and times', () => {
        const [id = 0] = withJobs(1);
        store.applyJobChanges([
          {
            jobId: id,
            atMs: T0 + 100,
            expectState: 'pending',
            reason: note('no GPU fits'),
            patch: { reason: note('no GPU fits') },
          },
        ]);
        expect(store.getJob(id)).toMatchObject({
          state: 'pending',
          reason: note('no GPU fits'),
          updatedAtMs: T0 + 100,
        });
        store.applyJobChanges([
          { jobId: id, atMs: T0 + 200, expectState: 'pending', to: 'scheduled', reason: note('placed') },
        ]);
        store.applyJobChanges([{ jobId: id, atMs: T0 + 300, to: 'running' }]);
        store.applyJobChanges([
          { jobId: id, atMs: T0 + 400, expectState: 'running', to: 'failed', reason: note('time-limit') },
        ]);
        expect(store.listEvents(id)).toEqual([
          { jobId: id, atMs: T0, fromState: null, toState: 'pending', reason: null },
          { jobId: id, atMs: T0 + 200, fromState: 'pending', toState: 'scheduled', reason: note('placed') },
          { jobId: id, atMs: T0 + 300, fromState: 'scheduled', toState: 'running', reason: null },
          { jobId: id, atMs: T0 + 400, fromState: 'running', toState: 'failed', reason: note('time-limit') },
        ]);
        expect(store.getJob(id)).toMatchObject({ state: 'failed', reason: note('time-limit'), updatedAtMs: T0 + 400 });
      });

      it('sets the job reason from the transition unless the patch sets one', () => {
        const [id = 0] = withJobs(1);
        store.applyJobChanges([{ jobId: id, atMs: T0 + 1, patch: { reason: note('waiting for 2 GPUs') } }]);
        store.applyJobChanges([{ jobId: id, atMs: T0 + 2, to: 'scheduled' }]);
        expect(store.getJob(id)?.reason).toBeNull();
        store.applyJobChanges([
          {
            jobId: id,
            atMs: T0 + 3,
            to: 'pending',
            reason: note('launch-failed'),
            patch: { reason: note('retrying') },
          },
        ]);
        expect(store.getJob(id)?.reason).toEqual(note('retrying'));
        expect(store.listEvents(id).at(-1)?.reason).toEqual(note('launch-failed'));
        store.applyJobChanges([{ jobId: id, atMs: T0 + 4, reason: note('ignored without to') }]);
        expect(store.getJob(id)?.reason).toEqual(note('retrying'));
      });

      it('round-trips patched fields: nested placement, process handle, nulls and numbers', () => {
        const [id = 0] = withJobs(1);
        store.applyJobChanges([
          { jobId: id, atMs: T0 + 1, to: 'scheduled', patch: { placement: MIG_PLACEMENT } },
          {
            jobId: id,
            atMs: T0 + 2,
            to: 'running',
            startAttempt: 1,
            patch: { attempt: 1, process: HANDLE, startedAtMs: T0 + 2 },
          },
        ]);
        expect(store.getJob(id)).toMatchObject({
          state: 'running',
          placement: MIG_PLACEMENT,
          process: HANDLE,
          attempt: 1,
          startedAtMs: T0 + 2,
        });
        const withPid = { ...HANDLE, jobPid: 4243 };
        store.applyJobChanges([{ jobId: id, atMs: T0 + 3, patch: { process: withPid, placement: SHARED_PLACEMENT } }]);
        expect(store.getJob(id)).toMatchObject({ process: withPid, placement: SHARED_PLACEMENT, attempt: 1 });
        store.applyJobChanges([
          {
            jobId: id,
            atMs: T0 + 4,
            to: 'succeeded',
            endAttempt: { attempt: 1, exitCode: 0, signal: null, endReason: note('exited') },
            patch: { process: null, endedAtMs: T0 + 4, exitCode: 0, signal: null },
          },
        ]);
        const done = store.getJob(id);
        expect(done).toMatchObject({
          state: 'succeeded',
          placement: SHARED_PLACEMENT,
          process: null,
          endedAtMs: T0 + 4,
          exitCode: 0,
          signal: null,
          startedAtMs: T0 + 2,
        });
        expect(store.listJobs({ states: ['succeeded'] })).toEqual([done]);
      });

      it("records a job's folder once set and keeps it across later changes; two jobs never share one", () => {
        const [id = 0, other = 0] = withJobs(2);
        store.applyJobChanges([
          { jobId: id, atMs: T0 + 1, to: 'scheduled', patch: { folder: `${id}-0123456789abcdef` } },
        ]);
        store.applyJobChanges([
          { jobId: id, atMs: T0 + 2, to: 'running', startAttempt: 1, patch: { attempt: 1, process: HANDLE } },
        ]);
        expect(store.getJob(id)).toMatchObject({ state: 'running', folder: `${id}-0123456789abcdef` });
        expect(store.getJob(other)?.folder).toBeNull();
        expect(store.listJobs({ states: ['running'] }).map((j) => j.folder)).toEqual([`${id}-0123456789abcdef`]);
      });

      it('starts and ends attempts, listed by number', () => {
        const [id = 0] = withJobs(1);
        store.applyJobChanges([{ jobId: id, atMs: T0 + 10, to: 'scheduled', startAttempt: 1 }]);
        store.applyJobChanges([
          {
            jobId: id,
            atMs: T0 + 20,
            to: 'pending',
            endAttempt: { attempt: 1, exitCode: null, signal: 'SIGKILL', endReason: note('lost') },
          },
        ]);
        store.applyJobChanges([{ jobId: id, atMs: T0 + 30, to: 'scheduled', startAttempt: 2 }]);
        expect(store.listAttempts(id)).toEqual([
          {
            jobId: id,
            attempt: 1,
            startedAtMs: T0 + 10,
            endedAtMs: T0 + 20,
            exitCode: null,
            signal: 'SIGKILL',
            endReason: note('lost'),
          },
          {
            jobId: id,
            attempt: 2,
            startedAtMs: T0 + 30,
            endedAtMs: null,
            exitCode: null,
            signal: null,
            endReason: null,
          },
        ]);
        const before = snapshot([id]);
        expect(() => store.applyJobChanges([{ jobId: id, atMs: T0 + 40, startAttempt: 2 }])).toThrow(
          StoreConflictError,
        );
        expect(() =>
          store.applyJobChanges([
            {
              jobId: id,
              atMs: T0 + 40,
              endAttempt: { attempt: 3, exitCode: 1, signal: null, endReason: note('exited') },
            },
          ]),
        ).toThrow(StoreConflictError);
        expect(snapshot([id])).toEqual(before);
      });

      it('moves a job running → preempted → scheduled → running with events and attempts', () => {
        const [id = 0] = withJobs(1);
        store.applyJobChanges([
          {
            jobId: id,
            atMs: T0 + 10,
            expectState: 'pending',
            to: 'scheduled',
            reason: note('placed'),
            startAttempt: 1,
            patch: { attempt: 1, placement: SHARED_PLACEMENT },
          },
        ]);
        store.applyJobChanges([
          {
            jobId: id,
            atMs: T0 + 11,
            expectState: 'scheduled',
            to: 'running',
            patch: { process: HANDLE, startedAtMs: T0 + 11 },
          },
        ]);
        store.applyJobChanges([
          {
            jobId: id,
            atMs: T0 + 20,
            expectState: 'running',
            to: 'preempted',
            reason: note('preempted'),
            endAttempt: { attempt: 1, exitCode: null, signal: 'SIGTERM', endReason: note('preempted') },
            patch: { process: null, signal: 'SIGTERM' },
          },
        ]);
        const preempted = store.getJob(id);
        expect(preempted).toMatchObject({
          state: 'preempted',
          reason: note('preempted'),
          attempt: 1,
          process: null,
          placement: SHARED_PLACEMENT,
          endedAtMs: null,
          updatedAtMs: T0 + 20,
        });
        expect(store.listJobs({ states: ['preempted'] })).toEqual([preempted]);
        store.applyJobChanges([
          {
            jobId: id,
            atMs: T0 + 30,
            expectState: 'preempted',
            to: 'scheduled',
            reason: note('placed'),
            startAttempt: 2,
            patch: { attempt: 2, placement: MIG_PLACEMENT, signal: null },
          },
        ]);
        store.applyJobChanges([
          {
            jobId: id,
            atMs: T0 + 31,
            expectState: 'scheduled',
            to: 'running',
            patch: { process: HANDLE, startedAtMs: T0 + 31 },
          },
        ]);
        expect(store.getJob(id)).toMatchObject({
          state: 'running',
          reason: null,
          attempt: 2,
          placement: MIG_PLACEMENT,
          process: HANDLE,
          startedAtMs: T0 + 31,
          signal: null,
        });
        expect(store.listJobs({ states: ['running'] }).map((j) => j.id)).toEqual([id]);
        expect(store.listJobs({ states: ['preempted'] })).toEqual([]);
        expect(store.listEvents(id)).toEqual([
          { jobId: id, atMs: T0, fromState: null, toState: 'pending', reason: null },
          { jobId: id, atMs: T0 + 10, fromState: 'pending', toState: 'scheduled', reason: note('placed') },
          { jobId: id, atMs: T0 + 11, fromState: 'scheduled', toState: 'running', reason: null },
          { jobId: id, atMs: T0 + 20, fromState: 'running', toState: 'preempted', reason: note('preempted') },
          { jobId: id, atMs: T0 + 30, fromState: 'preempted', toState: 'scheduled', reason: note('placed') },
          { jobId: id, atMs: T0 + 31, fromState: 'scheduled', toState: 'running', reason: null },
        ]);
        expect(store.listAttempts(id)).toEqual([
          {
            jobId: id,
            attempt: 1,
            startedAtMs: T0 + 10,
            endedAtMs: T0 + 20,
            exitCode: null,
            signal: 'SIGTERM',
            endReason: note('preempted'),
          },
          {
            jobId: id,
            attempt: 2,
            startedAtMs: T0 + 30,
            endedAtMs: null,
            exitCode: null,
            signal: null,
            endReason: null,
          },
        ]);
      });

      it('applies changes to one job in order within a batch', () => {
        const [id = 0] = withJobs(1);
        store.applyJobChanges([
          { jobId: id, atMs: T0 + 1, expectState: 'pending', to: 'scheduled', startAttempt: 1 },
          {
            jobId: id,
            atMs: T0 + 2,
            expectState: 'scheduled',
            to: 'pending',
            endAttempt: { attempt: 1, exitCode: null, signal: null, endReason: note('launch-failed') },
          },
        ]);
        expect(store.getJob(id)?.state).toBe('pending');
        expect(store.listEvents(id).map((e) => [e.fromState, e.toState])).toEqual([
          [null, 'pending'],
          ['pending', 'scheduled'],
          ['scheduled', 'pending'],
        ]);
        expect(store.listAttempts(id)[0]?.endReason).toEqual(note('launch-failed'));
      });

      it('writes nothing when one change of a batch expects another state', () => {
        const ids = withJobs(3);
        const [a = 0, b = 0, c = 0] = ids;
        store.applyJobChanges([{ jobId: b, atMs: T0 + 1, to: 'scheduled' }]);
        const before = snapshot(ids);
        const batch: JobChange[] = [
          {
            jobId: a,
            atMs: T0 + 5,
            expectState: 'pending',
            to: 'scheduled',
            startAttempt: 1,
            patch: { placement: SHARED_PLACEMENT, attempt: 1 },
          },
          { jobId: c, atMs: T0 + 5, expectState: 'pending', to: 'cancelled', reason: note('user') },
          { jobId: b, atMs: T0 + 5, expectState: 'pending', to: 'scheduled' },
        ];
        expect(() => store.applyJobChanges(batch)).toThrow(StoreConflictError);
        expect(snapshot(ids)).toEqual(before);
      });

      it('writes nothing when a change names an unknown job', () => {
        const ids = withJobs(2);
        const before = snapshot(ids);
        expect(() =>
          store.applyJobChanges([
            { jobId: ids[0] ?? 0, atMs: T0 + 5, to: 'cancelled' },
            { jobId: 999_999, atMs: T0 + 5, to: 'cancelled' },
          ]),
        ).toThrow(StoreConflictError);
        expect(snapshot(ids)).toEqual(before);
      });

      it('refuses a transition the job lifecycle does not have, writing nothing of the batch', () => {
        const ids = withJobs(2);
        const [a = 0, b = 0] = ids;
        store.applyJobChanges([{ jobId: b, atMs: T0 + 1, to: 'cancelled', reason: note('user') }]);
        const before = snapshot(ids);
        // pending → running skips scheduled; cancelled is terminal.
        expect(() => store.applyJobChanges([{ jobId: a, atMs: T0 + 5, to: 'running' }])).toThrow(
          'is not a transition of the job lifecycle',
        );
        expect(() =>
          store.applyJobChanges([
            { jobId: a, atMs: T0 + 5, to: 'scheduled' },
            { jobId: b, atMs: T0 + 5, to: 'pending' },
          ]),
        ).toThrow(StoreConflictError);
        expect(snapshot(ids)).toEqual(before);
      });

      it('accepts an empty batch and hundreds of changes at once', () => {
        const ids = withJobs(300);
        store.applyJobChanges([]);
        store.applyJobChanges(
          ids.map((jobId) => ({
            jobId,
            atMs: T0 + 9,
            expectState: 'pending' as const,
            to: 'scheduled' as const,
            patch: { placement: SHARED_PLACEMENT },
          })),
        );
        expect(store.listJobs({ states: ['scheduled'] }).map((j) => j.id)).toEqual(ids);
        expect(store.listJobs({ states: ['pending'] })).toEqual([]);
      });
    });

    describe('QoS targets, report tokens and events without a transition', () => {
      it('round-trips QoS targets (one, both, none)', () => {
        store.createTenant('acme', T0);
        const step = store.insertJob(sampleJob('acme', { qos: { stepSeconds: 0.5 } }), T0);
        const both = store.insertJob(sampleJob('acme', { qos: { stepSeconds: 1.25, latencySeconds: 0.02 } }), T0 + 1);
        const none = store.insertJob(sampleJob('acme'), T0 + 2);
        expect(step.qos).toEqual({ stepSeconds: 0.5 });
        expect(store.getJob(step.id)?.qos).toEqual({ stepSeconds: 0.5 });
        expect(store.getJob(both.id)?.qos).toEqual({ stepSeconds: 1.25, latencySeconds: 0.02 });
        expect(store.getJob(none.id)?.qos).toBeNull();
        expect(store.listJobs().map((j) => j.qos)).toEqual([
          { stepSeconds: 0.5 },
          { stepSeconds: 1.25, latencySeconds: 0.02 },
          null,
        ]);
      });

      it("sets, finds and clears a job's report token digest", () => {
        const [a, b] = withJobs(2);
        const digest = 'e'.repeat(64);
        expect(store.findJobByReportTokenDigest(digest)).toBeNull();
        store.applyJobChanges([
          {
            jobId: a!,
            atMs: T0 + 5,
            to: 'scheduled',
            patch: { placement: SHARED_PLACEMENT, reportTokenDigest: digest },
          },
        ]);
        expect(store.getJob(a!)?.reportTokenDigest).toBe(digest);
        expect(store.findJobByReportTokenDigest(digest)).toMatchObject({
          id: a,
          state: 'scheduled',
          reportTokenDigest: digest,
        });
        expect(store.getJob(b!)?.reportTokenDigest).toBeNull();
        // A change without reportTokenDigest keeps it.
        store.applyJobChanges([{ jobId: a!, atMs: T0 + 6, to: 'running', patch: { process: HANDLE } }]);
        expect(store.findJobByReportTokenDigest(digest)?.id).toBe(a);
        store.applyJobChanges([
          { jobId: a!, atMs: T0 + 7, to: 'succeeded', patch: { process: null, reportTokenDigest: null } },
        ]);
        expect(store.findJobByReportTokenDigest(digest)).toBeNull();
        expect(store.getJob(a!)?.reportTokenDigest).toBeNull();
      });

      it('adds an event without a state change, leaving the job as it was', () => {
        const [id] = withJobs(1);
        store.applyJobChanges([
          { jobId: id!, atMs: T0 + 5, to: 'scheduled', reason: note('placed'), patch: { placement: SHARED_PLACEMENT } },
        ]);
        const before = store.getJob(id!);
        store.addJobEvent(id!, T0 + 9, note('QoS violation: step 0.62 s > target 0.5 s for 60 s'), 'scheduled');
        expect(store.getJob(id!)).toEqual(before);
        expect(store.listEvents(id!).slice(1)).toEqual([
          { jobId: id, atMs: T0 + 5, fromState: 'pending', toState: 'scheduled', reason: note('placed') },
          {
            jobId: id,
            atMs: T0 + 9,
            fromState: 'scheduled',
            toState: 'scheduled',
            reason: note('QoS violation: step 0.62 s > target 0.5 s for 60 s'),
          },
        ]);
      });

      it('rejects an event for an unknown job or a job in another state, writing nothing', () => {
        const [id] = withJobs(1);
        const before = snapshot([id!]);
        expect(() => store.addJobEvent(id! + 99, T0 + 1, note('x'))).toThrow(StoreConflictError);
        expect(() => store.addJobEvent(id!, T0 + 1, note('x'), 'running')).toThrow(
          `job ${id} is pending, expected running`,
        );
        expect(snapshot([id!])).toEqual(before);
      });
    });

    describe('usage peaks', () => {
      describeUsagePeaks(() => store, T0);
    });

    describe('GPU cordons', () => {
      it('sets, unsets and lists cordoned GPUs (idempotent)', () => {
        expect(store.listCordonedGpus()).toEqual([]);
        store.setGpuCordoned('GPU-bbbb', true, T0);
        store.setGpuCordoned('GPU-aaaa', true, T0);
        store.setGpuCordoned('GPU-aaaa', true, T0 + 1);
        expect(store.listCordonedGpus()).toEqual(['GPU-aaaa', 'GPU-bbbb']);
        store.setGpuCordoned('GPU-bbbb', false, T0 + 2);
        store.setGpuCordoned('GPU-cccc', false, T0 + 2);
        expect(store.listCordonedGpus()).toEqual(['GPU-aaaa']);
      });
    });

    describe('backup and close', () => {
      it('writes a new private backup file, leaving no temporary file, and never overwrites one', async () => {
        withJobs(3);
        const folder = mkdtempSync(join(tmpdir(), 'gpushare-contract-backup-'));
        try {
          const target = join(folder, 'backup.db');
          const bytes = await store.backup(target);
          expect(statSync(target).size).toBe(bytes);
          expect(statSync(target).mode & 0o777).toBe(0o600);
          await expect(store.backup(target)).rejects.toThrow(`path: ${target} exists`);
          expect(statSync(target).size).toBe(bytes);
          expect(readdirSync(folder)).toEqual(['backup.db']);
        } finally {
          rmSync(folder, { recursive: true, force: true });
        }
      });

      it('refuses use after close', () => {
        store.close();
        expect(() => store.listJobs()).toThrow();
      });
    });
  });
}
