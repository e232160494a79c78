/**
 * `POST /api/v1/jobs/cancel` over real HTTP on 127.0.0.1, on a control plane whose store and audit
 * log are a real SQLite file (fake time, no processes): statuses, 400s naming the fields, the dry
 * run changing nothing, and the one audit entry of a batch.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { FastifyInstance } from 'fastify';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { ApiLimits, DEFAULT_API_LIMITS } from '../../../app/auth/api-limits.js';
import { safeAuditRecorder } from '../../../app/audit/audit-recorder.js';
import { generateToken, tokenDigest } from '../../../app/auth/tokens.js';
import type { AuditLog } from '../../../app/ports/audit-log.js';
import { planeKit, type PlaneKit } from '../../../app/testing/plane-kit.js';
import { createSqliteAuditLog } from '../../store/sqlite-audit-log.js';
import { openSqliteStore, type SqliteStateStore } from '../../store/sqlite-store.js';
import { buildServer } from '../build-server.js';
import { kitServices } from '../testing/kit-services.js';

/* eslint-disable @typescript-eslint/no-explicit-any -- response bodies are checked field by field */

describe('POST /api/v1/jobs/cancel over HTTP', () => {
  let dir: string;
  let store: SqliteStateStore;
  let kit: PlaneKit;
  let log: AuditLog;
  let app: FastifyInstance;
  let base: string;

  beforeEach(async () => {
    dir = mkdtempSync(join(tmpdir(), 'gpushare-bulk-route-'));
    store = openSqliteStore(join(dir, 'gpushare.db'));
    kit = await planeKit('1xA10', {}, { store });
    for (const tenant of ['team-a', 'team-b']) kit.store.createTenant(tenant, kit.clock.nowMs());
    // Every GPU cordoned: the jobs stay pending.
    kit.store.setGpuCordoned(kit.gpus[0]!.uuid, true, kit.clock.nowMs());
    kit.plane.updateGpus(null, kit.store.listCordonedGpus());
    log = createSqliteAuditLog(store.database);
    const record = safeAuditRecorder(log, { error: () => undefined });
    app = await buildServer({
      ...kitServices(kit),
      limits: new ApiLimits(
        { ...DEFAULT_API_LIMITS, requestsPerSecond: 100_000, requestBurst: 100_000 },
        (name) => kit.store.getTenant(name),
        () => kit.clock.nowMs(),
      ),
      audit: {
        log,
        record,
        jobTenant: (id) => kit.store.getJob(id)?.tenant ?? null,
        nowMs: () => kit.clock.nowMs(),
        logError: () => undefined,
      },
    });
    base = await app.listen({ host: '127.0.0.1', port: 0 });
  });

  afterEach(async () => {
    await app.close();
    await kit.plane.stop();
    store.close();
    rmSync(dir, { recursive: true, force: true });
  });

  const tokenOf = (role: 'tenant-admin' | 'member' | 'viewer', tenant: string): string => {
    const secret = generateToken();
    kit.store.createToken({ digest: tokenDigest(secret), role, tenant, label: role, createdAtMs: kit.clock.nowMs() });
    return secret;
  };
  const post = async (path: string, body: unknown, token = kit.adminToken): Promise<{ status: number; body: any }> => {
    const response = await fetch(`${base}/api/v1${path}`, {
      method: 'POST',
      headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
      body: JSON.stringify(body),
    });
    return { status: response.status, body: await response.json() };
  };
  const submit = async (tenant: string, name: string, token = kit.adminToken): Promise<number> => {
    const { status, body } = await post(
      '/jobs',
      { command: ['train'], workingDirectory: '/work', name, tenant, gpu: { gpuMilli: 500 } },
      token,
    );
    expect(status, JSON.stringify(body)).toBe(201);
    return body.id;
  };
  const bulkEntries = () => log.list({ limit: 10_000 }).filter((e) => e.action === 'job.cancel-bulk');

  it(
    'cancels by a selector: 200 with cancelled, stopping, skipped and the reason; ONE audit entry ' +
      'with the selector and the ids as ranges',
    async () => {
      const ids: number[] = [];
      for (let i = 0; i < 30; i++) ids.push(await submit('team-a', `train-${i}`));
      const other = await submit('team-b', 'train-b');
      const answer = await post('/jobs/cancel', {
        ids: [...ids.slice(0, 20), 9000, 9001],
        state: ['pending'],
        reason: 'maintenance',
      });
      expect(answer.status).toBe(200);
      expect(answer.body).toEqual({
        dryRun: false,
        cancelled: ids.slice(0, 20),
        stopping: [],
        skipped: [
          { id: 9000, reason: 'not-found', message: 'job 9000 not found' },
          { id: 9001, reason: 'not-found', message: 'job 9001 not found' },
        ],
        reason: 'cancelled by an admin: maintenance',
      });
      const byName = await post('/jobs/cancel', { name: 'train-*', tenant: 'team-a' });
      expect([byName.status, byName.body.cancelled, byName.body.skipped]).toEqual([200, ids.slice(20), []]);
      expect(
        (
          (await (
            await fetch(`${base}/api/v1/jobs/${other}`, { headers: { authorization: `Bearer ${kit.adminToken}` } })
          ).json()) as any
        ).state,
      ).toBe('pending');
      const entries = bulkEntries();
      expect(entries.map((e) => [e.actor, e.tenant, e.target, e.outcome])).toEqual([
        [
          'admin token 1',
          null,
          'jobs (20 cancelled, 0 stopping)',
          {
            result: 'ok',
            httpStatus: 200,
            message: `cancelled 20 (${ids[0]}-${ids[19]}); stopping 0; skipped 2 (not-found: 9000-9001)`,
          },
        ],
        [
          'admin token 1',
          'team-a',
          'jobs (10 cancelled, 0 stopping)',
          { result: 'ok', httpStatus: 200, message: `cancelled 10 (${ids[20]}-${ids[29]}); stopping 0; skipped 0` },
        ],
      ]);
      expect(entries[0]!.summary).toEqual({
        method: 'POST',
        route: '/api/v1/jobs/cancel',
        body: { ids: `${ids[0]}-${ids[19]},9000-9001`, state: ['pending'], reason: 'maintenance', dryRun: false },
      });
      expect(entries[1]!.summary.body).toEqual({ name: 'train-*', tenant: 'team-a', dryRun: false });
    },
  );

  it('a dry run answers what would be cancelled, changes nothing and is not recorded', async () => {
    const ids = [await submit('team-a', 'a'), await submit('team-a', 'b')];
    const before = log.head();
    const dry = await post('/jobs/cancel', { tenant: 'team-a', dryRun: true });
    expect([dry.status, dry.body.dryRun, dry.body.cancelled]).toEqual([200, true, ids]);
    expect(ids.map((id) => kit.store.getJob(id)!.state)).toEqual(['pending', 'pending']);
    expect(kit.plane.pendingCount()).toBe(2);
    expect(log.head()).toEqual(before);
  });

  it(
    '400 naming the fields: an empty selector, bad ids, states, names, reasons, times and unknown ' +
      'fields; nothing changes',
    async () => {
      const id = await submit('team-a', 'keep');
      const refused: [unknown, string][] = [
        [{}, 'body: give at least one of ids, state, tenant, name, since (no call cancels every job)'],
        [{ reason: 'why', dryRun: true }, 'body: give at least one of ids, state, tenant, name, since'],
        [{ ids: [] }, 'body.ids:'],
        [{ ids: [id, id] }, `body.ids: ids must be distinct; ${id} is named twice`],
        [{ ids: [0] }, 'body.ids.0:'],
        [{ ids: Array.from({ length: 10_001 }, (_, i) => i + 1) }, 'body.ids:'],
        [{ state: ['cancelled'] }, 'body.state.0:'],
        [{ state: [] }, 'body.state:'],
        [{ tenant: 'Team A' }, 'body.tenant:'],
        [{ name: '' }, 'body.name:'],
        [{ name: 'x\u001b[2J' }, 'body.name: must be 1-256 printable characters'],
        [{ ids: [id], reason: 'a'.repeat(257) }, 'body.reason: must be 1-256 printable characters'],
        [
          { ids: [id], reason: 'line\nbreak' },
          'body.reason: must be 1-256 printable characters, not only spaces, without control characters',
        ],
        [{ since: 'yesterday' }, 'body.since: must be an ISO 8601 time'],
        [{ ids: [id], extra: 1 }, 'body:'],
        [{ ids: [id], dryRun: 'yes' }, 'body.dryRun:'],
      ];
      for (const [body, message] of refused) {
        const answer = await post('/jobs/cancel', body);
        expect([answer.status, answer.body.error.code], JSON.stringify(body).slice(0, 80)).toEqual([
          400,
          'GPUSHARE_INVALID_FIELD',
        ]);
        expect(answer.body.error.message, JSON.stringify(body).slice(0, 80)).toContain(message);
      }
      expect(kit.store.getJob(id)!.state).toBe('pending');
      // Each refusal recorded, but for the dry run's: a dry run is never recorded.
      expect(bulkEntries().map((e) => e.outcome.result)).toEqual(Array(refused.length - 1).fill('rejected'));
    },
  );

  it(
    'per role: a member cancels only its own jobs (a fellow member\'s named by id is "not allowed", ' +
      'another tenant\'s "not found"); a viewer gets 403',
    async () => {
      const member = tokenOf('member', 'team-a');
      const own = await submit('team-a', 'own', member);
      const fellow = await submit('team-a', 'fellow', tokenOf('member', 'team-a'));
      const other = await submit('team-b', 'other');
      const byId = await post('/jobs/cancel', { ids: [own, fellow, other] }, member);
      expect([
        byId.status,
        byId.body.cancelled,
        byId.body.skipped.map((s: any) => [s.id, s.reason]),
        byId.body.reason,
      ]).toEqual([
        200,
        [own],
        [
          [fellow, 'not-allowed'],
          [other, 'not-found'],
        ],
        'cancelled by tenant team-a',
      ]);
      const byFilter = await post('/jobs/cancel', { state: ['pending'] }, tokenOf('tenant-admin', 'team-a'));
      expect([byFilter.status, byFilter.body.cancelled]).toEqual([200, [fellow]]);
      const viewer = await post('/jobs/cancel', { state: ['pending'] }, tokenOf('viewer', 'team-b'));
      expect([viewer.status, viewer.body.error.code]).toEqual([403, 'GPUSHARE_FORBIDDEN']);
      expect(kit.store.getJob(other)!.state).toBe('pending');
      expect(bulkEntries().map((e) => [e.role, e.tenant, e.outcome.result])).toEqual([
        ['member', 'team-a', 'ok'],
        ['tenant-admin', 'team-a', 'ok'],
        ['viewer', 'team-b', 'denied'],
      ]);
    },
  );

  it(
    'keeps an entry bounded: 2,000 scattered ids are cut in the summary and the outcome, saying how ' +
      'many were left out',
    async () => {
      const ids = Array.from({ length: 2000 }, (_, i) => 2 * i + 100_001);
      const answer = await post('/jobs/cancel', { ids });
      expect([answer.status, answer.body.skipped.length]).toEqual([200, 2000]);
      const [entry] = bulkEntries();
      expect(typeof entry!.summary.body).toBe('object');
      const summaryIds = (entry!.summary.body as Record<string, string>).ids!;
      expect(summaryIds.startsWith('100001,100003,')).toBe(true);
      expect(summaryIds).toMatch(/…\(\+\d+ more\)$/);
      expect(summaryIds.length).toBeLessThanOrEqual(220);
      expect(entry!.outcome.message).toMatch(
        /^cancelled 0; stopping 0; skipped 2000 \(not-found: 100001,100003,.*…\(\+\d+ more\)\)$/,
      );
      expect(entry!.outcome.message!.length).toBeLessThanOrEqual(1100);
    },
  );
});
