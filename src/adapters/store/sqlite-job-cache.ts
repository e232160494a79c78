/**
 * The SQLite store's in-process cache of active jobs: parsed, deep-frozen records of the jobs that
 * are not in a terminal state (the queue and what runs — the records a scheduling pass lists over
 * and over). Terminal jobs are never kept, so the cache stays as small as the active set.
 *
 * Coherence: the store forgets a job whenever it writes it; and `PRAGMA data_version`, which
 * changes when any other connection (another process, a second store object) commits, empties the
 * whole cache on the next read. Whoever writes through the store's own connection behind its back
 * (`SqliteStateStore.database`) must not expect the cache to notice.
 */
import type Database from 'better-sqlite3';
import { isTerminal } from '../../core/index.js';
import type { JobRecord } from '../../app/ports/state-store.js';

/** Frozen records of the active jobs of one connection, by id. */
export class ActiveJobCache {
  private readonly records = new Map<number, JobRecord>();
  private readonly dataVersion: Database.Statement<[], number>;
  private seenDataVersion: number;

  /** @param db the connection whose reads and writes the cache follows */
  constructor(db: Database.Database) {
    this.dataVersion = db.prepare<[], number>('PRAGMA data_version').pluck();
    this.seenDataVersion = this.readDataVersion();
  }

  private readDataVersion(): number {
    return this.dataVersion.get() ?? 0;
  }

  /**
   * Empties the cache when another connection committed since the last call. Call it before
   * trusting the cache: outside a transaction before reading, inside one after its first read.
   */
  revalidate(): void {
    const version = this.readDataVersion();
    if (version !== this.seenDataVersion) {
      this.records.clear();
      this.seenDataVersion = version;
    }
  }

  /** The cached record of a job, if any. */
  get(id: number): JobRecord | undefined {
    return this.records.get(id);
  }

  /** Keeps a frozen record read from (or just written to) the database; forgets it when terminal. */
  remember(record: JobRecord): void {
    if (isTerminal(record.state)) this.records.delete(record.id);
    else this.records.set(record.id, record);
  }

  /** Forgets a job (it was written, or a write to it failed). */
  forget(id: number): void {
    this.records.delete(id);
  }

  /** Number of cached records. */
  get size(): number {
    return this.records.size;
  }
}
