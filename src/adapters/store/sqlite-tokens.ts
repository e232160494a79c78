/**
 * The token part of the SQLite state store: digests, roles, expiry, revocation and rotation
 * (StateStore's token methods; src/adapters/store/sqlite-store.ts composes it). Writes run through
 * the store's own transaction wrapper, so a conflict or a full disk is reported as for every write.
 */
import type Database from 'better-sqlite3';
import { type NewToken, type StateStore, StoreConflictError, type TokenRecord } from '../../app/ports/state-store.js';
import { deepFreeze } from './deep-freeze.js';
import { TOKEN_SELECT_LIST, type TokenRow, tokenFromRow } from './sqlite-rows.js';

/** StateStore's token methods. */
type TokenMethods = Pick<
  StateStore,
  'createToken' | 'findTokenByDigest' | 'getToken' | 'listTokens' | 'revokeToken' | 'rotateToken'
>;

/**
 * The token methods over `db`.
 * @param write the store's transaction wrapper (one transaction per call, named by the method; errors mapped)
 * @param requireTenant throws StoreConflictError for an unknown tenant
 */
export function sqliteTokenMethods(
  db: Database.Database,
  write: <A extends unknown[], R>(name: string, fn: (...args: A) => R) => (...args: A) => R,
  requireTenant: (name: string) => void,
): TokenMethods {
  const sql = {
    byDigest: db.prepare<[string], TokenRow>(`SELECT ${TOKEN_SELECT_LIST} FROM tokens WHERE digest = ?`),
    byId: db.prepare<[number], TokenRow>(`SELECT ${TOKEN_SELECT_LIST} FROM tokens WHERE id = ?`),
    list: db.prepare<[], TokenRow>(`SELECT ${TOKEN_SELECT_LIST} FROM tokens ORDER BY id`),
    listByTenant: db.prepare<[string], TokenRow>(
      `SELECT ${TOKEN_SELECT_LIST} FROM tokens WHERE tenant = ? ORDER BY id`,
    ),
    insert: db.prepare<[string, string, string | null, string, number, number | null, number]>(
      'INSERT INTO tokens (digest, role, tenant, label, created_at_ms, expires_at_ms, created_by_server) ' +
        'VALUES (?, ?, ?, ?, ?, ?, ?)',
    ),
    revoke: db.prepare<[number, number]>('UPDATE tokens SET revoked_at_ms = coalesce(revoked_at_ms, ?) WHERE id = ?'),
    rotate: db.prepare<[string, number, number]>('UPDATE tokens SET digest = ?, rotated_at_ms = ? WHERE id = ?'),
  };
  const recordOf = (row: TokenRow | undefined): TokenRecord | null =>
    row === undefined ? null : deepFreeze(tokenFromRow(row));
  const read = (id: number): TokenRecord => {
    const record = recordOf(sql.byId.get(id));
    if (record === null) throw new StoreConflictError(`token ${id} does not exist`);
    return record;
  };
  return {
    createToken: write('createToken', (token: NewToken): TokenRecord => {
      if (sql.byDigest.get(token.digest) !== undefined)
        throw new StoreConflictError('a token with this digest already exists');
      if (token.tenant !== null) requireTenant(token.tenant);
      const id = Number(
        sql.insert.run(
          token.digest,
          token.role,
          token.tenant,
          token.label,
          token.createdAtMs,
          token.expiresAtMs ?? null,
          token.createdByServer === true ? 1 : 0,
        ).lastInsertRowid,
      );
      return read(id);
    }),
    findTokenByDigest: (digest) => recordOf(sql.byDigest.get(digest)),
    getToken: (id) => recordOf(sql.byId.get(id)),
    listTokens: (filter = {}) =>
      (filter.tenant === undefined ? sql.list.all() : sql.listByTenant.all(filter.tenant)).map((row) =>
        deepFreeze(tokenFromRow(row)),
      ),
    revokeToken: write('revokeToken', (id: number, atMs: number): TokenRecord => {
      if (sql.revoke.run(atMs, id).changes === 0) throw new StoreConflictError(`token ${id} does not exist`);
      return read(id);
    }),
    rotateToken: write('rotateToken', (id: number, newDigest: string, atMs: number): TokenRecord => {
      const other = sql.byDigest.get(newDigest);
      if (other !== undefined)
        throw new StoreConflictError(`a token with this digest already exists (token ${other.id})`);
      if (sql.rotate.run(newDigest, atMs, id).changes === 0) throw new StoreConflictError(`token ${id} does not exist`);
      return read(id);
    }),
  };
}
