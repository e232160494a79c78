/**
 * Bulk cancel on a control plane over a real SQLite store file (fake time, no processes): the
 * single cancel's authorization per job for every role, selection by filters, one transaction
 * (a failing write leaves every job as it was), one scheduling pass, and running jobs ending
 * `cancelled` with the batch's reason.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { openSqliteStore } from '../../adapters/store/sqlite-store.js';
import { note } from '../../adapters/store/store-fixtures.js';
import { BulkCancelSchema, type BulkCancelInput } from '../../contract/bulk-cancel.js';
import type { Principal } from '../auth/tokens.js';
import type { StateStore } from '../ports/state-store.js';
import { planeKit, type PlaneKit } from '../testing/plane-kit.js';
import { statusMessage, JOB_EVENT_CODES, jobEventReason } from '../../core/index.js';

const GPU = { gpuCount: 1, gpuMilli: 500, gpuMemoryMiB: null, mode: 'auto', isolation: 'standard' } as const;

describe('bulk cancel (JobService.cancelMany) over a SQLite store', () => {
  let dir: string;
  let kit: PlaneKit;
  let sqlite: StateStore;
  /** Set to make the next write fail after a job changed state behind the selection's back. */
  let sabotage: number | null;

  beforeEach(async () => {
    dir = mkdtempSync(join(tmpdir(), 'gpushare-bulk-cancel-'));
    const real = openSqliteStore(join(dir, 'gpushare.db'));
    sabotage = null;
    // The store as the plane sees it; `sabotage` cancels one selected job just before the batch's write.
    sqlite = new Proxy(real, {
      get(target, prop, receiver) {
        if (prop === 'applyJobChanges') {
          return (changes: Parameters<StateStore['applyJobChanges']>[0]) => {
            if (sabotage !== null) {
              const id = sabotage;
              sabotage = null;
              const job = target.getJob(id)!;
              target.applyJobChanges([
                {
                  jobId: id,
                  atMs: 1,
                  expectState: job.state,
                  to: 'cancelled',
                  reason: note('meanwhile'),
                  patch: { endedAtMs: 1 },
                },
              ]);
            }
            target.applyJobChanges(changes);
          };
        }
        const value: unknown = Reflect.get(target, prop, receiver);
        return typeof value === 'function' ? value.bind(target) : value;
      },
    });
    kit = await planeKit('2xA10', {}, { store: sqlite });
    for (const tenant of ['team-a', 'team-b']) kit.store.createTenant(tenant, kit.clock.nowMs());
  });

  afterEach(async () => {
    await kit.plane.stop();
    sqlite.close();
    rmSync(dir, { recursive: true, force: true });
  });

  const token = (role: 'tenant-admin' | 'member' | 'viewer', tenant: string): Principal => {
    const record = kit.store.createToken({
      digest: `${role}-${tenant}-${Math.random()}`,
      role,
      tenant,
      label: role,
      createdAtMs: kit.clock.nowMs(),
    });
    return { role, tenant, tokenId: record.id };
  };
  const submit = (by: Principal, tenant: string, name: string): number =>
    kit.jobs.submit(by, {
      command: ['train'],
      workingDirectory: '/work',
      name,
      tenant,
      environment: {},
      priority: 'normal',
      timeLimitSeconds: null,
      retries: 0,
      cpuMilli: 0,
      hostMemoryMiB: 0,
      gpu: GPU,
    }).id;
  const cancelMany = (by: Principal, body: BulkCancelInput) => kit.jobs.cancelMany(by, BulkCancelSchema.parse(body));
  const states = (ids: number[]) => ids.map((id) => kit.store.getJob(id)!.state);
  /** Every GPU cordoned: submitted jobs stay pending. */
  const holdJobs = () => {
    for (const gpu of kit.gpus) kit.store.setGpuCordoned(gpu.uuid, true, kit.clock.nowMs());
    kit.plane.updateGpus(null, kit.store.listCordonedGpus());
  };

  it(
    "by id: authorizes each job as the single cancel does, for every role; another tenant's job is " +
      '"not found" like a missing id',
    async () => {
      holdJobs();
      const member = token('member', 'team-a');
      const fellow = token('member', 'team-a');
      const tenantAdmin = token('tenant-admin', 'team-a');
      const memberB = token('member', 'team-b');
      const own = submit(member, 'team-a', 'own');
      const fellows = submit(fellow, 'team-a', 'fellows');
      const other = submit(memberB, 'team-b', 'other');
      const ended = submit(member, 'team-a', 'ended');
      cancelMany(kit.adminPrincipal, { ids: [ended] });
      await kit.settle();
      const ids = [other, 9999, fellows, own, ended];
      const skipped = (by: Principal) => cancelMany(by, { ids, dryRun: true }).skipped.map((s) => [s.id, s.reason]);
      expect(skipped(member)).toEqual(
        [
          [fellows, 'not-allowed'],
          [other, 'not-found'],
          [ended, 'already-ended'],
          [9999, 'not-found'],
        ].sort((a, b) => (a[0] as number) - (b[0] as number)),
      );
      expect(cancelMany(member, { ids, dryRun: true }).cancelled).toEqual([own]);
      expect(cancelMany(tenantAdmin, { ids, dryRun: true }).cancelled).toEqual([own, fellows]);
      expect(skipped(tenantAdmin)).toEqual([
        [other, 'not-found'],
        [ended, 'already-ended'],
        [9999, 'not-found'],
      ]);
      expect(cancelMany(kit.adminPrincipal, { ids, dryRun: true }).cancelled).toEqual([own, fellows, other]);
      // The message of another tenant's job is the one of a missing id.
      const result = cancelMany(member, { ids });
      expect(result.skipped.find((s) => s.id === other)!.message).toBe(`job ${other} not found`);
      expect(result.skipped.find((s) => s.id === 9999)!.message).toBe('job 9999 not found');
      expect([result.cancelled, result.stopping, result.reason]).toEqual([[own], [], 'cancelled by tenant team-a']);
      expect(states([own, fellows, other])).toEqual(['cancelled', 'pending', 'pending']);
      // A viewer and a report token may cancel nothing: refused as a whole.
      expect(() => cancelMany(token('viewer', 'team-a'), { ids: [fellows] })).toThrow(
        expect.objectContaining({ httpStatus: 403 }),
      );
      expect(() => cancelMany({ role: 'job', tenant: 'team-a', jobId: fellows }, { ids: [fellows] })).toThrow(
        expect.objectContaining({ httpStatus: 403 }),
      );
      expect(states([fellows, other])).toEqual(['pending', 'pending']);
    },
  );

  it(
    'by filter: selects only what the caller may cancel (a member its own jobs), by state, tenant, ' +
      'name pattern and submit time',
    async () => {
      holdJobs();
      const member = token('member', 'team-a');
      const fellow = token('member', 'team-a');
      const memberB = token('member', 'team-b');
      const train1 = submit(member, 'team-a', 'train-1');
      const eval1 = submit(member, 'team-a', 'eval-1');
      const fellowTrain = submit(fellow, 'team-a', 'train-2');
      await kit.advance(60_000);
      const train3 = submit(member, 'team-a', 'train-3');
      const otherTrain = submit(memberB, 'team-b', 'train-9');
      const sel = (by: Principal, body: BulkCancelInput) => {
        const r = cancelMany(by, { ...body, dryRun: true });
        return [r.cancelled, r.skipped];
      };
      expect(sel(member, { state: ['pending'] })).toEqual([[train1, eval1, train3], []]);
      expect(sel(member, { name: 'train-*' })).toEqual([[train1, train3], []]);
      expect(sel(member, { tenant: 'team-b' })).toEqual([[], []]);
      expect(sel(token('tenant-admin', 'team-a'), { name: 'train-*' })).toEqual([[train1, fellowTrain, train3], []]);
      expect(sel(kit.adminPrincipal, { name: 'train-*' })).toEqual([[train1, fellowTrain, train3, otherTrain], []]);
      expect(
        sel(kit.adminPrincipal, {
          name: 'train-*',
          tenant: 'team-a',
          since: new Date(kit.clock.nowMs() - 1000).toISOString(),
        }),
      ).toEqual([[train3], []]);
      expect(sel(kit.adminPrincipal, { state: ['running'] })).toEqual([[], []]);
      // By id and a filter: an id outside the filter is skipped as not matched.
      const both = cancelMany(kit.adminPrincipal, { ids: [train1, eval1], name: 'train-*' });
      expect([both.cancelled, both.skipped.map((s) => [s.id, s.reason])]).toEqual([[train1], [[eval1, 'not-matched']]]);
    },
  );

  it(
    'cancels every pending job in ONE transaction with the same reason, leaves the queue, asks for ' +
      'ONE pass; a dry run changes nothing',
    async () => {
      holdJobs();
      const ids = Array.from({ length: 50 }, (_, i) => submit(kit.adminPrincipal, 'team-a', `batch-${i}`));
      await kit.settle();
      const writes = vi.spyOn(sqlite, 'applyJobChanges');
      const passes = vi.spyOn(kit.plane, 'requestPass');
      expect(kit.plane.pendingCount()).toBe(50);
      const dry = cancelMany(kit.adminPrincipal, { tenant: 'team-a', dryRun: true, reason: 'maintenance' });
      expect([dry.dryRun, dry.cancelled, writes.mock.calls.length, kit.plane.pendingCount()]).toEqual([
        true,
        ids,
        0,
        50,
      ]);
      expect(new Set(states(ids))).toEqual(new Set(['pending']));
      const done = cancelMany(kit.adminPrincipal, { tenant: 'team-a', reason: 'maintenance' });
      expect([done.dryRun, done.cancelled, done.reason]).toEqual([false, ids, 'cancelled by an admin: maintenance']);
      expect([
        writes.mock.calls.length,
        writes.mock.calls[0]![0].length,
        passes.mock.calls.length,
        kit.plane.pendingCount(),
      ]).toEqual([1, 50, 1, 0]);
      expect(new Set(ids.map((id) => statusMessage(kit.store.getJob(id)!.reason!)))).toEqual(
        new Set(['cancelled by an admin: maintenance']),
      );
      expect(kit.store.listEvents(ids[7]!).at(-1)).toMatchObject({
        fromState: 'pending',
        toState: 'cancelled',
        reason: jobEventReason(JOB_EVENT_CODES.cancelled, { by: 'admin', tenant: null, note: 'maintenance' }),
      });
    },
  );

  it(
    'a write that fails (a selected job changed state meanwhile) leaves every job as it was: 409, ' +
      'nothing cancelled, all still queued',
    async () => {
      holdJobs();
      const ids = Array.from({ length: 10 }, (_, i) => submit(kit.adminPrincipal, 'team-a', `batch-${i}`));
      await kit.settle();
      const eventsBefore = ids.map((id) => kit.store.listEvents(id).length);
      sabotage = ids[9]!;
      expect(() => cancelMany(kit.adminPrincipal, { tenant: 'team-a' })).toThrow(
        expect.objectContaining({ httpStatus: 409 }),
      );
      expect(states(ids.slice(0, 9))).toEqual(Array(9).fill('pending'));
      expect(ids.slice(0, 9).map((id) => kit.store.listEvents(id).length)).toEqual(eventsBefore.slice(0, 9));
      expect(kit.plane.pendingCount()).toBe(10);
    },
  );

  it(
    "stops running jobs (cancel requested at once), which end cancelled with the batch's reason; " +
      'pending ones are cancelled in the same call',
    async () => {
      const running = [submit(kit.adminPrincipal, 'team-a', 'run-1'), submit(kit.adminPrincipal, 'team-a', 'run-2')];
      await kit.advance(1000);
      expect(states(running)).toEqual(['running', 'running']);
      holdJobs();
      const waiting = submit(kit.adminPrincipal, 'team-a', 'wait-1');
      await kit.settle();
      const result = cancelMany(kit.adminPrincipal, { tenant: 'team-a', reason: 'drain for upgrade' });
      expect([result.cancelled, result.stopping]).toEqual([[waiting], running]);
      expect(running.map((id) => statusMessage(kit.store.getJob(id)!.reason!))).toEqual([
        'cancel requested by an admin: drain for upgrade',
        'cancel requested by an admin: drain for upgrade',
      ]);
      for (let i = 0; i < 20 && states(running).some((s) => s !== 'cancelled'); i++) await kit.advance(1000);
      expect(states([...running, waiting])).toEqual(['cancelled', 'cancelled', 'cancelled']);
      expect(new Set([...running, waiting].map((id) => statusMessage(kit.store.getJob(id)!.reason!)))).toEqual(
        new Set(['cancelled by an admin: drain for upgrade']),
      );
    },
  );
});
