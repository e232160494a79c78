/**
 * `POST /api/v1/backup` and `POST /api/v1/drain` under Schemathesis (`npm run test:api`;
 * docs/api-fuzzing.md), with every check, once per seed, on a server of their own:
 *
 * - The server runs under bubblewrap with the whole file system read-only but for its temporary
 *   folder and the cgroup controllers its jobs need (`--ro-bind / /`, a private /dev and /proc), so
 *   that a backup to any path a fuzzer makes up either lands in that folder or is refused (EROFS,
 *   EACCES: 422 naming `path`). Nothing outside is written.
 * - Backup: a run of invalid requests only (`--mode negative`), with each token, answers no invalid
 *   request with 2xx and changes nothing in the store; a tenant-admin's run never answers 2xx; an
 *   admin's run does, and its example's path gets a copy of the store.
 * - Drain: a running job keeps the drained server up (it waits for running jobs), so the runs go on
 *   after the first drain: a tenant-admin's runs first (never 2xx, still not draining), then an
 *   admin's invalid requests (none answered 2xx) and all requests (202). Cancelling the job then
 *   lets the server exit with code 0.
 */
import {
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
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
import { resolveExecutable } from '../../src/host/resolve-executable.js';
import { listOperations, withExamples, type OperationExample } from './support/openapi-examples.js';
import {
  fuzzSeeds,
  runSchemathesis,
  schemathesisExecutable,
  type SchemathesisRun,
} from './support/schemathesis-runner.js';
import { snapshotStore } from './support/store-snapshot.js';

/* eslint-disable @typescript-eslint/no-explicit-any -- API bodies and the document are read field by field */

const PREFIX = '/api/v1';
const BACKUP = `${PREFIX}/backup`;
const DRAIN = `${PREFIX}/drain`;
const BWRAP = '/usr/bin/bwrap';
const TENANT = 'team-a';
const MAX_EXAMPLES = Number(process.env.GPUSHARE_SCHEMATHESIS_MAX_EXAMPLES ?? 20);
const RUN_TIMEOUT_MS = 240_000;
/** Audit tables record refused calls too: left out of the "nothing stored" comparison. */
const REQUEST_RECORD_TABLES = /^audit/;

const available =
  requireTool(schemathesisExecutable(), 'scripts/install-schemathesis.sh') &&
  requireTool(BWRAP, 'apt-get install bubblewrap');

/**
 * bwrap arguments that run a program with `/` read-only but `writable` (folders) and the cgroup
 * controllers under /sys/fs/cgroup (whose own folder stays read-only), a private /dev and /proc, and
 * that end it when the caller dies.
 */
function readOnlyRoot(writable: readonly string[]): string[] {
  const controllers = readdirSync('/sys/fs/cgroup', { withFileTypes: true })
    .filter((entry) => entry.isDirectory())
    .map((entry) => join('/sys/fs/cgroup', entry.name));
  return [
    BWRAP,
    '--ro-bind',
    '/',
    '/',
    '--dev',
    '/dev',
    '--proc',
    '/proc',
    ...[...writable, ...controllers].flatMap((folder) => ['--bind', folder, folder]),
    '--die-with-parent',
    '--',
  ];
}

describe.skipIf(!available).each(fuzzSeeds())('backup and drain under Schemathesis, seed %i', (seed) => {
  let server: ServeHandle;
  let work: string;
  let caFile: string | null;
  let tenantToken: string;
  let openapi: any;

  beforeAll(async () => {
    work = mkdtempSync(join(tmpdir(), 'gpushare-schemathesis-admin-'));
    const bin = join(work, 'bin');
    mkdirSync(bin);
    for (const program of ['sleep', 'true'])
      symlinkSync(resolveExecutable(program, '/', { PATH: process.env.PATH ?? '/usr/bin:/bin' })!, join(bin, program));
    const dataDir = join(work, 'server');
    mkdirSync(dataDir);
    server = await startServe({
      simulateGpus: '1xA100-80GB',
      dataDir,
      env: { PATH: bin },
      config: { requestsPerSecond: 100_000, requestBurst: 100_000 },
      wrap: readOnlyRoot([work]),
    });
    caFile = server.caCert === null ? null : join(work, 'ca.crt');
    if (caFile !== null) writeFileSync(caFile, server.caCert!);
    expect((await api(server, 'POST', `${PREFIX}/tenants`, { name: TENANT })).status).toBe(201);
    const token = await api(server, 'POST', `${PREFIX}/tokens`, {
      tenant: TENANT,
      role: 'tenant-admin',
      label: 'fuzz',
    });
    expect(token.status).toBe(201);
    tenantToken = token.body.token;
    openapi = await (await serverFetch(server, '/openapi.json')).json();
  });

  afterAll(async () => {
    if (server) await cleanupServe(server);
    if (work) rmSync(work, { recursive: true, force: true });
  });

  /** Runs Schemathesis with every check on the one operation at `path`, with `examples`. */
  async function fuzz(
    path: string,
    token: string,
    mode: 'all' | 'negative',
    examples: Record<string, OperationExample> = {},
  ): Promise<SchemathesisRun> {
    const others = [...new Set(listOperations(openapi).map((op) => op.key.split(' ')[1]!))].filter((p) => p !== path);
    const spec = join(work, `openapi-${Date.now()}.json`);
    writeFileSync(spec, JSON.stringify(withExamples(openapi, examples)));
    const run = await runSchemathesis({
      spec,
      baseUrl: server.url,
      token,
      caFile,
      mode,
      checks: ['all'],
      maxExamples: MAX_EXAMPLES,
      excludePaths: others,
      seed,
      workDir: work,
      timeoutMs: RUN_TIMEOUT_MS,
      // Invalid requests only: no examples (valid), no stateful chains (valid steps between).
      ...(mode === 'negative' ? { phases: ['coverage', 'fuzzing'] } : {}),
    });
    expect(run.failures).toEqual([]);
    expect(run.exitCode, run.output.slice(-6000)).toBe(0);
    expect(run.requests).toBeGreaterThan(5);
    return run;
  }

  const successes = (run: SchemathesisRun): string[] =>
    run.cases
      .filter((c) => c.status >= 200 && c.status < 300)
      .map((c) => `${c.phase} ${c.generationMode}: ${c.request}`);

  it('backup: invalid requests change nothing; a tenant-admin never backs up; an admin does', async () => {
    const dataDir = join(server.dataDir, 'data');
    const before = snapshotStore(dataDir, REQUEST_RECORD_TABLES);
    for (const token of [server.adminToken, tenantToken])
      expect(successes(await fuzz(BACKUP, token, 'negative')).filter((c) => c.includes(' negative: '))).toEqual([]);
    expect(snapshotStore(dataDir, REQUEST_RECORD_TABLES)).toEqual(before);
    const byTenant = join(work, 'by-tenant.db');
    const tenantRun = await fuzz(BACKUP, tenantToken, 'all', { [`POST ${BACKUP}`]: { body: { path: byTenant } } });
    expect(successes(tenantRun)).toEqual([]);
    expect(existsSync(byTenant)).toBe(false);
    const byAdmin = join(work, 'by-admin.db');
    const adminRun = await fuzz(BACKUP, server.adminToken, 'all', { [`POST ${BACKUP}`]: { body: { path: byAdmin } } });
    expect(successes(adminRun).length).toBeGreaterThan(0);
    // The example's path got a copy of the store: an SQLite file.
    expect(readFileSync(byAdmin).subarray(0, 16).toString('latin1')).toBe('SQLite format 3\0');
  });

  it('drain: a tenant-admin never drains; an admin does, and the idle server exits 0', async () => {
    const job = await api(server, 'POST', `${PREFIX}/jobs`, {
      command: ['sleep', '600'],
      gpu: { gpuMilli: 100 },
      name: 'keeps-the-server-up',
    });
    expect(job.status).toBe(201);
    await waitForJob(server, job.body.id, (j) => j.state === 'running');
    const draining = async (): Promise<boolean> => (await api(server, 'GET', `${PREFIX}/status`)).body.draining;
    // The tenant-admin's runs first: nothing they send drains.
    expect(successes(await fuzz(DRAIN, tenantToken, 'negative'))).toEqual([]);
    expect(successes(await fuzz(DRAIN, tenantToken, 'all'))).toEqual([]);
    expect(await draining()).toBe(false);
    // A negative run also sends valid requests where it finds nothing to break (no body at all):
    // those may drain, its invalid ones never answer 2xx.
    const invalid = await fuzz(DRAIN, server.adminToken, 'negative');
    expect(successes(invalid).filter((c) => c.includes(' negative: '))).toEqual([]);
    const adminRun = await fuzz(DRAIN, server.adminToken, 'all');
    expect(adminRun.cases.filter((c) => c.status === 202).length).toBeGreaterThan(0);
    expect(await draining()).toBe(true);
    expect((await api(server, 'POST', `${PREFIX}/jobs/${job.body.id}/cancel`)).status).toBe(200);
    const exitCode = await pollFor('the drained server to exit', () => server.process.exitCode ?? undefined, 30_000);
    expect(exitCode).toBe(0);
  });
});
