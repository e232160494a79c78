/**
 * The audit log's head journal, `<data-dir>/audit-head` (mode 0600): one line `seq hash` per audit
 * entry, appended outside the store so that deleting the newest entries or re-hashing the chain in
 * the database is detected (docs/security.md "Audit log", decision 0016). Lines are written in
 * batches: once `batchEntries` entries wait, at most `maxDelayMs` after the first unrecorded one,
 * and on close (with an fsync). A crash can leave the journal behind the store by at most one batch;
 * the entries past its end are "not yet witnessed". A journal is made with a genesis line `0 <64
 * zeros>` (fsynced before any entry), so that an emptied journal is never a legitimate one.
 */
import {
  closeSync,
  fchmodSync,
  fstatSync,
  fsyncSync,
  ftruncateSync,
  openSync,
  readFileSync,
  renameSync,
  writeSync,
} from 'node:fs';
import { GENESIS_HASH } from '../../app/audit/audit-chain.js';
import { parseAuditHeadLines, type AuditHeadLines } from '../../app/audit/audit-head-lines.js';
import type { CrashPoints } from '../../app/ports/crash-points.js';
import { PRIVATE_FILE_MODE } from './private-file.js';

/** Options of {@link openAuditHeadJournal}. */
export interface AuditHeadJournalOptions {
  /** Write once this many entries wait (default 100). */
  readonly batchEntries?: number;
  /** Write at most this long after the first unrecorded entry, ms (default 1000). */
  readonly maxDelayMs?: number;
  /** Where a failed write is reported (the server's log); the lines stay queued and are written with the next batch. */
  readonly onError?: (error: Error) => void;
  /**
   * Cut the file to this many bytes before appending: the end of its last complete line, so that a line a crash tore
   * does not run into the next one. Default: not cut.
   */
  readonly truncateToBytes?: number;
  /** Told of `audit-journal.write` before and after each batch's write (app/ports/crash-points.ts); absent: none. */
  readonly crashPoints?: CrashPoints;
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

/** Default `batchEntries`: also the most entries the store may lead the journal by (audit-verification.ts). */
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
  const cut = options.truncateToBytes;
  if (cut !== undefined && fstatSync(fd).size > cut) ftruncateSync(fd, cut);
  let pending: string[] = [];
  let timer: NodeJS.Timeout | null = null;
  let closed = false;
  const flush = (): void => {
    if (timer !== null) clearTimeout(timer);
    timer = null;
    if (pending.length === 0 || closed) return;
    const text = pending.join('');
    const points = options.crashPoints;
    try {
      points?.reach({ site: 'audit-journal.write', phase: 'before', detail: `${pending.length} lines` });
      writeSync(fd, text);
      pending = [];
      points?.reach({ site: 'audit-journal.write', phase: 'after', detail: `${text.length} bytes` });
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
 * Reads a journal (audit-head-lines.ts): the first hash recorded for each seq, its first and last
 * seq, the lines that are not `seq hash` (reported, not thrown: `gpushare audit verify` names them).
 * A last line without its newline (a write cut short by a crash) is not read.
 * @returns null when the file does not exist
 * @throws Error of the system when it exists but cannot be read
 */
export function readAuditHeadJournal(path: string): AuditHeadLines | null {
  let text: string;
  try {
    // latin1: a journal is ASCII, and a byte that is not stays one character (and fails the line check).
    text = readFileSync(path, 'latin1');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return null;
    throw error;
  }
  return parseAuditHeadLines(text, 'journal');
}

/**
 * Writes a new journal at `path` holding the genesis line and `heads` (in seq order), through a
 * temporary file in the same folder that is fsynced and renamed over `path` (mode 0600): the journal
 * of a new store, or the one the server writes from the store when started with
 * `--accept-audit-problems`.
 * @throws Error of the system when it cannot be written
 */
export function writeAuditHeadJournal(
  path: string,
  heads: Iterable<{ readonly seq: number; readonly hash: string }>,
): void {
  const temporary = `${path}.new`;
  const fd = openSync(temporary, 'w', PRIVATE_FILE_MODE);
  try {
    fchmodSync(fd, PRIVATE_FILE_MODE);
    let chunk: string[] = [`0 ${GENESIS_HASH}\n`];
    for (const head of heads) {
      chunk.push(`${head.seq} ${head.hash}\n`);
      if (chunk.length >= 10_000) {
        writeSync(fd, chunk.join(''));
        chunk = [];
      }
    }
    writeSync(fd, chunk.join(''));
    fsyncSync(fd);
  } finally {
    closeSync(fd);
  }
  renameSync(temporary, path);
}
