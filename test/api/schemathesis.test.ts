/**
 * The HTTP API fuzzed by Schemathesis (`npm run test:api`; docs/api-fuzzing.md), once per seed of
 * `fuzzSeeds` (three fixed ones), each on servers of its own: a real `gpushare serve` (HTTPS, two
 * simulated GPUs, a temporary data dir) and every operation its /openapi.json lists, except the
 * three below, fuzzed once with the admin token and once with a tenant-admin token made through
 * the API, with every check Schemathesis has (`--checks all`):
 *
 * - no answer is a server error, every answer matches the schema, content type and headers of its
 *   status, every status is one the document declares, a request the document allows is accepted
 *   (or refused with 422 for a rule no schema can state: test/api/schemathesis.toml), a request
 *   without the token is 401, a method the document does not list is 405 with `Allow`, and a
 *   deleted or created resource behaves as such (use_after_free, ensure_resource_availability);
 * - with the admin token every operation answers 2xx at least once; with the tenant's token every
 *   operation not marked "(admin)" in its summary does, and those marked never do;
 * - a run of invalid requests only (`--mode negative`) is refused every time (negative_data_rejection)
 *   and leaves every row of every store table, the job-id mark and the job folders as they were.
 *
 * `POST /jobs/cancel` (many jobs) is fuzzed on its own after the other runs (its valid requests
 * would cancel the jobs their examples need), and in the negative run with the others.
 *
 * Fuzzed on a server of their own (schemathesis-admin-ops.test.ts), and tested by hand at the end
 * here: `POST /backup` (writes files wherever a path points) and `POST /drain` (stops the server).
 * Left out: `GET /events`, a stream that never ends (its own tests in
 * src/adapters/http/routes/events.test.ts).
 *
 * Random data cannot name an existing job or a program on the server, so the document Schemathesis
 * reads carries examples for those inputs (openapi-examples.ts): job ids made for each run, a
 * command that exists. The server's PATH holds only `sleep` and `true`, so that random commands
 * never find a program to run.
 */
import { mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  api,
  cleanupServe,
  pollFor,
  serverFetch,
  startServe,
  waitForJob,
  type ServeHandle,
} from '../e2e/support/serve-harness.js';
import { requireTool } from '../support/required-tool.js';
import { listOperations, withExamples, type OperationExample } from './support/openapi-examples.js';
import {
  fuzzSeeds,
  runSchemathesis,
  schemathesisExecutable,
  type SchemathesisRun,
} from './support/schemathesis-runner.js';
import { snapshotStore } from './support/store-snapshot.js';
import { resolveExecutable } from '../../src/host/resolve-executable.js';

/* eslint-disable @typescript-eslint/no-explicit-any -- API bodies are checked field by field */

const PREFIX = '/api/v1';
/**
 * Operations left out of these runs: backup and drain (fuzzed in schemathesis-admin-ops.test.ts,
 * tested by hand below) and the endless event stream.
 */
const EXCLUDED_PATHS = [`${PREFIX}/backup`, `${PREFIX}/drain`, `${PREFIX}/events`];
/**
 * Operations that can revoke or rotate the very token a run calls with (random ids hit it): fuzzed
 * last, each run with a token of its own and examples naming throwaway tokens.
 */
const TOKEN_CHANGE_PATHS = [`${PREFIX}/tokens/{id}/revoke`, `${PREFIX}/tokens/{id}/rotate`];
/**
 * Operations whose valid requests cancel jobs other operations need (a random selector such as
 * `{ state: [running] }` ends the running job the QoS reports need): fuzzed after the runs of
 * every other operation, with examples naming jobs made for them. The negative run includes them.
 */
const BULK_PATHS = [`${PREFIX}/jobs/cancel`];
/** Every check Schemathesis has (`--checks all`), none switched off. */
const CHECKS = ['all'];
/** Cases per operation and phase; `GPUSHARE_SCHEMATHESIS_MAX_EXAMPLES` raises it for a longer local run. */
const MAX_EXAMPLES = Number(process.env.GPUSHARE_SCHEMATHESIS_MAX_EXAMPLES ?? 20);
/** The seeds: every run once per seed, on servers of its own (fuzzSeeds). */
const SEEDS = fuzzSeeds();
const RUN_TIMEOUT_MS = 240_000;
const TENANT = 'team-a';
/**
 * Store tables that record requests rather than hold what requests create: an audit log writes an
 * entry for a refused call too, so it is left out of the "nothing stored" comparison.
 */
const REQUEST_RECORD_TABLES = /^audit/;
/**
 * Per-token request limits far above what a run sends: the runs check answers, not throttling (its own tests:
 * limits.test.ts).
 */
const UNTHROTTLED = { requestsPerSecond: 100_000, requestBurst: 100_000 };

const available = requireTool(schemathesisExecutable(), 'scripts/install-schemathesis.sh');

describe.skipIf(!available).each(SEEDS)('the API under Schemathesis, seed %i', (SEED) => {
  let server: ServeHandle;
  let work: string;
  let tenantToken: string;
  let openapi: any;
  let caFile: string | null;

  beforeAll(async () => {
    work = mkdtempSync(join(tmpdir(), 'gpushare-schemathesis-'));
    // The server looks programs up in a PATH of two: random commands never find one to run.
    const bin = join(work, 'bin');
    mkdirSync(bin);
    for (const program of ['sleep', 'true'])
      symlinkSync(resolveExecutable(program, '/', { PATH: process.env.PATH ?? '/usr/bin:/bin' })!, join(bin, program));
    server = await startServe({ simulateGpus: '2xA100-80GB', env: { PATH: bin }, config: UNTHROTTLED });
    caFile = server.caCert === null ? null : join(work, 'ca.crt');
    if (caFile !== null) writeFileSync(caFile, server.caCert!);
    expect((await api(server, 'POST', `${PREFIX}/tenants`, { name: TENANT })).status).toBe(201);
    const token = await api(server, 'POST', `${PREFIX}/tokens`, {
      tenant: TENANT,
      role: 'tenant-admin',
      label: 'schemathesis',
    });
    expect(token.status).toBe(201);
    tenantToken = token.body.token;
    openapi = await (await serverFetch(server, '/openapi.json')).json();
  });

  afterAll(async () => {
    if (server) await cleanupServe(server);
    // GPUSHARE_SCHEMATHESIS_KEEP=1 keeps the documents and NDJSON reports for a look afterwards.
    if (work && process.env.GPUSHARE_SCHEMATHESIS_KEEP !== '1') rmSync(work, { recursive: true, force: true });
    else if (work) process.stderr.write(`schemathesis documents and reports kept in ${work}\n`);
  });

  /** Operations the fuzzing covers: all of /openapi.json but the excluded paths. */
  const fuzzed = (): { key: string; summary: string }[] =>
    listOperations(openapi).filter(
      (op) => ![...EXCLUDED_PATHS, ...TOKEN_CHANGE_PATHS, ...BULK_PATHS].includes(op.key.split(' ')[1]!),
    );

  /**
   * Puts the server back in a state where every example can succeed (the last run may have
   * cordoned GPUs, set the tenant's quota and limits, cancelled the jobs), then starts two jobs of
   * the tenant: one to cancel, and one running with a QoS target (reports need a running job).
   */
  async function prepareJobs(): Promise<{ cancelId: number; runningId: number }> {
    for (const index of [0, 1])
      expect((await api(server, 'POST', `${PREFIX}/gpus/${index}/uncordon`)).status).toBe(200);
    expect(
      (
        await api(server, 'PUT', `${PREFIX}/tenants/${TENANT}/quota`, {
          guaranteedGpuEquivalents: 0,
          limitGpuEquivalents: null,
        })
      ).status,
    ).toBe(200);
    expect(
      (
        await api(server, 'PUT', `${PREFIX}/tenants/${TENANT}/limits`, {
          maxPriorityClass: 'high',
          requestsPerSecond: null,
          requestBurst: null,
          eventStreamsPerToken: null,
        })
      ).status,
    ).toBe(200);
    const submit = async (name: string, extra: Record<string, unknown>): Promise<number> => {
      const { status, body } = await api(server, 'POST', `${PREFIX}/jobs`, {
        command: ['sleep', '600'],
        tenant: TENANT,
        name,
        priority: 'high',
        preemptible: false,
        gpu: { gpuMilli: 100 },
        ...extra,
      });
      expect(status, JSON.stringify(body)).toBe(201);
      return body.id as number;
    };
    const runningId = await submit('qos-reporter', { qos: { stepSeconds: 1 } });
    const cancelId = await submit('to-cancel', {});
    await waitForJob(server, runningId, (job) => job.state === 'running');
    return { cancelId, runningId };
  }

  /** The examples of one run: inputs random data cannot hit (see the file's comment). */
  function examplesFor(jobs: { cancelId: number; runningId: number }, run: string): Record<string, OperationExample> {
    return {
      [`POST ${PREFIX}/jobs`]: { body: { command: ['true'], name: `example-${run}`, gpu: { gpuMilli: 100 } } },
      [`GET ${PREFIX}/jobs/{id}`]: { parameters: { id: String(jobs.runningId) } },
      [`GET ${PREFIX}/jobs/{id}/logs`]: { parameters: { id: String(jobs.runningId) } },
      [`POST ${PREFIX}/jobs/{id}/cancel`]: { parameters: { id: String(jobs.cancelId) }, body: {} },
      [`POST ${PREFIX}/jobs/{id}/qos-reports`]: {
        parameters: { id: String(jobs.runningId) },
        body: { stepSeconds: 0.5 },
      },
      [`PUT ${PREFIX}/tenants/{name}/quota`]: {
        parameters: { name: TENANT },
        body: { guaranteedGpuEquivalents: 0, limitGpuEquivalents: null },
      },
      [`POST ${PREFIX}/tenants`]: { body: { name: `example-${run}` } },
      [`POST ${PREFIX}/tokens`]: { body: { tenant: TENANT, label: `example-${run}` } },
    };
  }

  /** Writes the document with `examples` and runs Schemathesis on it with `token`. */
  async function fuzz(
    token: string,
    mode: 'all' | 'negative',
    examples: Record<string, OperationExample>,
    checks = CHECKS,
    phases?: string[],
    excludePaths = [...EXCLUDED_PATHS, ...TOKEN_CHANGE_PATHS, ...BULK_PATHS],
  ): Promise<SchemathesisRun> {
    const spec = join(work, `openapi-${mode}-${Date.now()}.json`);
    writeFileSync(spec, JSON.stringify(withExamples(openapi, examples)));
    return runSchemathesis({
      spec,
      baseUrl: server.url,
      token,
      caFile,
      mode,
      checks,
      maxExamples: MAX_EXAMPLES,
      excludePaths,
      seed: SEED,
      workDir: work,
      timeoutMs: RUN_TIMEOUT_MS,
      ...(phases === undefined ? {} : { phases }),
    });
  }

  /** `{ operation: { status: count } }` of the operations `keys`, to show what they answered instead. */
  const answers = (run: SchemathesisRun, keys: readonly string[]): Record<string, Record<number, number>> =>
    Object.fromEntries(
      keys.map((key) => [
        key,
        (run.statuses.get(key) ?? []).reduce<Record<number, number>>(
          (counts, s) => ({ ...counts, [s]: (counts[s] ?? 0) + 1 }),
          {},
        ),
      ]),
    );

  /** Operations of `run` that answered 2xx at least once. */
  const succeeded = (run: SchemathesisRun): Set<string> =>
    new Set([...run.statuses].filter(([, statuses]) => statuses.some((s) => s >= 200 && s < 300)).map(([key]) => key));

  it('lists the excluded operations in /openapi.json, and more than a dozen others', () => {
    const paths = new Set(listOperations(openapi).map((op) => op.key.split(' ')[1]));
    expect(EXCLUDED_PATHS.filter((path) => !paths.has(path))).toEqual([]);
    expect(fuzzed().length).toBeGreaterThanOrEqual(16);
  });

  it(
    'admin token: every operation answers 2xx at least once; no server error; every answer as ' + 'documented',
    async () => {
      const run = await fuzz(server.adminToken, 'all', examplesFor(await prepareJobs(), 'admin'));
      expect(run.failures).toEqual([]);
      expect(run.exitCode, run.output.slice(-6000)).toBe(0);
      const ok = succeeded(run);
      const missing = fuzzed()
        .map((op) => op.key)
        .filter((key) => !ok.has(key));
      expect(missing, JSON.stringify(answers(run, missing))).toEqual([]);
      expect(run.requests).toBeGreaterThan(fuzzed().length * 10);
    },
  );

  it(
    "tenant-admin token: every operation but the admin's answers 2xx at least once, those never; no " +
      'server error; every answer as documented',
    async () => {
      const run = await fuzz(tenantToken, 'all', examplesFor(await prepareJobs(), 'tenant'));
      expect(run.failures).toEqual([]);
      expect(run.exitCode, run.output.slice(-6000)).toBe(0);
      const ok = succeeded(run);
      const adminOnly = (summary: string): boolean => summary.includes('(admin)');
      const missing = fuzzed()
        .filter((op) => !adminOnly(op.summary) && !ok.has(op.key))
        .map((op) => op.key);
      expect(missing, JSON.stringify(answers(run, missing))).toEqual([]);
      const allowed = fuzzed()
        .filter((op) => adminOnly(op.summary) && ok.has(op.key))
        .map((op) => op.key);
      expect(allowed, JSON.stringify(answers(run, allowed))).toEqual([]);
    },
  );

  it(
    'invalid requests only (negative mode), admin and tenant token: each refused with a 4xx, and ' + 'nothing stored',
    async () => {
      // Quiet first: no job left to start or end, so that the store changes only by requests.
      const active = (await api(server, 'GET', `${PREFIX}/jobs`)).body.jobs as { id: number }[];
      for (const job of active)
        expect([200, 409]).toContain((await api(server, 'POST', `${PREFIX}/jobs/${job.id}/cancel`)).status);
      await pollFor('every job ended', async () =>
        (await api(server, 'GET', `${PREFIX}/jobs`)).body.jobs.length === 0 ? true : undefined,
      );
      const dataDir = join(server.dataDir, 'data');
      const before = snapshotStore(dataDir, REQUEST_RECORD_TABLES);
      expect(Object.keys(before.tables)).toEqual(expect.arrayContaining(['jobs', 'job_events', 'tenants', 'tokens']));
      expect(before.tables.tenants!.length).toBeGreaterThanOrEqual(2); // default and team-a
      // No examples phase (an example is a valid request) and no stateful phase (its chains send
      // valid requests between the invalid ones): coverage and fuzzing of invalid data only.
      for (const token of [server.adminToken, tenantToken]) {
        const run = await fuzz(
          token,
          'negative',
          {},
          CHECKS,
          ['coverage', 'fuzzing'],
          [...EXCLUDED_PATHS, ...TOKEN_CHANGE_PATHS],
        );
        expect(run.failures).toEqual([]);
        expect(run.exitCode, run.output.slice(-6000)).toBe(0);
        expect(run.requests).toBeGreaterThan(fuzzed().length * 5);
        expect(
          run.statuses.get(`POST ${BULK_PATHS[0]}`)?.length ?? 0,
          'the bulk cancel is in the negative run',
        ).toBeGreaterThan(0);
        // A read may answer 200 to a request Schemathesis counts as invalid (a GET with a bad
        // Content-Type and no body); a change never may.
        const changes = run.cases.filter(
          (c) => !['GET', 'HEAD'].includes(c.operation.split(' ')[0]!) && c.status < 300,
        );
        expect(changes.map((c) => `${c.phase} ${c.generationMode}: ${c.request}`)).toEqual([]);
      }
      expect(snapshotStore(dataDir, REQUEST_RECORD_TABLES)).toEqual(before);
    },
  );

  it(
    'bulk cancel, after the other runs: 2xx with the admin and the tenant token, no server error, ' +
      'every answer as documented',
    async () => {
      const onlyBulk = [...new Set(listOperations(openapi).map((op) => op.key.split(' ')[1]!))].filter(
        (path) => !BULK_PATHS.includes(path),
      );
      const keys = BULK_PATHS.map((path) => `POST ${path}`);
      for (const [token, run] of [
        [server.adminToken, 'admin'],
        [tenantToken, 'tenant'],
      ] as const) {
        const jobs = await prepareJobs();
        const result = await fuzz(
          token,
          'all',
          { [keys[0]!]: { body: { ids: [jobs.cancelId], reason: `example ${run}` } } },
          CHECKS,
          undefined,
          onlyBulk,
        );
        expect(result.failures).toEqual([]);
        expect(result.exitCode, result.output.slice(-6000)).toBe(0);
        expect(
          keys.filter((key) => !succeeded(result).has(key)),
          `${run}: ${JSON.stringify(answers(result, keys))}`,
        ).toEqual([]);
        expect((await api(server, 'GET', `${PREFIX}/jobs/${jobs.cancelId}`)).body.state).toBe('cancelled');
      }
      // Quiet again for the runs below (the drain expects no running job).
      const left = await api(server, 'POST', `${PREFIX}/jobs/cancel`, {
        state: ['pending', 'preempted', 'scheduled', 'running'],
      });
      expect(left.status).toBe(200);
      await pollFor('every job ended', async () =>
        (await api(server, 'GET', `${PREFIX}/jobs`)).body.jobs.length === 0 ? true : undefined,
      );
    },
  );

  it(
    'token revoke and rotate, on a server of their own: 2xx on throwaway tokens, no server error, ' +
      'every answer as documented; invalid requests change nothing',
    async () => {
      // Random ids revoke and rotate whatever tokens exist, the caller's included: a second server
      // takes that, so the runs above and below keep their tokens.
      const scratch = await startServe({ simulateGpus: '1xA100-80GB', config: UNTHROTTLED });
      try {
        const scratchCa = scratch.caCert === null ? null : join(work, 'scratch-ca.crt');
        if (scratchCa !== null) writeFileSync(scratchCa, scratch.caCert!);
        expect((await api(scratch, 'POST', `${PREFIX}/tenants`, { name: TENANT })).status).toBe(201);
        const newToken = async (body: Record<string, unknown>): Promise<{ id: number; token: string }> => {
          const { status, body: created } = await api(scratch, 'POST', `${PREFIX}/tokens`, body);
          expect(status, JSON.stringify(created)).toBe(201);
          return created as { id: number; token: string };
        };
        const onlyTokenChanges = [...new Set(listOperations(openapi).map((op) => op.key.split(' ')[1]!))].filter(
          (path) => !TOKEN_CHANGE_PATHS.includes(path),
        );
        const keys = TOKEN_CHANGE_PATHS.map((path) => `POST ${path}`);
        // Every token first: a tenant-admin cannot revoke an admin's or another tenant-admin's, so it
        // goes first; the admin's run may then revoke anything.
        const runs = [];
        for (const role of ['tenant-admin', 'admin'] as const) {
          runs.push({
            role,
            caller: await newToken(
              role === 'admin'
                ? { role: 'admin', label: 'fuzz caller' }
                : { tenant: TENANT, role: 'tenant-admin', label: 'fuzz caller' },
            ),
            victims: [
              await newToken({ tenant: TENANT, label: 'to revoke' }),
              await newToken({ tenant: TENANT, label: 'to rotate' }),
            ],
          });
        }
        const scratchData = join(scratch.dataDir, 'data');
        for (const { role, caller, victims } of runs) {
          const run = async (
            mode: 'all' | 'negative',
            examples: Record<string, OperationExample>,
            checks: string[],
            phases?: string[],
          ): Promise<SchemathesisRun> => {
            const spec = join(work, `openapi-tokens-${role}-${mode}.json`);
            writeFileSync(spec, JSON.stringify(withExamples(openapi, examples)));
            return runSchemathesis({
              spec,
              baseUrl: scratch.url,
              token: caller.token,
              caFile: scratchCa,
              mode,
              checks,
              maxExamples: MAX_EXAMPLES,
              excludePaths: onlyTokenChanges,
              seed: SEED,
              workDir: work,
              timeoutMs: RUN_TIMEOUT_MS,
              ...(phases === undefined ? {} : { phases }),
            });
          };
          const before = snapshotStore(scratchData, REQUEST_RECORD_TABLES);
          const negative = await run('negative', {}, CHECKS, ['coverage', 'fuzzing']);
          expect(negative.failures).toEqual([]);
          expect(negative.exitCode, negative.output.slice(-6000)).toBe(0);
          expect(negative.cases.filter((c) => c.status < 300).map((c) => c.request)).toEqual([]);
          expect(snapshotStore(scratchData, REQUEST_RECORD_TABLES)).toEqual(before);
          const all = await run(
            'all',
            {
              [keys[0]!]: { parameters: { id: String(victims[0]!.id) }, body: {} },
              [keys[1]!]: { parameters: { id: String(victims[1]!.id) }, body: {} },
            },
            CHECKS,
          );
          expect(all.failures).toEqual([]);
          expect(all.exitCode, all.output.slice(-6000)).toBe(0);
          const ok = succeeded(all);
          expect(
            keys.filter((key) => !ok.has(key)),
            `${role}: ${JSON.stringify(answers(all, keys))}`,
          ).toEqual([]);
          // The throwaway tokens changed as asked: the revoked one, and the rotated one's old secret, get 401.
          for (const victim of victims)
            expect((await api(scratch, 'GET', `${PREFIX}/jobs`, undefined, victim.token)).status).toBe(401);
        }
      } finally {
        await cleanupServe(scratch);
      }
    },
  );

  it('POST /backup by hand: refused paths and tokens store nothing; a new path gets a copy', async () => {
    const dataDir = join(server.dataDir, 'data');
    const before = snapshotStore(dataDir, REQUEST_RECORD_TABLES);
    const existing = join(work, 'ca-or-any-file');
    writeFileSync(existing, 'keep me');
    const refused = [
      { token: tenantToken, body: { path: join(work, 'by-tenant.db') }, status: 403, code: 'GPUSHARE_FORBIDDEN' },
      { token: server.adminToken, body: { path: 'relative.db' }, status: 400, code: 'GPUSHARE_INVALID_FIELD' },
      // A path the schema allows but the file system refuses (it exists, its folder does not): 422.
      { token: server.adminToken, body: { path: existing }, status: 422, code: 'GPUSHARE_INVALID_FIELD' },
      {
        token: server.adminToken,
        body: { path: join(work, 'no-such-dir', 'x.db') },
        status: 422,
        code: 'GPUSHARE_INVALID_FIELD',
      },
      {
        token: server.adminToken,
        body: { path: join(work, 'x.db'), extra: 1 },
        status: 400,
        code: 'GPUSHARE_INVALID_FIELD',
      },
    ];
    for (const { token, body, status, code } of refused) {
      const answer = await api(server, 'POST', `${PREFIX}/backup`, body, token);
      expect([answer.status, answer.body.error.code], JSON.stringify(body)).toEqual([status, code]);
    }
    expect(snapshotStore(dataDir, REQUEST_RECORD_TABLES)).toEqual(before);
    const path = join(work, 'backup.db');
    const done = await api(server, 'POST', `${PREFIX}/backup`, { path });
    expect(done.status).toBe(200);
    expect(done.body.path).toBe(path);
    expect(done.body.bytes).toBeGreaterThan(4096);
    expect(snapshotStore(dataDir, REQUEST_RECORD_TABLES)).toEqual(before);
  });

  it(
    'POST /drain by hand: a tenant is refused and nothing changes; the admin drains, and the idle ' + 'server exits',
    async () => {
      const refused = await api(server, 'POST', `${PREFIX}/drain`, undefined, tenantToken);
      expect([refused.status, refused.body.error.code]).toEqual([403, 'GPUSHARE_FORBIDDEN']);
      expect((await api(server, 'GET', `${PREFIX}/status`)).body.draining).toBe(false);
      const drained = await api(server, 'POST', `${PREFIX}/drain`);
      expect([drained.status, drained.body]).toEqual([202, { draining: true, running: 0 }]);
      const exitCode = await pollFor('the drained server to exit', () => server.process.exitCode ?? undefined, 30_000);
      expect(exitCode).toBe(0);
    },
  );
});
