/**
 * The audit log on a real SQLite file and in memory (same listing results), the append-only
 * triggers, and the head journal file (batches, the delay, close, reading it back).
 */
import { mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { GENESIS_HASH } from '../../app/audit/audit-chain.js';
import { verifyAuditChain } from '../../app/audit/audit-verification.js';
import type { AuditLog, NewAuditEntry } from '../../app/ports/audit-log.js';
import { parseAuditHeadLines } from '../../app/audit/audit-head-lines.js';
import { openAuditHeadJournal, readAuditHeadJournal, writeAuditHeadJournal } from './audit-head-journal.js';
import { missingAuditTriggers, restoreAuditTriggers } from './audit-triggers.js';
import { createMemoryAuditLog } from './memory-audit-log.js';
import { createSqliteAuditLog, readAuditRows } from './sqlite-audit-log.js';
import { openSqliteStore, type SqliteStateStore } from './sqlite-store.js';
import { WAIT_MS } from '../../testing/deadlines.js';

const entry = (i: number): NewAuditEntry => ({
  atMs: 1000 * i,
  actor: `tenant-admin token ${i} of t${i % 3}`,
  role: 'tenant-admin',
  tenant: `t${i % 3}`,
  action: i % 2 === 0 ? 'job.cancel' : 'job.submit',
  target: `job ${i}`,
  summary: { method: 'POST', route: '/api/v1/jobs', body: { environment: ['A', 'B'], quota: 0.25 } },
  outcome: {
    result: i === 4 ? 'denied' : 'ok',
    httpStatus: i === 4 ? 403 : 200,
    message: i === 4 ? 'not yours' : null,
  },
});

describe('audit log storage', () => {
  let dir: string;
  let store: SqliteStateStore;
  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'gpushare-audit-'));
    store = openSqliteStore(join(dir, 'gpushare.db'));
  });
  afterEach(() => {
    store.close();
    rmSync(dir, { recursive: true, force: true });
  });

  const fill = (log: AuditLog): void => {
    for (let i = 1; i <= 9; i++) log.append(entry(i));
  };

  it('lists by tenant, time and seq, the oldest or the newest N, the same in SQLite and in memory', () => {
    const logs = [createSqliteAuditLog(store.database), createMemoryAuditLog()];
    for (const log of logs) fill(log);
    for (const log of logs) {
      expect(log.list({ limit: 100 }).map((e) => e.seq)).toEqual([1, 2, 3, 4, 5, 6, 7, 8, 9]);
      expect(log.list({ limit: 100, tenant: 't1' }).map((e) => e.seq)).toEqual([1, 4, 7]);
      expect(log.list({ limit: 2, sinceMs: 5000 }).map((e) => e.seq)).toEqual([5, 6]);
      expect(log.list({ limit: 3, newest: true }).map((e) => e.seq)).toEqual([7, 8, 9]);
      expect(log.list({ limit: 2, afterSeq: 6, tenant: 't0' }).map((e) => e.seq)).toEqual([9]);
      expect(log.list({ limit: 1, afterSeq: 3 })[0]).toMatchObject({
        seq: 4,
        tenant: 't1',
        outcome: { result: 'denied', httpStatus: 403, message: 'not yours' },
        summary: { body: { environment: ['A', 'B'], quota: 0.25 } },
      });
    }
    // Same fields, same chain: the two implementations agree on every hash.
    expect(logs[0]!.list({ limit: 100 })).toEqual(logs[1]!.list({ limit: 100 }));
  });

  it('chains across a reopen, and the rows verify', () => {
    fill(createSqliteAuditLog(store.database));
    store.close();
    store = openSqliteStore(join(dir, 'gpushare.db'));
    const log = createSqliteAuditLog(store.database);
    const tenth = log.append(entry(10));
    expect([tenth.seq, tenth.prevHash]).toEqual([10, log.list({ limit: 1, afterSeq: 8 })[0]!.hash]);
    expect(log.head()).toEqual({ seq: 10, hash: tenth.hash });
    const genesisOnly = parseAuditHeadLines(`0 ${GENESIS_HASH}\n`, 'journal');
    const result = verifyAuditChain(readAuditRows(store.database), genesisOnly);
    expect([result.ok, result.entries, result.head.seq]).toEqual([true, 10, 10]);
    expect(createSqliteAuditLog(openSqliteStore(':memory:').database).head()).toEqual({ seq: 0, hash: GENESIS_HASH });
  });

  it('refuses UPDATE and DELETE of audit rows (append-only triggers)', () => {
    fill(createSqliteAuditLog(store.database));
    expect(() => store.database.prepare("UPDATE audit_log SET target = 'job 99' WHERE seq = 3").run()).toThrow(
      /audit_log is append-only/,
    );
    expect(() => store.database.prepare('DELETE FROM audit_log WHERE seq = 9').run()).toThrow(
      /audit_log is append-only/,
    );
    expect(store.database.prepare('SELECT count(*) AS n, max(seq) AS last FROM audit_log').get()).toEqual({
      n: 9,
      last: 9,
    });
  });

  it('names the triggers dropped or made harmless, and makes them again', () => {
    expect(missingAuditTriggers(store.database)).toEqual([]);
    store.database.exec(
      'DROP TRIGGER audit_log_no_update; DROP TRIGGER audit_log_no_delete; ' +
        'CREATE TRIGGER audit_log_no_delete BEFORE DELETE ON audit_log BEGIN SELECT 1; END;',
    );
    expect(missingAuditTriggers(store.database)).toEqual(['audit_log_no_update', 'audit_log_no_delete']);
    expect(restoreAuditTriggers(store.database)).toEqual(['audit_log_no_update', 'audit_log_no_delete']);
    expect(missingAuditTriggers(store.database)).toEqual([]);
    fill(createSqliteAuditLog(store.database));
    expect(() => store.database.prepare('DELETE FROM audit_log WHERE seq = 2').run()).toThrow(
      /audit_log is append-only/,
    );
  });
});

describe('audit head journal', () => {
  let dir: string;
  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'gpushare-audit-head-'));
  });
  afterEach(() => rmSync(dir, { recursive: true, force: true }));
  const hash = (n: number): string => n.toString(16).padStart(64, '0');

  it('writes a batch once N entries wait, the rest on close; the file is private', () => {
    const path = join(dir, 'audit-head');
    const journal = openAuditHeadJournal(path, { batchEntries: 3, maxDelayMs: 60_000 });
    expect(statSync(path).mode & 0o777).toBe(0o600);
    for (let seq = 1; seq <= 2; seq++) journal.record(seq, hash(seq));
    expect(readFileSync(path, 'utf8')).toBe('');
    journal.record(3, hash(3));
    expect(readFileSync(path, 'utf8')).toBe(`1 ${hash(1)}\n2 ${hash(2)}\n3 ${hash(3)}\n`);
    journal.record(4, hash(4));
    journal.close();
    journal.record(5, hash(5));
    const read = readAuditHeadJournal(path)!;
    expect([read.hashes, read.firstSeq, read.lastSeq]).toEqual([new Map([1, 2, 3, 4].map((s) => [s, hash(s)])), 1, 4]);
  });

  it('writes a lone entry within maxDelayMs', async () => {
    const path = join(dir, 'audit-head');
    const journal = openAuditHeadJournal(path, { batchEntries: 100, maxDelayMs: 20 });
    journal.record(1, hash(1));
    const deadline = Date.now() + WAIT_MS;
    while (readFileSync(path, 'utf8') === '' && Date.now() < deadline) await new Promise((r) => setTimeout(r, 10));
    expect(readFileSync(path, 'utf8')).toBe(`1 ${hash(1)}\n`);
    journal.close();
  });

  it('reads the first hash of a seq, ignores a torn last line, and names a malformed line', () => {
    const path = join(dir, 'audit-head');
    expect(readAuditHeadJournal(path)).toBeNull();
    const text = `1 ${hash(1)}\n2 ${hash(2)}\n2 ${hash(7)}\n`;
    writeFileSync(path, `${text}3 ${hash(3).slice(0, 20)}`);
    expect(readAuditHeadJournal(path)).toEqual({
      hashes: new Map([
        [1, hash(1)],
        [2, hash(2)],
      ]),
      firstSeq: 1,
      lastSeq: 2,
      lines: 3,
      unparsable: [],
      completeLength: text.length,
    });
    writeFileSync(path, `1 ${hash(1)}\nx y\n2 ${hash(2)}\n`);
    const read = readAuditHeadJournal(path)!;
    expect([read.unparsable, read.lastSeq, read.lines]).toEqual([[{ lineNumber: 2, text: 'x y' }], 2, 3]);
  });

  it('writes a journal anew with its genesis line, and cuts a torn last line before appending', () => {
    const path = join(dir, 'audit-head');
    writeAuditHeadJournal(
      path,
      [1, 2].map((seq) => ({ seq, hash: hash(seq) })),
    );
    expect(readFileSync(path, 'utf8')).toBe(`0 ${GENESIS_HASH}\n1 ${hash(1)}\n2 ${hash(2)}\n`);
    expect(statSync(path).mode & 0o777).toBe(0o600);
    writeFileSync(path, `0 ${GENESIS_HASH}\n1 ${hash(1)}\n2 ${hash(2).slice(0, 9)}`);
    const torn = readAuditHeadJournal(path)!;
    const journal = openAuditHeadJournal(path, { truncateToBytes: torn.completeLength });
    journal.record(2, hash(2));
    journal.close();
    expect(readFileSync(path, 'utf8')).toBe(`0 ${GENESIS_HASH}\n1 ${hash(1)}\n2 ${hash(2)}\n`);
  });
});
