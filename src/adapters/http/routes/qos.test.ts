/**
 * `POST /api/v1/jobs/:id/qos-reports` validation on a real server (in process, one simulated GPU,
 * no job): the id is checked like the job routes' (an id above 2^53-1 is the same 400, not a
 * rounded "not found"), and a body field breaking several checks is named once.
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { resolveServerConfig } from '../../../config/server-config.js';
import { startServer, type RunningServer } from '../../../main/serve.js';

/* eslint-disable @typescript-eslint/no-explicit-any -- error bodies are checked field by field */

describe('POST /api/v1/jobs/:id/qos-reports validation', () => {
  const dir = mkdtempSync(join(tmpdir(), 'gpushare-qos-route-'));
  let server: RunningServer;
  let admin: string;
  /** Sends `body` as raw JSON text, so that `1e999` reaches the server as written. */
  const call = async (method: string, path: string, body?: string): Promise<{ status: number; body: any }> => {
    const response = await fetch(`${server.url}${path}`, {
      method,
      headers: {
        authorization: `Bearer ${admin}`,
        ...(body === undefined ? {} : { 'content-type': 'application/json' }),
      },
      ...(body === undefined ? {} : { body }),
    });
    return { status: response.status, body: await response.json() };
  };

  beforeAll(async () => {
    const config = resolveServerConfig(
      {},
      {
        port: 0,
        dataDir: join(dir, 'data'),
        simulateGpus: '1xA100-80GB',
        usageHistoryIntervalSeconds: 60,
        insecureHttp: true,
        singleTenant: true,
      },
      { cpuMilli: 4000, hostMemoryMiB: 8192, env: {} },
    );
    server = await startServer(config, {
      env: { PATH: process.env.PATH },
      version: '9.9.9',
      writeCliConfig: false,
      handleSignals: false,
      logLevel: 'silent',
    });
    admin = readFileSync(server.adminTokenPath, 'utf8').trim();
  });

  afterAll(async () => {
    await server?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('answers an id above 2^53-1 with the same 400 as GET /api/v1/jobs/:id', async () => {
    const message =
      'params.id: must be a decimal integer 1-9007199254740991 (digits only, no sign, spaces or leading ' +
      'zeros); the job id';
    const get = await call('GET', '/api/v1/jobs/99999999999999999999');
    expect([get.status, get.body.error.code, get.body.error.message]).toEqual([400, 'GPUSHARE_INVALID_FIELD', message]);
    const report = await call('POST', '/api/v1/jobs/99999999999999999999/qos-reports', '{"stepSeconds":0.5}');
    expect([report.status, report.body.error.code, report.body.error.message]).toEqual([
      400,
      'GPUSHARE_INVALID_FIELD',
      message,
    ]);
    const zero = await call('POST', '/api/v1/jobs/0/qos-reports', '{"stepSeconds":0.5}');
    expect([zero.status, zero.body.error.message]).toEqual([400, message]);
    const unknown = await call('POST', '/api/v1/jobs/9007199254740991/qos-reports', '{"stepSeconds":0.5}');
    expect([unknown.status, unknown.body.error.message]).toEqual([404, 'job 9007199254740991 not found']);
  });

  it('names a field breaking several checks once (1e999 is Infinity: not finite, and above 86400)', async () => {
    const infinite = await call('POST', '/api/v1/jobs/1/qos-reports', '{"stepSeconds":1e999}');
    expect([infinite.status, infinite.body.error.message]).toEqual([
      400,
      'body.stepSeconds: must be a finite number of seconds',
    ]);
    expect(infinite.body.error.details.issues).toEqual([
      { field: 'body.stepSeconds', message: 'body.stepSeconds: must be a finite number of seconds' },
    ]);
    const both = await call('POST', '/api/v1/jobs/1/qos-reports', '{"stepSeconds":1e999,"latencySeconds":-1e999}');
    expect([both.status, both.body.error.message]).toEqual([
      400,
      'body.stepSeconds: must be a finite number of seconds; body.latencySeconds: must be a positive number of seconds',
    ]);
    const big = await call('POST', '/api/v1/jobs/1/qos-reports', '{"stepSeconds":86401}');
    expect([big.status, big.body.error.message]).toEqual([400, 'body.stepSeconds: must be at most 86400 seconds']);
  });

  it('does the same for a submit (one error mapping for every route)', async () => {
    const submit = await call(
      'POST',
      '/api/v1/jobs',
      '{"command":["true"],"workingDirectory":"/tmp","qos":{"stepSeconds":1e999}}',
    );
    expect([submit.status, submit.body.error.details.issues.map((i: any) => i.field)]).toEqual([
      400,
      ['body.qos.stepSeconds'],
    ]);
  });
});
