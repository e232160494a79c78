/**
 * The problems of the audit log's files as files (audit-verification.ts): the head journal's lines
 * (empty, cut, unparsable, too far behind the store) and the unparsable lines of an anchor's copy.
 */
import type { AuditHeadLines } from './audit-head-lines.js';
import type { AuditFinding } from './audit-problems.js';

/**
 * The problems of the journal as a file: no line while the store has entries, lines that are not
 * `seq hash`, seqs it skips, and (when the store was read to its end) a lead of the store of more
 * than one batch.
 */
export function journalFindings(
  journal: AuditHeadLines | null,
  storeRowsSeen: number,
  last: number,
  readToEnd: boolean,
  batchEntries: number,
): AuditFinding[] {
  if (journal === null) return [];
  const findings = headLineFindings(journal, 'journal-unparsable', 'the audit-head journal');
  if (journal.firstSeq === null) {
    if (storeRowsSeen > 0)
      findings.push({
        problem: 'journal-empty',
        seq: null,
        lineNumber: null,
        message:
          `the audit-head journal has no line while the store has entries: nothing witnesses them (emptied ` +
          `journal?)`,
      });
    return findings;
  }
  const gap = firstJournalGap(journal);
  if (gap !== null)
    findings.push({
      problem: 'journal-gap',
      seq: gap,
      lineNumber: null,
      message:
        gap < journal.firstSeq
          ? `the audit-head journal starts at entry ${journal.firstSeq}, not at its genesis line: its first lines ` +
            `were cut off`
          : `the audit-head journal has no line for entry ${gap} (it records entries up to ${journal.lastSeq}): ` +
            `lines were cut out`,
    });
  const batch = batchEntries;
  if (readToEnd && last - journal.lastSeq > batch)
    findings.push({
      problem: 'journal-behind',
      seq: journal.lastSeq + 1,
      lineNumber: null,
      message:
        `the store has entries ${journal.lastSeq + 1}–${last} past the audit-head journal's last line, more than ` +
        `one batch (${batch}): the journal was cut, or the entries were not written by the server`,
    });
  return findings;
}

/** The first seq the journal lacks a line for (it starts at 0 or 1 and skips none); null when none. */
function firstJournalGap(journal: AuditHeadLines): number | null {
  if (journal.firstSeq === null) return null;
  if (journal.firstSeq > 1) return 1;
  for (let seq = 1; seq <= journal.lastSeq; seq++) if (!journal.hashes.has(seq)) return seq;
  return null;
}

/** One finding per unparsable line. */
export function headLineFindings(
  lines: AuditHeadLines,
  problem: 'journal-unparsable' | 'anchor-unparsable',
  what: string,
): AuditFinding[] {
  const shape = problem === 'journal-unparsable' ? '"seq hash"' : 'a line ending in "seq hash"';
  return lines.unparsable.map(({ lineNumber, text }) => ({
    problem,
    seq: null,
    lineNumber,
    message: `${what} line ${lineNumber} is not ${shape}: ${JSON.stringify(text.slice(0, 100))}`,
  }));
}
