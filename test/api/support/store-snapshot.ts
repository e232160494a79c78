/**
 * What a server has stored, read from its data dir while it runs: every row of every table of the
 * SQLite store (opened read-only; the server's writes reach it through the WAL), the job-id mark
 * file and the names of the job folders. Two snapshots taken around requests that were all refused
 * must be equal: a refused request stores nothing.
 */
import Database from 'better-sqlite3';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';

/** Every stored thing of a data dir, as plain JSON values. */
export interface StoreSnapshot {
  /** Rows per table (`sqlite_master` tables, `sqlite_*` internals left out), in rowid order. */
  readonly tables: Readonly<Record<string, readonly unknown[]>>;
  /** Contents of `<data>/last-job-id`, or null when absent. */
  readonly lastJobIdMark: string | null;
  /** Names of the folders under `<data>/jobs`, sorted. */
  readonly jobFolders: readonly string[];
}

/**
 * Reads every table of `<dataDir>/gpushare.db` and the files next to it. `skipTables` matches
 * tables whose rows are records about requests rather than state requests create (an audit log
 * writes an entry for a refused call too); they are left out and named in the snapshot as such.
 */
export function snapshotStore(dataDir: string, skipTables: RegExp | null = null): StoreSnapshot {
  const db = new Database(join(dataDir, 'gpushare.db'), { readonly: true, fileMustExist: true });
  try {
    const names = (
      db
        .prepare("SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%' ORDER BY name")
        .all() as { name: string }[]
    ).map((r) => r.name);
    const tables: Record<string, unknown[]> = {};
    for (const name of names) {
      if (skipTables?.test(name)) continue;
      const withoutRowid = (db.prepare('SELECT sql FROM sqlite_master WHERE name = ?').get(name) as { sql: string }).sql
        .toUpperCase()
        .includes('WITHOUT ROWID');
      const quoted = `"${name.replaceAll('"', '""')}"`;
      tables[name] = db.prepare(`SELECT * FROM ${quoted}${withoutRowid ? '' : ' ORDER BY rowid'}`).all();
    }
    const mark = join(dataDir, 'last-job-id');
    const jobs = join(dataDir, 'jobs');
    return {
      tables,
      lastJobIdMark: existsSync(mark) ? readFileSync(mark, 'utf8') : null,
      jobFolders: existsSync(jobs) ? readdirSync(jobs).sort() : [],
    };
  } finally {
    db.close();
  }
}
