/**
 * The audit log's head journal, `<data-dir>/audit-head` (mode 0600): one line `seq hash` per audit
 * entry, appended outside the store so that deleting the newest entries or re-hashing the chain in
 * the database is detected (docs/security.md "Audit log", decision 0016). Lines are written in
 * batches: once `batchEntries` entries wait, at most `maxDelayMs` after the first unrecorded one,
 * and on close (with an fsync). A crash can leave the journal behind the store by at most one batch;
 * the entries past its end are "not yet witnessed".
 */
import { closeSync, fchmodSync, fsyncSync, openSync, readFileSync, writeSync } from 'node:fs';
import type { AuditJournal } from '../../app/audit/audit-chain.js';
import { PRIVATE_FILE_MODE } from './private-file.js';

/** Options of {@link openAuditHeadJournal}. */
export interface AuditHeadJournalOptions {
  /** Write once this many entries wait (default 100). */
  readonly batchEntries?: number;
  /** Write at most this long after the first unrecorded entry, ms (default 1000). */
  readonly maxDelayMs?: number;
  /** Where a failed write is reported (the server's log); the lines stay queued and are written with the next batch. */
  readonly onError?: (error: Error) => void;
}

/** An open journal. */
export interface AuditHeadJournal {
  /** Queues the line of entry `seq` (written with the next batch). */
  record(seq: number, hash: string): void;
  /** Writes the queued lines now. */
  flush(): void;
  /** Writes the queued lines, fsyncs and closes; later records are dropped. */
  close(): void;
}

/** Default `batchEntries`. */
export const DEFAULT_AUDIT_BATCH_ENTRIES = 100;
/** Default `maxDelayMs`. */
export const DEFAULT_AUDIT_MAX_DELAY_MS = 1000;

/**
 * Opens `path` for appending (created with mode 0600 when missing; an existing file's mode is set
 * to 0600).
 * @throws Error of the system when it cannot be opened
 */
export function openAuditHeadJournal(path: string, options: AuditHeadJournalOptions = {}): AuditHeadJournal {
  const batch = Math.max(1, options.batchEntries ?? DEFAULT_AUDIT_BATCH_ENTRIES);
  const delayMs = Math.max(0, options.maxDelayMs ?? DEFAULT_AUDIT_MAX_DELAY_MS);
  const fd = openSync(path, 'a', PRIVATE_FILE_MODE);
  fchmodSync(fd, PRIVATE_FILE_MODE);
  let pending: string[] = [];
  let timer: NodeJS.Timeout | null = null;
  let closed = false;
  const flush = (): void => {
    if (timer !== null) clearTimeout(timer);
    timer = null;
    if (pending.length === 0 || closed) return;
    const text = pending.join('');
    try {
      writeSync(fd, text);
      pending = [];
    } catch (error) {
      options.onError?.(error as Error);
    }
  };
  return {
    record: (seq, hash) => {
      if (closed) return;
      pending.push(`${seq} ${hash}\n`);
      if (pending.length >= batch) flush();
      else if (timer === null) {
        timer = setTimeout(flush, delayMs);
        timer.unref();
      }
    },
    flush,
    close: () => {
      if (closed) return;
      flush();
      closed = true;
      try {
        fsyncSync(fd);
      } catch (error) {
        options.onError?.(error as Error);
      }
      closeSync(fd);
    },
  };
}

/**
 * Reads a journal: the first hash recorded for each seq, and the largest seq. A last line without
 * its newline (a write cut short by a crash) is ignored.
 * @returns null when the file does not exist
 * @throws Error naming the file and line for a line that is not `seq hash`
 */
export function readAuditHeadJournal(path: string): AuditJournal | null {
  let text: string;
  try {
    // latin1: a journal is ASCII, and a byte that is not stays one character (and fails the line check).
    text = readFileSync(path, 'latin1');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return null;
    throw error;
  }
  const hashes = new Map<number, string>();
  let lastSeq = 0;
  const complete = text.endsWith('\n') ? text.length : text.lastIndexOf('\n') + 1;
  const lineShape = /^\d{1,15} [0-9a-f]{64}$/;
  let start = 0;
  for (let lineNumber = 1; start < complete; lineNumber++) {
    const end = text.indexOf('\n', start);
    const line = text.slice(start, end);
    start = end + 1;
    if (!lineShape.test(line))
      throw new Error(`${path} line ${lineNumber} is not "seq hash": ${JSON.stringify(line.slice(0, 100))}`);
    const space = line.indexOf(' ');
    const seq = Number(line.slice(0, space));
    if (!hashes.has(seq)) hashes.set(seq, line.slice(space + 1));
    if (seq > lastSeq) lastSeq = seq;
  }
  return { hashes, lastSeq };
}
