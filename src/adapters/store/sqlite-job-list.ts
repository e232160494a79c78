/**
 * `listJobs` of the SQLite store. The selectors of a JobFilter run in SQL on indexes (tenant and
 * state, `submitted_at_ms`, the id cursor, and a name pattern's literal prefix as an index range
 * through GLOB); the name pattern's matcher (src/lib/name-pattern.ts) decides the rest of the
 * pattern while the ids are read, so a page stops reading as soon as it is full. The records come
 * from the active-job cache, the rest in one query. One read transaction: a consistent snapshot.
 */
import type Database from 'better-sqlite3';
import type { JobFilter, JobRecord } from '../../app/ports/state-store.js';
import { compileNamePattern, type NamePattern } from '../../lib/name-pattern.js';
import type { ActiveJobCache } from './sqlite-job-cache.js';
import { JOB_SELECT_LIST, type JobRow } from './sqlite-rows.js';

/** Above this many uncached jobs, the records are read in one query instead of one by one. */
const BULK_READ_MISSES = 256;

/** `text` as a GLOB pattern that matches exactly it (`*`, `?` and `[` in brackets). */
function globLiteral(text: string): string {
  return text.replace(/[*?[]/g, (c) => `[${c}]`);
}

/** The SQL shape of a filter (which conditions it has), the key of its prepared statement. */
interface FilterShape {
  readonly byTenant: boolean;
  readonly stateCount: number;
  readonly since: boolean;
  readonly after: boolean;
  /** `=` for an exact name, `glob` for a prefix range, `none` when the pattern starts with `*` or there is none. */
  readonly name: 'none' | 'exact' | 'glob';
  readonly descending: boolean;
  /** The SQL can stop after N rows (no matcher left to decide). */
  readonly sqlLimit: boolean;
}

/**
 * The `listJobs` of one connection.
 * @param recordOf the frozen record of a row (from the cache when it has one)
 * @returns the method; it throws RangeError for a malformed name pattern
 */
export function sqliteJobLister(
  db: Database.Database,
  cache: ActiveJobCache,
  recordOf: (row: JobRow) => JobRecord,
): (filter: JobFilter) => JobRecord[] {
  const idStatements = new Map<string, Database.Statement<unknown[], [number, string]>>();
  const idStatement = (shape: FilterShape): Database.Statement<unknown[], [number, string]> => {
    const key = JSON.stringify(shape);
    let statement = idStatements.get(key);
    if (statement === undefined) {
      const where: string[] = [];
      if (shape.byTenant) where.push('tenant = ?');
      if (shape.stateCount > 0) where.push(`state IN (${new Array<string>(shape.stateCount).fill('?').join(', ')})`);
      if (shape.since) where.push('submitted_at_ms >= ?');
      if (shape.after) where.push('id > ?');
      if (shape.name === 'exact') where.push('name = ?');
      if (shape.name === 'glob') where.push('name GLOB ?');
      const whereSql = where.length > 0 ? ` WHERE ${where.join(' AND ')}` : '';
      statement = db
        .prepare<unknown[], [number, string]>(
          `SELECT id, name FROM jobs${whereSql} ORDER BY id ${shape.descending ? 'DESC' : 'ASC'}` +
            `${shape.sqlLimit ? ' LIMIT ?' : ''}`,
        )
        .raw();
      idStatements.set(key, statement);
    }
    return statement;
  };
  const rowsById = db
    .prepare<[string], JobRow>(
      `SELECT ${JOB_SELECT_LIST} FROM jobs WHERE id IN (SELECT value FROM json_each(?)) ORDER BY id`,
    )
    .raw();
  const rowById = db.prepare<[number], JobRow>(`SELECT ${JOB_SELECT_LIST} FROM jobs WHERE id = ?`).raw();

  /** Ids of the matching jobs, by ascending id, newest and limit applied. */
  const matchingIds = (filter: JobFilter, pattern: NamePattern | null): number[] => {
    const states = filter.states === undefined ? [] : [...new Set(filter.states)];
    const name = pattern === null ? 'none' : pattern.exact ? 'exact' : pattern.prefix === '' ? 'none' : 'glob';
    const wanted = filter.newest ?? filter.limit;
    const matcherLeft = pattern !== null && !pattern.exact;
    const shape: FilterShape = {
      byTenant: filter.tenant !== undefined,
      stateCount: states.length,
      since: filter.submittedSinceMs !== undefined,
      after: filter.afterId !== undefined,
      name,
      descending: filter.newest !== undefined,
      sqlLimit: wanted !== undefined && !matcherLeft,
    };
    const args: unknown[] = [];
    if (filter.tenant !== undefined) args.push(filter.tenant);
    args.push(...states);
    if (filter.submittedSinceMs !== undefined) args.push(filter.submittedSinceMs);
    if (filter.afterId !== undefined) args.push(filter.afterId);
    if (name === 'exact') args.push(pattern!.pattern);
    if (name === 'glob') args.push(`${globLiteral(pattern!.prefix)}*`);
    if (shape.sqlLimit) args.push(wanted);
    const ids: number[] = [];
    // Stops reading at `wanted` matches (the iterator is closed on break).
    for (const [id, jobName] of idStatement(shape).iterate(...args)) {
      if (matcherLeft && !pattern.matches(jobName)) continue;
      ids.push(id);
      if (wanted !== undefined && ids.length >= wanted) break;
    }
    if (filter.newest !== undefined) ids.reverse();
    return filter.newest !== undefined && filter.limit !== undefined ? ids.slice(0, filter.limit) : ids;
  };

  return db.transaction((filter: JobFilter): JobRecord[] => {
    if (filter.states !== undefined && filter.states.length === 0) return [];
    const pattern = filter.namePattern === undefined ? null : compileNamePattern(filter.namePattern);
    const ids = matchingIds(filter, pattern);
    cache.revalidate(); // after the first read: the cache is checked against this transaction's snapshot
    const missing = ids.filter((id) => cache.get(id) === undefined);
    const read = new Map<number, JobRecord>();
    if (missing.length > BULK_READ_MISSES)
      for (const row of rowsById.all(JSON.stringify(missing))) read.set(row[0], recordOf(row));
    return ids.map((id) => {
      const known = cache.get(id) ?? read.get(id);
      if (known !== undefined) return known;
      const row = rowById.get(id);
      if (row === undefined) throw new Error(`job ${id} vanished inside a read transaction`);
      return recordOf(row);
    });
  });
}
