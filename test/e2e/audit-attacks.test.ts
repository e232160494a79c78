/**
 * End-to-end: the four attacks on the audit log's witnesses, each on a copy of a stopped real
 * server's data directory, as the server's own user would make them: (1) the journal emptied and the
 * newest entries deleted, (2) the journal emptied and an entry edited with the chain re-hashed, (3) a
 * garbage line in the journal, (4) the append-only triggers dropped and an entry edited. For each,
 * `gpushare audit verify` exits 4 naming the problem's code (text and JSON), and the real server
 * refuses to start on it (exit 1, naming the problem and `gpushare audit verify`). Started with
 * `--accept-audit-problems`, it records an `audit.accept-problems` entry naming the problems,
 * restores the triggers and writes the journal anew; the next start needs no override.
 */
import { createHash } from 'node:crypto';
import { appendFileSync, cpSync, mkdtempSync, readdirSync, readFileSync, rmSync, truncateSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { api, cleanupServe, cli, startServe, stopServe, type ServeHandle } from './support/serve-harness.js';

/* eslint-disable @typescript-eslint/no-explicit-any -- API bodies and stored rows are checked field by field */

let server: ServeHandle | null = null;
let entries = 0;
const copies: string[] = [];

/** The hash of a row by the algorithm docs/security.md documents (written out here, not imported). */
function documentedHash(prev: string, r: any): string {
  const fields =
    `[${r.seq},${r.at_ms},${JSON.stringify(r.actor)},${JSON.stringify(r.role)},` +
    `${JSON.stringify(r.tenant)},${JSON.stringify(r.action)},${JSON.stringify(r.target)},${r.summary},` +
    `${r.outcome}]`;
  return createHash('sha256').update(`${prev}\n${fields}`, 'utf8').digest('hex');
}

/** Re-hashes the whole chain of `db` (its triggers dropped) as an attacker with the documentation would. */
function rehashChain(db: Database.Database): void {
  const rows = db.prepare('SELECT * FROM audit_log ORDER BY seq').all() as any[];
  const update = db.prepare('UPDATE audit_log SET prev_hash = ?, hash = ? WHERE seq = ?');
  let prev = '0'.repeat(64);
  for (const row of rows) {
    const hash = documentedHash(prev, row);
    update.run(prev, hash, row.seq);
    prev = hash;
  }
}

/**
 * A copy of the stopped server's data directory (`<copy>/data`, as startServe lays it out), its store
 * changed by `tamper` (triggers dropped first; made again unless `keepTriggersDropped`) and its
 * journal by `journal`.
 */
function tamperedCopy(
  tamper: (db: Database.Database) => void,
  journal: (path: string) => void,
  keepTriggersDropped = false,
): string {
  const root = mkdtempSync(join(tmpdir(), 'gpushare-audit-attack-'));
  copies.push(root);
  const data = join(root, 'data');
  cpSync(join(server!.dataDir, 'data'), data, {
    recursive: true,
    filter: (source) => !source.includes(`${join(server!.dataDir, 'data')}/supervisor`),
  });
  const db = new Database(join(data, 'gpushare.db'));
  const triggers = db
    .prepare("SELECT sql FROM sqlite_master WHERE type = 'trigger' AND tbl_name = 'audit_log'")
    .all()
    .map((r: any) => r.sql as string);
  db.exec('DROP TRIGGER audit_log_no_update; DROP TRIGGER audit_log_no_delete;');
  tamper(db);
  if (!keepTriggersDropped) for (const sql of triggers) db.exec(sql);
  db.close();
  journal(join(data, 'audit-head'));
  return root;
}

const verify = (root: string, ...args: string[]) =>
  cli(server!, ['audit', 'verify', '--data-dir', join(root, 'data'), ...args]);

/** Starts the real server on `root`; resolves with its exit code and output when it exits instead. */
async function startRefused(root: string): Promise<string> {
  const started = await startServe({ dataDir: root, simulateGpus: '1xA100-80GB' }).then(
    async (handle) => {
      await cleanupServe(handle);
      return 'started';
    },
    (error: Error) => error.message,
  );
  return started;
}

beforeAll(async () => {
  server = await startServe({ simulateGpus: '1xA100-80GB' });
  expect((await api(server, 'POST', '/api/v1/tenants', { name: 'team-a' })).status).toBe(201);
  // More than one journal batch (100 entries): cordon and uncordon the GPU.
  for (let i = 0; i < 70; i++) {
    expect((await api(server, 'POST', '/api/v1/gpus/0/cordon')).status).toBe(200);
    expect((await api(server, 'POST', '/api/v1/gpus/0/uncordon')).status).toBe(200);
  }
  expect(await stopServe(server)).toBe(0);
  const journal = readFileSync(join(server.dataDir, 'data', 'audit-head'), 'utf8')
    .trim()
    .split('\n');
  entries = Number(journal.at(-1)!.split(' ')[0]);
  expect(entries).toBeGreaterThan(140);
  expect(journal[0]).toBe(`0 ${'0'.repeat(64)}`);
}, 120_000);

afterAll(async () => {
  if (server) await cleanupServe(server);
  for (const dir of copies) rmSync(dir, { recursive: true, force: true });
});

describe('attacks on the audit log witnesses', () => {
  const attacks: [string, () => string, string[]][] = [
    [
      '(1) the journal emptied and the newest 5 entries deleted',
      () =>
        tamperedCopy(
          (db) => db.prepare('DELETE FROM audit_log WHERE seq > ?').run(entries - 5),
          (path) => truncateSync(path, 0),
        ),
      ['journal-empty'],
    ],
    [
      '(2) the journal emptied and entry 4 edited with the chain re-hashed',
      () =>
        tamperedCopy(
          (db) => {
            db.prepare("UPDATE audit_log SET actor = 'nobody' WHERE seq = 4").run();
            rehashChain(db);
          },
          (path) => truncateSync(path, 0),
        ),
      ['journal-empty'],
    ],
    [
      '(3) a garbage line appended to the journal',
      () =>
        tamperedCopy(
          () => undefined,
          (path) => appendFileSync(path, 'garbage\n'),
        ),
      ['journal-unparsable'],
    ],
    [
      '(4) the triggers dropped, then entry 3 edited',
      () =>
        tamperedCopy(
          (db) => db.prepare("UPDATE audit_log SET target = 'job 99' WHERE seq = 3").run(),
          () => undefined,
          true,
        ),
      ['triggers-missing'],
    ],
  ];
  for (const [name, make, codes] of attacks) {
    it(`${name}: verify names ${codes.join(', ')} with exit 4, and the server refuses to start`, async () => {
      const root = make();
      const text = verify(root);
      expect(text.code).toBe(4);
      for (const code of codes) expect(text.stdout).toContain(`audit log FAILED verification: ${code}`);
      const json = JSON.parse(verify(root, '-o', 'json').stdout);
      expect(json.ok).toBe(false);
      expect(json.problems.map((p: any) => p.problem)).toEqual(expect.arrayContaining(codes));
      const refused = await startRefused(root);
      expect(refused).toMatch(/^serve exited with 1: /);
      expect(refused).toContain('error: the audit log fails its check at start: ');
      for (const code of codes) expect(refused).toContain(`${code}`);
      expect(refused).toContain(`gpushare audit verify --data-dir ${join(root, 'data')}`);
      expect(refused).toContain('--accept-audit-problems');
      // The refused start changed nothing: verify still names the same problems.
      expect(JSON.parse(verify(root, '-o', 'json').stdout).problems).toEqual(json.problems);
    });
  }

  it('names the line of a garbage line and the triggers with their names (JSON)', () => {
    const garbage = tamperedCopy(
      () => undefined,
      (path) => appendFileSync(path, 'garbage\n'),
    );
    const line = readFileSync(join(garbage, 'data', 'audit-head'), 'utf8')
      .trim()
      .split('\n').length;
    expect(JSON.parse(verify(garbage, '-o', 'json').stdout).problems).toEqual([
      {
        problem: 'journal-unparsable',
        seq: null,
        lineNumber: line,
        message: `the audit-head journal line ${line} is not "seq hash": "garbage"`,
      },
    ]);
    const dropped = tamperedCopy(
      (db) => db.prepare("UPDATE audit_log SET target = 'job 99' WHERE seq = 3").run(),
      () => undefined,
      true,
    );
    const json = JSON.parse(verify(dropped, '-o', 'json').stdout);
    expect(json.problems.map((p: any) => [p.problem, p.seq])).toEqual([
      ['edited', 3],
      ['triggers-missing', null],
      ['triggers-missing', null],
    ]);
    expect(json.problems[1].message).toMatch(/^the append-only trigger audit_log_no_update of audit_log is missing/);
  });

  it(
    'starts with --accept-audit-problems: records audit.accept-problems, keeps the old journal, restores the ' +
      'triggers; the next start needs no override',
    async () => {
      const root = tamperedCopy(
        (db) => db.prepare('DELETE FROM audit_log WHERE seq > ?').run(entries - 5),
        (path) => truncateSync(path, 0),
        true,
      );
      const accepted = await startServe({
        dataDir: root,
        simulateGpus: '1xA100-80GB',
        extraArgs: ['--accept-audit-problems'],
      });
      try {
        const list = (await api(accepted, 'GET', '/api/v1/audit?newest=true&limit=10')).body.entries as any[];
        const entry = list.find((e) => e.action === 'audit.accept-problems');
        expect(entry.seq).toBe(entries - 4);
        expect([entry.actor, entry.role, entry.target, entry.outcome.result]).toEqual([
          'server',
          'server',
          'audit log',
          'ok',
        ]);
        expect(entry.summary.problems).toEqual([
          { problem: 'journal-empty', seq: null, lineNumber: null },
          { problem: 'triggers-missing', seq: null, lineNumber: null },
          { problem: 'triggers-missing', seq: null, lineNumber: null },
        ]);
        expect(entry.summary.triggersRestored).toEqual(['audit_log_no_update', 'audit_log_no_delete']);
        expect(entry.summary.journalKeptAs).toMatch(/\/audit-head\.replaced-\d{4}-\d\d-\d\dT\d\d-\d\d-\d\d\.\d{3}Z$/);
        expect(readdirSync(join(root, 'data')).filter((f) => f.startsWith('audit-head.replaced-'))).toHaveLength(1);
        expect(await stopServe(accepted)).toBe(0);
        const after = verify(root);
        expect([after.code, after.stdout]).toEqual([0, expect.stringMatching(/^\d+ entries verified, head \d+ /)]);
        const again = await startServe({ dataDir: root, simulateGpus: '1xA100-80GB' });
        expect(again.url).toMatch(/^https:\/\/127\.0\.0\.1:\d+$/);
        await cleanupServe(again);
      } finally {
        await cleanupServe(accepted);
      }
    },
  );
});
