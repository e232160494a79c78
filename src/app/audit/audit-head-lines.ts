/**
 * Lines of audit heads, `seq hash` (seq in decimal, hash in lower-case hex SHA-256): the head
 * journal `<data-dir>/audit-head` and a copy of what the anchor command received
 * (docs/security.md "Audit log"). Parsing is pure: the callers read the files.
 */

/** Heads as read from lines. */
export interface AuditHeadLines {
  /** Hash per seq (the first line for a seq wins: a later one was written over a store that had lost entries). */
  readonly hashes: ReadonlyMap<number, string>;
  /** The smallest seq a line records (0: the journal's genesis line); null when no line does. */
  readonly firstSeq: number | null;
  /** The largest seq a line records; 0 when none. */
  readonly lastSeq: number;
  /** Complete lines read (blank lines of an anchor's copy not counted). */
  readonly lines: number;
  /** The lines that are not heads (the first {@link MAX_UNPARSABLE_REPORTED}), numbered from 1. */
  readonly unparsable: readonly { readonly lineNumber: number; readonly text: string }[];
  /** Length of the text up to the end of its last complete line (a torn last line is not read). */
  readonly completeLength: number;
}

/** Most unparsable lines reported. */
const MAX_UNPARSABLE_REPORTED = 10;

const JOURNAL_LINE = /^(\d{1,15}) ([0-9a-f]{64})$/;
// A copy may carry a prefix per line (syslog's time, host and tag): the line ends in `seq hash`.
const ANCHOR_LINE = /(?:^|\s)(\d{1,15}) ([0-9a-f]{64})\s*$/;

/**
 * Parses head lines. `journal`: each line is exactly `seq hash`, and a last line without its newline
 * (a write cut short by a crash) is not read; `anchor-copy`: each non-blank line ends in `seq hash`
 * after any prefix, and a last line without a newline is read.
 */
export function parseAuditHeadLines(text: string, kind: 'journal' | 'anchor-copy'): AuditHeadLines {
  const hashes = new Map<number, string>();
  const unparsable: { lineNumber: number; text: string }[] = [];
  let firstSeq: number | null = null;
  let lastSeq = 0;
  let lines = 0;
  const complete = kind === 'anchor-copy' || text.endsWith('\n') ? text.length : text.lastIndexOf('\n') + 1;
  const shape = kind === 'journal' ? JOURNAL_LINE : ANCHOR_LINE;
  let start = 0;
  for (let lineNumber = 1; start < complete; lineNumber++) {
    const newline = text.indexOf('\n', start);
    const end = newline < 0 || newline >= complete ? complete : newline;
    const line = text.slice(start, end);
    start = end + 1;
    if (kind === 'anchor-copy' && line.trim() === '') continue;
    lines += 1;
    const match = shape.exec(line);
    if (match === null) {
      if (unparsable.length < MAX_UNPARSABLE_REPORTED) unparsable.push({ lineNumber, text: line });
      continue;
    }
    const seq = Number(match[1]);
    if (!hashes.has(seq)) hashes.set(seq, match[2]!);
    if (seq > lastSeq) lastSeq = seq;
    if (firstSeq === null || seq < firstSeq) firstSeq = seq;
  }
  return { hashes, firstSeq, lastSeq, lines, unparsable, completeLength: complete };
}
