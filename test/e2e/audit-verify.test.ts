/**
 * End-to-end: a real server builds an audit log (tenant, token, submits, a cancel, a cordon, the
 * GPU actions of the jobs), `gpushare audit list` and `export` read it through the API, then the
 * server stops. For each tampering, done on a copy of the SQLite file as an attacker would (the
 * append-only triggers dropped first), `gpushare audit verify` exits 4 naming the first bad entry;
 * an untouched copy verifies with exit 0.
 */
import { createHash } from 'node:crypto';
import { copyFileSync, existsSync, mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  api,
  cleanupServe,
  cli,
  shellJob,
  startServe,
  stopServe,
  type ServeHandle,
  waitForJob,
} from './support/serve-harness.js';

/* eslint-disable @typescript-eslint/no-explicit-any -- API bodies are checked field by field */

let server: ServeHandle | null = null;
let entries = 0;
let tokenSecret = '';
const copies: string[] = [];

/** The hash of a row by the algorithm docs/security.md documents (written out here, not imported). */
function documentedHash(prev: string, r: any): string {
  const fields =
    `[${r.seq},${r.at_ms},${JSON.stringify(r.actor)},${JSON.stringify(r.role)},` +
    `${JSON.stringify(r.tenant)},${JSON.stringify(r.action)},${JSON.stringify(r.target)},${r.summary},` +
    `${r.outcome}]`;
  return createHash('sha256').update(`${prev}\n${fields}`, 'utf8').digest('hex');
}

/** A copy of the stopped server's store and journal, tampered with by `tamper` (triggers dropped first). */
function tamperedCopy(tamper: (db: Database.Database) => void): string {
  const dir = mkdtempSync(join(tmpdir(), 'gpushare-audit-tamper-'));
  copies.push(dir);
  const data = join(server!.dataDir, 'data');
  for (const name of ['gpushare.db', 'audit-head']) copyFileSync(join(data, name), join(dir, name));
  const db = new Database(join(dir, 'gpushare.db'));
  db.exec('DROP TRIGGER audit_log_no_update; DROP TRIGGER audit_log_no_delete;');
  tamper(db);
  db.close();
  return dir;
}

const verify = (dir: string, ...args: string[]) => cli(server!, ['audit', 'verify', '--data-dir', dir, ...args]);

beforeAll(async () => {
  server = await startServe({ simulateGpus: '2xA100-80GB' });
  expect((await api(server, 'POST', '/api/v1/tenants', { name: 'team-a' })).status).toBe(201);
  const token = (await api(server, 'POST', '/api/v1/tokens', { tenant: 'team-a', role: 'tenant-admin', label: 'ci' }))
    .body;
  tokenSecret = token.token;
  for (let i = 0; i < 3; i++) {
    expect(
      (
        await api(
          server,
          'POST',
          '/api/v1/jobs',
          shellJob('sleep 600', { gpuCount: 1 }, { environment: { SECRET_KEY: 'hunter2' } }),
          token.token,
        )
      ).status,
    ).toBe(201);
  }
  await waitForJob(server, 1, (j) => j.state === 'running');
  await waitForJob(server, 2, (j) => j.state === 'running');
  expect((await api(server, 'POST', '/api/v1/jobs/3/cancel', undefined, token.token)).status).toBe(200);
  expect((await api(server, 'POST', '/api/v1/gpus/1/cordon')).status).toBe(200);
  expect((await api(server, 'POST', '/api/v1/gpus/0/cordon', undefined, token.token)).status).toBe(403);
  expect((await api(server, 'POST', '/api/v1/jobs/1/cancel')).status).toBe(200);
  await waitForJob(server, 1, (j) => j.state === 'cancelled');
});

afterAll(async () => {
  if (server) await cleanupServe(server);
  for (const dir of copies) rmSync(dir, { recursive: true, force: true });
});

describe('gpushare audit', () => {
  it('lists and exports the log through the API, and verifies it while the server runs', () => {
    const listed = cli(server!, ['audit', 'list', '--limit', '1000', '-o', 'json']);
    expect(listed.code).toBe(0);
    const list = JSON.parse(listed.stdout) as any[];
    entries = list.length;
    const actions = list.map((e) => `${e.action} ${e.target} ${e.outcome.result}`);
    for (const expected of [
      'tenant.create tenant team-a ok',
      'token.create token 2 ok',
      'job.submit job 1 ok',
      'job.submit job 3 ok',
      'gpu.allocate job 1 ok',
      'job.launch job 2 ok',
      'job.cancel job 3 ok',
      'gpu.cordon gpu 1 ok',
      'gpu.cordon gpu 0 denied',
      'job.cancel job 1 ok',
    ])
      expect(actions).toContain(expected);
    expect(list.map((e) => e.seq)).toEqual(list.map((_, i) => i + 1));
    // The first start made admin token 1: the server's own action, the first entry.
    expect([
      list[0].seq,
      list[0].actor,
      list[0].role,
      list[0].tenant,
      list[0].action,
      list[0].target,
      list[0].summary,
      list[0].outcome,
    ]).toEqual([
      1,
      'server',
      'server',
      null,
      'token.create',
      'token 1',
      { reason: 'server start: the admin-token file was missing', role: 'admin' },
      { result: 'ok', httpStatus: null, message: null },
    ]);
    expect(list.find((e) => e.action === 'job.submit').actor).toBe('tenant-admin token 2 of team-a');
    expect(listed.stdout).not.toContain('hunter2');
    expect(listed.stdout).not.toContain(tokenSecret);
    const table = cli(server!, ['audit', 'list', '--since', '1h']);
    expect(table.stdout.split('\n')[0]).toMatch(/^SEQ +TIME +ACTOR +TENANT +ACTION +TARGET +OUTCOME$/);
    const file = join(server!.dataDir, 'audit.jsonl');
    const exported = cli(server!, ['audit', 'export', '--output', file]);
    expect([exported.code, exported.stderr]).toEqual([0, `exported ${entries} entries to ${file}\n`]);
    expect(
      readFileSync(file, 'utf8')
        .trim()
        .split('\n')
        .map((line) => JSON.parse(line).hash),
    ).toEqual(list.map((e) => e.hash));
    expect(statSync(file).mode & 0o777).toBe(0o600);
    const running = verify(join(server!.dataDir, 'data'));
    expect(running.code).toBe(0);
    expect(running.stdout).toMatch(/^\d+ entries verified, head \d+ [0-9a-f]{64}\n/);
  });

  it('verifies the untouched log of a stopped server with exit 0, every entry witnessed by the journal', async () => {
    expect(await stopServe(server!)).toBe(0);
    const data = join(server!.dataDir, 'data');
    expect(statSync(join(data, 'audit-head')).mode & 0o777).toBe(0o600);
    const journal = readFileSync(join(data, 'audit-head'), 'utf8').trim().split('\n');
    const last = journal.at(-1)!.split(' ');
    expect(Number(last[0])).toBeGreaterThanOrEqual(entries);
    const result = verify(data);
    expect([result.code, result.stdout]).toEqual([0, `${last[0]} entries verified, head ${last[0]} ${last[1]}\n`]);
    const json = JSON.parse(verify(data, '-o', 'json').stdout);
    expect([json.ok, json.entries, json.witnessedThroughSeq, json.firstBad]).toEqual([
      true,
      Number(last[0]),
      Number(last[0]),
      null,
    ]);
    entries = Number(last[0]);
    expect(entries).toBeGreaterThanOrEqual(12);
  });

  const cases: [string, (db: Database.Database) => void, () => number, string][] = [
    [
      'an edited row (target)',
      (db) => db.prepare("UPDATE audit_log SET target = 'job 99' WHERE seq = 3").run(),
      () => 3,
      'edited',
    ],
    ['a deleted middle row', (db) => db.prepare('DELETE FROM audit_log WHERE seq = 5').run(), () => 5, 'missing'],
    [
      'two swapped rows',
      (db) => {
        const columns = 'at_ms, actor, role, tenant, action, target, summary, outcome, prev_hash, hash';
        const read = (seq: number) =>
          db.prepare(`SELECT ${columns} FROM audit_log WHERE seq = ?`).get(seq) as Record<string, unknown>;
        const [two, six] = [read(2), read(6)];
        const write = db.prepare(
          `UPDATE audit_log SET ${columns
            .split(', ')
            .map((c) => `${c} = @${c}`)
            .join(', ')} WHERE seq = @seq`,
        );
        write.run({ ...six, seq: 2 });
        write.run({ ...two, seq: 6 });
      },
      () => 2,
      'broken-link',
    ],
    [
      'the newest 3 rows deleted',
      (db) => db.prepare('DELETE FROM audit_log WHERE seq > ?').run(entries - 3),
      () => entries - 2,
      'truncated',
    ],
    [
      'a row edited and the whole chain re-hashed',
      (db) => {
        db.prepare("UPDATE audit_log SET actor = 'nobody' WHERE seq = 4").run();
        const rows = db.prepare('SELECT * FROM audit_log ORDER BY seq').all() as any[];
        const update = db.prepare('UPDATE audit_log SET prev_hash = ?, hash = ? WHERE seq = ?');
        let prev = '0'.repeat(64);
        for (const row of rows) {
          const hash = documentedHash(prev, row);
          update.run(prev, hash, row.seq);
          prev = hash;
        }
      },
      () => 4,
      'rewritten',
    ],
  ];
  for (const [name, tamper, firstBad, problem] of cases) {
    it(`fails ${name} with exit 4, naming the first bad entry (${problem})`, () => {
      const dir = tamperedCopy(tamper);
      const result = verify(dir);
      expect(result.code).toBe(4);
      expect(result.stdout).toContain(`audit log FAILED verification: first bad entry ${firstBad()} (${problem}): `);
      const json = JSON.parse(verify(dir, '-o', 'json').stdout);
      expect([json.ok, json.firstBad.seq, json.firstBad.problem]).toEqual([false, firstBad(), problem]);
    });
  }

  it('fails a log whose journal was deleted', () => {
    const dir = tamperedCopy(() => undefined);
    rmSync(join(dir, 'audit-head'));
    expect(existsSync(join(dir, 'audit-head'))).toBe(false);
    const result = verify(dir);
    expect([result.code, result.stdout.split('\n')[0]]).toEqual([
      4,
      `audit log FAILED verification: first bad entry 1 (journal-missing): the audit-head journal is ` +
        `missing while the store has ${entries} entries: nothing witnesses them (deleted journal?)`,
    ]);
  });
});
