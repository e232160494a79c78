/**
 * The strict checks of the audit log's witnesses: the journal (missing, empty, cut at its start or
 * in its middle, an unparsable line, more than one batch behind), the triggers, and an outside copy
 * of the anchor's heads (a rewrite, a cut, syslog prefixes, an unparsable line, no head at all).
 */
import { describe, expect, it } from 'vitest';
import { createMemoryAuditLog } from '../../adapters/store/memory-audit-log.js';
import { auditEntryHash, GENESIS_HASH, type StoredAuditRow } from './audit-chain.js';
import { parseAuditHeadLines } from './audit-head-lines.js';
import { checkAuditLinks, verifyAuditChain } from './audit-verification.js';

/** `count` chained rows. */
function rowsOf(count: number): StoredAuditRow[] {
  const log = createMemoryAuditLog();
  for (let i = 1; i <= count; i++)
    log.append({
      atMs: 1_700_000_000_000 + i,
      actor: 'admin token 1',
      role: 'admin',
      tenant: null,
      action: 'gpu.cordon',
      target: 'gpu 0',
      summary: { i },
      outcome: { result: 'ok', httpStatus: 200, message: null },
    });
  return log.rows();
}

/** Journal text: the genesis line, then a line per row. */
const journalText = (rows: readonly StoredAuditRow[]): string =>
  [`0 ${GENESIS_HASH}\n`, ...rows.map((r) => `${r.seq} ${r.hash}\n`)].join('');
const journal = (text: string) => parseAuditHeadLines(text, 'journal');
const codes = (result: { problems: readonly { problem: string; seq: number | null }[] }) =>
  result.problems.map((p) => [p.problem, p.seq]);

describe('audit verification of the witnesses', () => {
  it('accepts a store at most one batch ahead of the journal, and names a lead of more', () => {
    const rows = rowsOf(12);
    const behind = journal(journalText(rows.slice(0, 2)));
    expect(verifyAuditChain(rows, behind, { batchEntries: 10 }).ok).toBe(true);
    const far = journal(journalText(rows.slice(0, 1)));
    const result = verifyAuditChain(rows, far, { batchEntries: 10 });
    expect(codes(result)).toEqual([['journal-behind', 2]]);
    expect(result.problems[0]!.message).toBe(
      "the store has entries 2–12 past the audit-head journal's last line, more than one batch (10): the journal " +
        'was cut, or the entries were not written by the server',
    );
    // A store of fewer entries than a batch with only the genesis line: a crash before the first batch.
    expect(verifyAuditChain(rows, journal(`0 ${GENESIS_HASH}\n`)).ok).toBe(true);
  });

  it('names an empty journal, one cut at its start, and an unparsable line by its number', () => {
    const rows = rowsOf(5);
    expect(codes(verifyAuditChain(rows, journal('')))).toEqual([['journal-empty', null]]);
    expect(verifyAuditChain([], journal('')).ok).toBe(true);
    const cut = journal(journalText(rows).split('\n').slice(3).join('\n'));
    expect(codes(verifyAuditChain(rows, cut))).toEqual([['journal-gap', 1]]);
    expect(verifyAuditChain(rows, cut).problems[0]!.message).toBe(
      'the audit-head journal starts at entry 3, not at its genesis line: its first lines were cut off',
    );
    const garbage = journal(`${journalText(rows)}not a head\n`);
    const result = verifyAuditChain(rows, garbage);
    expect(result.problems).toEqual([
      {
        problem: 'journal-unparsable',
        seq: null,
        lineNumber: 7,
        message: 'the audit-head journal line 7 is not "seq hash": "not a head"',
      },
    ]);
  });

  it('names missing triggers, and checks links without hashing at start (an edit is only found by verify)', () => {
    const rows = rowsOf(4);
    rows[1] = { ...rows[1]!, target: 'gpu 9' };
    const text = journalText(rows);
    expect(codes(checkAuditLinks(rows, journal(text), { missingTriggers: ['audit_log_no_update'] }))).toEqual([
      ['triggers-missing', null],
    ]);
    expect(codes(verifyAuditChain(rows, journal(text)))).toEqual([['edited', 2]]);
  });

  it("checks the store against the anchor's copy: a consistent rewrite, a cut, syslog prefixes, bad lines", () => {
    const rows = rowsOf(8);
    const copy = parseAuditHeadLines(
      `Dec  6 00:01:02 host gpushare-audit: 3 ${rows[2]!.hash}\n\nDec  6 00:01:03 host gpushare-audit: 8 ` +
        `${rows[7]!.hash}\n`,
      'anchor-copy',
    );
    expect([copy.lastSeq, copy.lines, copy.unparsable]).toEqual([8, 2, []]);
    expect(verifyAuditChain(rows, journal(journalText(rows)), { anchor: copy }).ok).toBe(true);
    // Entry 5 edited, the chain re-hashed and the journal written to match: only the copy disagrees.
    let prev = GENESIS_HASH;
    const forged = rows.map((row) => {
      const edited = row.seq === 5 ? { ...row, actor: 'nobody' } : row;
      const hash = auditEntryHash(prev, edited);
      const out = { ...edited, prevHash: prev, hash };
      prev = hash;
      return out;
    });
    expect(verifyAuditChain(forged, journal(journalText(forged))).ok).toBe(true);
    const result = verifyAuditChain(forged, journal(journalText(forged)), { anchor: copy });
    expect(codes(result)).toEqual([['anchor-mismatch', 8]]);
    expect(result.problems[0]!.message).toBe(
      `entry 8 differs from the anchor's copy (copy ${rows[7]!.hash.slice(0, 16)}…, store ` +
        `${forged[7]!.hash.slice(0, 16)}…): the chain was rewritten after entry 3 (the last head the copy confirms)`,
    );
    expect(codes(verifyAuditChain(rows.slice(0, 6), journal(journalText(rows.slice(0, 6))), { anchor: copy }))).toEqual(
      [['anchor-ahead', 7]],
    );
    expect(
      codes(verifyAuditChain(rows, journal(journalText(rows)), { anchor: parseAuditHeadLines('junk', 'anchor-copy') })),
    ).toEqual([
      ['anchor-unparsable', null],
      ['anchor-empty', null],
    ]);
  });
});
