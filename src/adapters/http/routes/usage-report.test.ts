/**
 * Usage values in a job's report (`gpuMemoryUsedMiB`, `gpuUtilizationPct` of `POST
 * /api/v1/jobs/:id/qos-reports`), in process over a plane kit: any running job may send them with
 * its own report token, they raise its stored usage peak (shown by `GET /api/v1/jobs/:id`), bad
 * values are 400 naming the field, and the audit log records a report that raised the peak or was
 * refused, not one that changed nothing.
 */
import type { FastifyInstance } from 'fastify';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { planeKit, type PlaneKit } from '../../../app/testing/plane-kit.js';
import { createMemoryAuditLog, type MemoryAuditLog } from '../../store/memory-audit-log.js';
import { buildServer } from '../build-server.js';
import { kitServices } from '../testing/kit-services.js';

/* eslint-disable @typescript-eslint/no-explicit-any -- response bodies are checked field by field */

describe('usage values in a job report', () => {
  let kit: PlaneKit;
  let log: MemoryAuditLog;
  let app: FastifyInstance;
  const call = async (method: 'GET' | 'POST', url: string, token: string, payload?: object) => {
    const response = await app.inject({
      method,
      url,
      headers: { authorization: `Bearer ${token}` },
      ...(payload === undefined ? {} : { payload }),
    });
    return { status: response.statusCode, body: response.json() as any };
  };
  const audited = () => log.list({ limit: 100 }).map((e) => `${e.action} ${e.target} ${e.outcome.result}`);

  beforeEach(async () => {
    kit = await planeKit('2xA10');
    log = createMemoryAuditLog();
    app = await buildServer({
      ...kitServices(kit),
      audit: {
        log,
        record: (entry) => void log.append(entry),
        jobTenant: (id) => kit.store.getJob(id)?.tenant ?? null,
        nowMs: () => kit.clock.nowMs(),
        logError: () => undefined,
      },
    });
  });
  afterEach(async () => {
    await app.close();
    await kit.plane.stop();
  });

  /** Two running jobs without QoS targets, and their report tokens. */
  async function twoJobs(): Promise<[number, string, number, string]> {
    const a = kit.submit({ command: ['a'], workingDirectory: '/work', gpu: { gpuCount: 1 } });
    const b = kit.submit({ command: ['b'], workingDirectory: '/work', gpu: { gpuCount: 1 } });
    await kit.advance(1000);
    const token = (id: number) => kit.launcher.attempt(id).spec.environment.GPUSHARE_JOB_TOKEN!;
    return [a.id, token(a.id), b.id, token(b.id)];
  }

  it('raises the peak of a job without QoS targets; the job view shows it; the audit log has the raise', async () => {
    const [a, tokenA] = await twoJobs();
    const atA = new Date(kit.clock.nowMs()).toISOString();
    const first = await call('POST', `/api/v1/jobs/${a}/qos-reports`, tokenA, {
      gpuMemoryUsedMiB: 10240,
      gpuUtilizationPct: 72.5,
    });
    expect([first.status, first.body]).toEqual([
      200,
      {
        jobId: a,
        status: [],
        usagePeak: { gpuMemoryMiB: 10240, gpuUtilizationPct: 72.5, updatedAt: atA },
        peakRaised: true,
      },
    ]);
    await kit.advance(5000);
    const lower = await call('POST', `/api/v1/jobs/${a}/qos-reports`, tokenA, { gpuMemoryUsedMiB: 8000 });
    expect([lower.body.peakRaised, lower.body.usagePeak.gpuMemoryMiB]).toEqual([false, 10240]);
    const higher = await call('POST', `/api/v1/jobs/${a}/qos-reports`, tokenA, { gpuMemoryUsedMiB: 12000 });
    expect([higher.body.peakRaised, higher.body.usagePeak]).toEqual([
      true,
      { gpuMemoryMiB: 12000, gpuUtilizationPct: 72.5, updatedAt: new Date(kit.clock.nowMs()).toISOString() },
    ]);
    const job = await call('GET', `/api/v1/jobs/${a}`, kit.adminToken);
    expect(job.body.usagePeak).toEqual(higher.body.usagePeak);
    expect(audited()).toEqual([`job.report-usage job ${a} ok`, `job.report-usage job ${a} ok`]);
  });

  it('refuses bad values naming the field, a progress value without a target, and another job (audited)', async () => {
    const [a, tokenA, b] = await twoJobs();
    const bad = async (payload: object) => (await call('POST', `/api/v1/jobs/${a}/qos-reports`, tokenA, payload)).body;
    expect((await bad({ gpuUtilizationPct: 100.5 })).error.message).toBe(
      'body.gpuUtilizationPct: must be a percentage from 0 to 100',
    );
    expect((await bad({ gpuMemoryUsedMiB: 1.5 })).error.message).toBe(
      'body.gpuMemoryUsedMiB: must be a whole number of MiB',
    );
    expect((await bad({ gpuMemoryUsedMiB: -1 })).error.message).toBe('body.gpuMemoryUsedMiB: must be at least 0 MiB');
    expect((await bad({ gpuMemoryUsedMiB: '10GiB' })).error.message).toBe(
      'body.gpuMemoryUsedMiB: must be a whole number of MiB',
    );
    expect((await bad({})).error.message).toBe(
      'body: a report needs stepSeconds, latencySeconds, gpuMemoryUsedMiB or gpuUtilizationPct',
    );
    expect((await bad({ gpuMemoryMiB: 5 })).error.code).toBe('GPUSHARE_INVALID_FIELD');
    const progress = await bad({ stepSeconds: 0.5, gpuMemoryUsedMiB: 5 });
    expect([progress.error.code, progress.error.message]).toEqual([
      'GPUSHARE_INVALID_FIELD',
      `qos: job ${a} declares no QoS target (submit it with --qos-step-seconds or --qos-latency-seconds); it may ` +
        'report gpuMemoryUsedMiB and gpuUtilizationPct',
    ]);
    const other = await call('POST', `/api/v1/jobs/${b}/qos-reports`, tokenA, { gpuMemoryUsedMiB: 5 });
    expect(other.status).toBe(403);
    expect(kit.store.getUsagePeak(a)).toBeNull();
    expect(kit.store.getUsagePeak(b)).toBeNull();
    // Refused usage reports are recorded (the 403 of the token's scope is refused before the body is read).
    expect(audited()).toEqual([
      `job.report-usage job ${a} rejected`,
      `job.report-usage job ${a} rejected`,
      `job.report-usage job ${a} rejected`,
      `job.report-usage job ${a} rejected`,
      `job.report-usage job ${a} rejected`,
    ]);
  });

  it('answers 409 once the job no longer runs, keeping its peak', async () => {
    const [a, tokenA] = await twoJobs();
    await call('POST', `/api/v1/jobs/${a}/qos-reports`, tokenA, { gpuMemoryUsedMiB: 3000 });
    kit.launcher.exit(a, { exitCode: 0 });
    await kit.advance(1000);
    expect(kit.store.getJob(a)?.state).toBe('succeeded');
    const late = await call('POST', `/api/v1/jobs/${a}/qos-reports`, kit.adminToken, { gpuMemoryUsedMiB: 9000 });
    expect([late.status, late.body.error.message]).toEqual([
      409,
      `job ${a} is succeeded: reports are accepted only while it runs`,
    ]);
    expect((await call('GET', `/api/v1/jobs/${a}`, kit.adminToken)).body.usagePeak.gpuMemoryMiB).toBe(3000);
  });
});
