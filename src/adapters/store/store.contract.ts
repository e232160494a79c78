/**
 * The behaviour every StateStore implementation must have, as one vitest suite. Each
 * implementation's test file calls `describeStateStoreContract` with a factory of fresh stores.
 */
import { existsSync, mkdtempSync, readdirSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { type JobChange, type StateStore, StoreConflictError } from '../../app/ports/state-store.js';
import { HANDLE, MIG_PLACEMENT, sampleJob, SHARED_PLACEMENT } from './store-fixtures.js';

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
      it('creates, gets and lists tenants by name', () => {
        expect(store.createTenant('zeta', T0)).toEqual({ name: 'zeta', createdAtMs: T0 });
        store.createTenant('alpha', T0 + 1);
        expect(store.getTenant('alpha')).toEqual({ name: 'alpha', createdAtMs: T0 + 1 });
        expect(store.getTenant('nobody')).toBeNull();
        expect(store.listTenants().map((t) => t.name)).toEqual(['alpha', 'zeta']);
      });

      it('rejects a duplicate name with StoreConflictError and keeps the first', () => {
        store.createTenant('acme', T0);
        expect(() => store.createTenant('acme', T0 + 5)).toThrow(StoreConflictError);
        expect(store.listTenants()).toEqual([{ name: 'acme', createdAtMs: T0 }]);
      });
    });

    describe('tokens', () => {
      it('creates tokens with increasing ids and finds them by digest', () => {
        store.createTenant('acme', T0);
        const admin = store.createToken({ digest: 'a'.repeat(64), role: 'admin', tenant: null, label: 'root', createdAtMs: T0 });
        const tenant = store.createToken({ digest: 'b'.repeat(64), role: 'tenant', tenant: 'acme', label: 'ci', createdAtMs: T0 + 1 });
        expect(tenant.id).toBeGreaterThan(admin.id);
        expect(store.findTokenByDigest('a'.repeat(64))).toEqual(admin);
        expect(store.findTokenByDigest('b'.repeat(64))).toEqual({ id: tenant.id, digest: 'b'.repeat(64), role: 'tenant', tenant: 'acme', label: 'ci', createdAtMs: T0 + 1 });
        expect(store.findTokenByDigest('c'.repeat(64))).toBeNull();
      });

      it('rejects a duplicate digest and a token of an unknown tenant', () => {
        store.createToken({ digest: 'a'.repeat(64), role: 'admin', tenant: null, label: 'root', createdAtMs: T0 });
        expect(() => store.createToken({ digest: 'a'.repeat(64), role: 'admin', tenant: null, label: 'again', createdAtMs: T0 })).toThrow(StoreConflictError);
        expect(() => store.createToken({ digest: 'd'.repeat(64), role: 'tenant', tenant: 'ghost', label: 'x', createdAtMs: T0 })).toThrow(StoreConflictError);
        expect(store.findTokenByDigest('a'.repeat(64))?.label).toBe('root');
        expect(store.findTokenByDigest('d'.repeat(64))).toBeNull();
      });
    });

    describe('jobs', () => {
      it('inserts pending jobs with increasing ids, a submit event and the values as written', () => {
        store.createTenant('acme', T0);
        const job = sampleJob('acme', { timeLimitSeconds: null, priority: -7, gpu: { gpuCount: 2, gpuMilli: 1000, gpuMemoryMiB: 81559, mode: 'exclusive' } });
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
          startedAtMs: null,
          endedAtMs: null,
          exitCode: null,
          signal: null,
        });
        expect(store.getJob(first.id)).toEqual(first);
        expect(store.getJob(second.id)).toMatchObject({ timeLimitSeconds: 0.5, environment: {} });
        expect(store.getJob(second.id + 1000)).toBeNull();
        expect(store.listEvents(first.id)).toEqual([{ jobId: first.id, atMs: T0, fromState: null, toState: 'pending', reason: null }]);
        expect(store.listAttempts(first.id)).toEqual([]);
      });

      it('rejects a job of an unknown tenant', () => {
        expect(() => store.insertJob(sampleJob('ghost'), T0)).toThrow(StoreConflictError);
        expect(store.listJobs()).toEqual([]);
      });

      it('copies what goes in and hands out deep-frozen snapshots', () => {
        store.createTenant('acme', T0);
        const input = sampleJob('acme');
        const mutableInput = { ...input, command: [...input.command], environment: { ...input.environment }, gpu: { ...input.gpu } };
        const inserted = store.insertJob(mutableInput, T0);
        mutableInput.command.push('--evil');
        mutableInput.environment.EVIL = '1';
        mutableInput.gpu.gpuMilli = 1;
        const read = store.getJob(inserted.id);
        expect(read?.command).toEqual(input.command);
        expect(read?.environment).toEqual(input.environment);
        expect(read?.gpu).toEqual(input.gpu);
        expect(() => (inserted.command as string[]).push('--evil')).toThrow(TypeError);
        expect(() => { (read?.environment as Record<string, string>).EVIL = '1'; }).toThrow(TypeError);
        store.applyJobChanges([{ jobId: inserted.id, atMs: T0 + 1, to: 'scheduled', patch: { placement: MIG_PLACEMENT, process: HANDLE } }]);
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
        const ids = (filter?: Parameters<StateStore['listJobs']>[0]): number[] => store.listJobs(filter).map((j) => j.id);
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
    });

    describe('applyJobChanges', () => {
      it('records transitions as events in order, with reasons and times', () => {
        const [id = 0] = withJobs(1);
        store.applyJobChanges([{ jobId: id, atMs: T0 + 100, expectState: 'pending', reason: 'no GPU fits', patch: { reason: 'no GPU fits' } }]);
        expect(store.getJob(id)).toMatchObject({ state: 'pending', reason: 'no GPU fits', updatedAtMs: T0 + 100 });
        store.applyJobChanges([{ jobId: id, atMs: T0 + 200, expectState: 'pending', to: 'scheduled', reason: 'placed' }]);
        store.applyJobChanges([{ jobId: id, atMs: T0 + 300, to: 'running' }]);
        store.applyJobChanges([{ jobId: id, atMs: T0 + 400, expectState: 'running', to: 'failed', reason: 'time-limit' }]);
        expect(store.listEvents(id)).toEqual([
          { jobId: id, atMs: T0, fromState: null, toState: 'pending', reason: null },
          { jobId: id, atMs: T0 + 200, fromState: 'pending', toState: 'scheduled', reason: 'placed' },
          { jobId: id, atMs: T0 + 300, fromState: 'scheduled', toState: 'running', reason: null },
          { jobId: id, atMs: T0 + 400, fromState: 'running', toState: 'failed', reason: 'time-limit' },
        ]);
        expect(store.getJob(id)).toMatchObject({ state: 'failed', reason: 'time-limit', updatedAtMs: T0 + 400 });
      });

      it('sets the job reason from the transition unless the patch sets one', () => {
        const [id = 0] = withJobs(1);
        store.applyJobChanges([{ jobId: id, atMs: T0 + 1, patch: { reason: 'waiting for 2 GPUs' } }]);
        store.applyJobChanges([{ jobId: id, atMs: T0 + 2, to: 'scheduled' }]);
        expect(store.getJob(id)?.reason).toBeNull();
        store.applyJobChanges([{ jobId: id, atMs: T0 + 3, to: 'pending', reason: 'launch-failed', patch: { reason: 'retrying' } }]);
        expect(store.getJob(id)?.reason).toBe('retrying');
        expect(store.listEvents(id).at(-1)?.reason).toBe('launch-failed');
        store.applyJobChanges([{ jobId: id, atMs: T0 + 4, reason: 'ignored without to' }]);
        expect(store.getJob(id)?.reason).toBe('retrying');
      });

      it('round-trips patched fields: nested placement, process handle, nulls and numbers', () => {
        const [id = 0] = withJobs(1);
        store.applyJobChanges([
          { jobId: id, atMs: T0 + 1, to: 'scheduled', patch: { placement: MIG_PLACEMENT } },
          { jobId: id, atMs: T0 + 2, to: 'running', startAttempt: 1, patch: { attempt: 1, process: HANDLE, startedAtMs: T0 + 2 } },
        ]);
        expect(store.getJob(id)).toMatchObject({ state: 'running', placement: MIG_PLACEMENT, process: HANDLE, attempt: 1, startedAtMs: T0 + 2 });
        const withPid = { ...HANDLE, jobPid: 4243 };
        store.applyJobChanges([{ jobId: id, atMs: T0 + 3, patch: { process: withPid, placement: SHARED_PLACEMENT } }]);
        expect(store.getJob(id)).toMatchObject({ process: withPid, placement: SHARED_PLACEMENT, attempt: 1 });
        store.applyJobChanges([{
          jobId: id, atMs: T0 + 4, to: 'succeeded', endAttempt: { attempt: 1, exitCode: 0, signal: null, endReason: 'exited' },
          patch: { process: null, endedAtMs: T0 + 4, exitCode: 0, signal: null },
        }]);
        const done = store.getJob(id);
        expect(done).toMatchObject({ state: 'succeeded', placement: SHARED_PLACEMENT, process: null, endedAtMs: T0 + 4, exitCode: 0, signal: null, startedAtMs: T0 + 2 });
        expect(store.listJobs({ states: ['succeeded'] })).toEqual([done]);
      });

      it('starts and ends attempts, listed by number', () => {
        const [id = 0] = withJobs(1);
        store.applyJobChanges([{ jobId: id, atMs: T0 + 10, to: 'scheduled', startAttempt: 1 }]);
        store.applyJobChanges([{ jobId: id, atMs: T0 + 20, to: 'pending', endAttempt: { attempt: 1, exitCode: null, signal: 'SIGKILL', endReason: 'lost' } }]);
        store.applyJobChanges([{ jobId: id, atMs: T0 + 30, to: 'scheduled', startAttempt: 2 }]);
        expect(store.listAttempts(id)).toEqual([
          { jobId: id, attempt: 1, startedAtMs: T0 + 10, endedAtMs: T0 + 20, exitCode: null, signal: 'SIGKILL', endReason: 'lost' },
          { jobId: id, attempt: 2, startedAtMs: T0 + 30, endedAtMs: null, exitCode: null, signal: null, endReason: null },
        ]);
        const before = snapshot([id]);
        expect(() => store.applyJobChanges([{ jobId: id, atMs: T0 + 40, startAttempt: 2 }])).toThrow(StoreConflictError);
        expect(() => store.applyJobChanges([{ jobId: id, atMs: T0 + 40, endAttempt: { attempt: 3, exitCode: 1, signal: null, endReason: 'exited' } }])).toThrow(StoreConflictError);
        expect(snapshot([id])).toEqual(before);
      });

      it('applies changes to one job in order within a batch', () => {
        const [id = 0] = withJobs(1);
        store.applyJobChanges([
          { jobId: id, atMs: T0 + 1, expectState: 'pending', to: 'scheduled', startAttempt: 1 },
          { jobId: id, atMs: T0 + 2, expectState: 'scheduled', to: 'pending', endAttempt: { attempt: 1, exitCode: null, signal: null, endReason: 'launch-failed' } },
        ]);
        expect(store.getJob(id)?.state).toBe('pending');
        expect(store.listEvents(id).map((e) => [e.fromState, e.toState])).toEqual([[null, 'pending'], ['pending', 'scheduled'], ['scheduled', 'pending']]);
        expect(store.listAttempts(id)[0]?.endReason).toBe('launch-failed');
      });

      it('writes nothing when one change of a batch expects another state', () => {
        const ids = withJobs(3);
        const [a = 0, b = 0, c = 0] = ids;
        store.applyJobChanges([{ jobId: b, atMs: T0 + 1, to: 'scheduled' }]);
        const before = snapshot(ids);
        const batch: JobChange[] = [
          { jobId: a, atMs: T0 + 5, expectState: 'pending', to: 'scheduled', startAttempt: 1, patch: { placement: SHARED_PLACEMENT, attempt: 1 } },
          { jobId: c, atMs: T0 + 5, expectState: 'pending', to: 'cancelled', reason: 'user' },
          { jobId: b, atMs: T0 + 5, expectState: 'pending', to: 'scheduled' },
        ];
        expect(() => store.applyJobChanges(batch)).toThrow(StoreConflictError);
        expect(snapshot(ids)).toEqual(before);
      });

      it('writes nothing when a change names an unknown job', () => {
        const ids = withJobs(2);
        const before = snapshot(ids);
        expect(() => store.applyJobChanges([
          { jobId: ids[0] ?? 0, atMs: T0 + 5, to: 'cancelled' },
          { jobId: 999_999, atMs: T0 + 5, to: 'cancelled' },
        ])).toThrow(StoreConflictError);
        expect(snapshot(ids)).toEqual(before);
      });

      it('accepts an empty batch and hundreds of changes at once', () => {
        const ids = withJobs(300);
        store.applyJobChanges([]);
        store.applyJobChanges(ids.map((jobId) => ({ jobId, atMs: T0 + 9, expectState: 'pending' as const, to: 'scheduled' as const, patch: { placement: SHARED_PLACEMENT } })));
        expect(store.listJobs({ states: ['scheduled'] }).map((j) => j.id)).toEqual(ids);
        expect(store.listJobs({ states: ['pending'] })).toEqual([]);
      });
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
      it('writes a backup file atomically, leaving no temporary file', async () => {
        withJobs(3);
        const folder = mkdtempSync(join(tmpdir(), 'gpushare-contract-backup-'));
        try {
          const target = join(folder, 'backup.db');
          await store.backup(target);
          await store.backup(target);
          expect(existsSync(target)).toBe(true);
          expect(statSync(target).size).toBeGreaterThan(0);
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
