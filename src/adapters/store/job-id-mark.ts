/**
 * The job-id high-water mark: the highest job id the store ever gave out, kept in a small file
 * next to the database (`<data-dir>/last-job-id`, mode 0600) rather than in it, so that restoring
 * an older copy of the database (a backup) cannot take it back. The SQLite store writes it inside
 * each job-insert transaction, before the COMMIT: a crash in between leaves the mark one id ahead
 * of the store (that id is skipped), never behind. At open the store raises its AUTOINCREMENT
 * sequence (`sqlite_sequence`) to the mark, so job ids only grow, whatever file is restored.
 *
 * The mark is written like the store's commits with `synchronous = NORMAL`: it survives a crash of
 * the process, not necessarily a power loss (docs/store.md).
 */
import { closeSync, constants, fchmodSync, fstatSync, openSync, readSync, writeSync } from 'node:fs';
import type Database from 'better-sqlite3';
import type { CrashPoints } from '../../app/ports/crash-points.js';
import { PRIVATE_FILE_MODE } from './private-file.js';

/** Width of the number in the file: every write replaces the same bytes, in one `pwrite`. */
const WIDTH = 20;

/** An open mark file. */
export interface JobIdMark {
  /** The id in the file (0 when the file is new or empty). */
  read(): number;
  /** Replaces the id in the file. */
  record(id: number): void;
  close(): void;
}

/**
 * Opens (creating with mode 0600) the mark file at `path`; with `points`, each `record` reaches
 * `job-id-mark.write` before and after its write.
 * @throws Error naming the file when it cannot be opened or holds something other than an id
 */
export function openJobIdMark(path: string, points: CrashPoints | null = null): JobIdMark {
  let fd: number;
  try {
    fd = openSync(path, constants.O_RDWR | constants.O_CREAT, PRIVATE_FILE_MODE);
    fchmodSync(fd, PRIVATE_FILE_MODE);
  } catch (error) {
    throw new Error(`cannot open the job-id mark ${path}: ${(error as Error).message}`, { cause: error });
  }
  return {
    read() {
      const buffer = Buffer.alloc(Math.min(fstatSync(fd).size, 64));
      const text = buffer
        .subarray(0, readSync(fd, buffer, 0, buffer.length, 0))
        .toString('utf8')
        .trim();
      const id = text === '' ? 0 : Number(text);
      if (!Number.isSafeInteger(id) || id < 0) {
        throw new Error(
          `job-id mark ${path} holds ${JSON.stringify(text)}, not a job id: write the highest job id ever ` +
            `given out into it (at least the highest id of the store and of the folders in jobs/), or ` +
            `delete it to start from those`,
        );
      }
      return id;
    },
    record(id) {
      points?.reach({ site: 'job-id-mark.write', phase: 'before', detail: `job ${id}` });
      writeSync(fd, `${String(id).padEnd(WIDTH)}\n`, 0);
      points?.reach({ site: 'job-id-mark.write', phase: 'after', detail: `job ${id}` });
    },
    close() {
      closeSync(fd);
    },
  };
}

/** The job id the store gave out last: its AUTOINCREMENT sequence (0 before the first job). */
export function lastJobId(db: Database.Database): number {
  const row = db
    .prepare<[], { seq: number | null; maxId: number | null }>(
      "SELECT (SELECT seq FROM sqlite_sequence WHERE name = 'jobs') AS seq, (SELECT MAX(id) FROM jobs) AS maxId",
    )
    .get();
  return Math.max(row?.seq ?? 0, row?.maxId ?? 0);
}

/**
 * Raises the store's job-id sequence to `floor` when it is lower (in one IMMEDIATE transaction), so
 * the next job gets an id above `floor`; with `points`, a raise reaches `job-id-sequence.raise`
 * before and after its COMMIT.
 * @returns the sequence before and after, or null when it was already at or above `floor`
 */
export function raiseJobIdSequence(
  db: Database.Database,
  floor: number,
  points: CrashPoints | null = null,
): { readonly from: number; readonly to: number } | null {
  const detail = `to ${floor}`;
  const raised = db
    .transaction(() => {
      const from = lastJobId(db);
      if (floor <= from) return null;
      const updated = db.prepare("UPDATE sqlite_sequence SET seq = ? WHERE name = 'jobs'").run(floor).changes;
      if (updated === 0) db.prepare("INSERT INTO sqlite_sequence (name, seq) VALUES ('jobs', ?)").run(floor);
      points?.reach({ site: 'job-id-sequence.raise', phase: 'before', detail });
      return { from, to: floor };
    })
    .immediate();
  if (raised !== null) points?.reach({ site: 'job-id-sequence.raise', phase: 'after', detail });
  return raised;
}
