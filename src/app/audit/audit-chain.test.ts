/**
 * The audit log's hash chain and its verification: every kind of tampering (edit, delete, swap,
 * truncation, a rewritten chain) is named at its first bad entry; an untouched log verifies.
 */
import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { createMemoryAuditLog } from '../../adapters/store/memory-audit-log.js';
import type { NewAuditEntry } from '../ports/audit-log.js';
import {
  auditEntryHash,
  auditEntryOfRow,
  canonicalJson,
  chainAuditEntry,
  GENESIS_HASH,
  type StoredAuditRow,
} from './audit-chain.js';
import { parseAuditHeadLines, type AuditHeadLines } from './audit-head-lines.js';
import { verifyAuditChain } from './audit-verification.js';

const entry = (i: number, overrides: Partial<NewAuditEntry> = {}): NewAuditEntry => ({
  atMs: 1_700_000_000_000 + i,
  actor: 'admin token 1',
  role: 'admin',
  tenant: i % 2 === 0 ? 'team-a' : null,
  action: 'job.submit',
  target: `job ${i}`,
  summary: { method: 'POST', route: '/api/v1/jobs', body: { command: ['train', String(i)], priority: 'normal' } },
  outcome: { result: 'ok', httpStatus: 201, message: null },
  ...overrides,
});

/** Ten chained rows and a journal that witnessed all of them. */
function tenRows(): { rows: StoredAuditRow[]; journal: AuditHeadLines } {
  const log = createMemoryAuditLog();
  for (let i = 1; i <= 10; i++) log.append(entry(i));
  const rows = log.rows();
  return { rows, journal: journalOf(rows) };
}

/** A journal of these heads, after its genesis line, as the server writes it. */
const linesOf = (heads: Iterable<[number, string]>): AuditHeadLines =>
  parseAuditHeadLines(
    [`0 ${GENESIS_HASH}\n`, ...[...heads].map(([seq, hash]) => `${seq} ${hash}\n`)].join(''),
    'journal',
  );

const journalOf = (rows: readonly StoredAuditRow[]): AuditHeadLines => linesOf(rows.map((r) => [r.seq, r.hash]));

/** Rows re-chained from the first, as an attacker with the documented algorithm would. */
function rehash(rows: readonly StoredAuditRow[]): StoredAuditRow[] {
  let prev = GENESIS_HASH;
  return rows.map((row) => {
    const hash = auditEntryHash(prev, row);
    const out = { ...row, prevHash: prev, hash };
    prev = hash;
    return out;
  });
}

describe('the audit hash chain', () => {
  it(
    'hashes prev_hash, a newline and the JSON array of the fields, summary and outcome with sorted keys ' +
      '(the documented algorithm)',
    () => {
      const row = chainAuditEntry(
        { seq: 0, hash: GENESIS_HASH },
        entry(1, { summary: { z: 1, a: { y: [2, { d: 1, c: 0 }], b: 'x' } } }),
      );
      expect(row.summaryJson).toBe('{"a":{"b":"x","y":[2,{"c":0,"d":1}]},"z":1}');
      expect(row.outcomeJson).toBe('{"httpStatus":201,"message":null,"result":"ok"}');
      const summary: unknown = JSON.parse(row.summaryJson);
      const outcome: unknown = JSON.parse(row.outcomeJson);
      const fields = [1, 1_700_000_000_001, 'admin token 1', 'admin', null, 'job.submit', 'job 1', summary, outcome];
      const text = `${'0'.repeat(64)}\n${JSON.stringify(fields)}`;
      expect(row.hash).toBe(createHash('sha256').update(text, 'utf8').digest('hex'));
      expect([row.seq, row.prevHash]).toEqual([1, GENESIS_HASH]);
    },
  );

  it(
    'replaces lone surrogates in text columns, so that a value reads back from a UTF-8 store as it was ' +
      'hashed (JSON escapes them)',
    () => {
      const row = chainAuditEntry(
        { seq: 4, hash: 'f'.repeat(64) },
        entry(5, { target: 'job \uD800x', summary: { name: 'a\uDC00' } }),
      );
      expect([row.seq, row.prevHash, row.target, row.summaryJson]).toEqual([
        5,
        'f'.repeat(64),
        'job \uFFFDx',
        '{"name":"a\\udc00"}',
      ]);
      expect(canonicalJson({ b: 1, a: [3, 1] })).toBe('{"a":[3,1],"b":1}');
    },
  );

  it('verifies an untouched log, naming its head; an empty log without a journal verifies too', () => {
    const { rows, journal } = tenRows();
    expect(verifyAuditChain(rows, journal)).toEqual({
      ok: true,
      entries: 10,
      head: { seq: 10, hash: rows[9]!.hash },
      witnessedThroughSeq: 10,
      firstBad: null,
      problems: [],
    });
    expect(verifyAuditChain([], null)).toEqual({
      ok: true,
      entries: 0,
      head: { seq: 0, hash: GENESIS_HASH },
      witnessedThroughSeq: 0,
      firstBad: null,
      problems: [],
    });
  });

  it("treats entries past the journal's end as not yet witnessed, not as an error", () => {
    const { rows } = tenRows();
    const result = verifyAuditChain(rows, journalOf(rows.slice(0, 7)));
    expect([result.ok, result.entries, result.witnessedThroughSeq, result.firstBad]).toEqual([true, 10, 7, null]);
  });

  it('names an edited entry', () => {
    const { rows, journal } = tenRows();
    rows[3] = { ...rows[3]!, target: 'job 99' };
    const result = verifyAuditChain(rows, journal);
    expect([result.ok, result.firstBad?.seq, result.firstBad?.problem, result.entries]).toEqual([
      false,
      4,
      'edited',
      3,
    ]);
    expect(result.firstBad?.message).toMatch(/^entry 4 was edited/);
  });

  it('names a deleted middle entry as missing', () => {
    const { rows, journal } = tenRows();
    rows.splice(5, 1);
    const result = verifyAuditChain(rows, journal);
    expect([result.firstBad?.seq, result.firstBad?.problem]).toEqual([6, 'missing']);
  });

  it('names the first of two swapped entries', () => {
    const { rows, journal } = tenRows();
    const [a, b] = [rows[2]!, rows[6]!];
    rows[2] = { ...b, seq: a.seq };
    rows[6] = { ...a, seq: b.seq };
    const result = verifyAuditChain(rows, journal);
    expect([result.firstBad?.seq, result.firstBad?.problem]).toEqual([3, 'broken-link']);
  });

  it('names the first of the newest entries deleted, from the journal', () => {
    const { rows, journal } = tenRows();
    const result = verifyAuditChain(rows.slice(0, 7), journal);
    expect([result.ok, result.firstBad?.seq, result.firstBad?.problem, result.entries]).toEqual([
      false,
      8,
      'truncated',
      7,
    ]);
    expect(result.firstBad?.message).toMatch(
      /entries 8–10 are recorded in the audit-head journal but missing from the store/,
    );
  });

  it('names the first entry of a chain re-hashed after an edit, from the journal', () => {
    const { rows, journal } = tenRows();
    rows[4] = { ...rows[4]!, actor: 'nobody' };
    const forged = rehash(rows);
    expect(verifyAuditChain(forged, null).firstBad?.problem).toBe('journal-missing');
    const result = verifyAuditChain(forged, journal);
    expect([result.firstBad?.seq, result.firstBad?.problem]).toEqual([5, 'rewritten']);
  });

  it(
    'names an entry whose text was moved between summary and outcome (same hash) as edited, and lists it ' +
      'without throwing',
    () => {
      const { rows, journal } = tenRows();
      const row = rows[3]!;
      // The hash input joins summary and outcome with a comma: moving the summary's last fields to the outcome's start
      // keeps it.
      const summaryJson = row.summaryJson.slice(0, row.summaryJson.lastIndexOf(',"route"'));
      const outcomeJson = `${row.summaryJson.slice(row.summaryJson.lastIndexOf(',"route"') + 1)},${row.outcomeJson}`;
      const moved = { ...row, summaryJson, outcomeJson };
      expect(auditEntryHash(row.prevHash, moved)).toBe(row.hash);
      rows[3] = moved;
      const result = verifyAuditChain(rows, journal);
      expect([result.ok, result.firstBad?.seq, result.firstBad?.problem, result.entries]).toEqual([
        false,
        4,
        'edited',
        3,
      ]);
      expect(result.firstBad?.message).toBe(
        'entry 4 was edited: its summary is not a JSON object in canonical form (sorted keys, no whitespace)',
      );
      const shown = auditEntryOfRow(moved);
      expect([shown.summary, shown.outcome]).toEqual([
        { unreadable: summaryJson },
        { result: 'unreadable', httpStatus: null, message: outcomeJson },
      ]);
    },
  );

  it(
    'names an entry the journal skips inside its range as unwitnessed (a forged entry appended while the ' +
      'journal went on)',
    () => {
      const { rows, journal } = tenRows();
      const hashes = new Map(journal.hashes);
      hashes.delete(0);
      hashes.delete(6);
      const result = verifyAuditChain(rows, linesOf(hashes));
      expect([result.ok, result.firstBad?.seq, result.firstBad?.problem, result.entries]).toEqual([
        false,
        6,
        'unwitnessed',
        5,
      ]);
      expect(result.firstBad?.message).toBe(
        'entry 6 is missing from the audit-head journal, which records entries 1–10: it was not written by ' +
          'the server (forged entry)',
      );
      expect(result.problems.map((p) => [p.problem, p.seq])).toEqual([
        ['unwitnessed', 6],
        ['journal-gap', 6],
      ]);
    },
  );

  it('fails a log with entries whose journal was deleted', () => {
    const { rows } = tenRows();
    const result = verifyAuditChain(rows, null);
    expect([result.ok, result.firstBad?.seq, result.firstBad?.problem]).toEqual([false, 1, 'journal-missing']);
  });
});
