/**
 * Bearer tokens: 256 random bits, shown to the user once, stored only as a SHA-256 digest.
 */
import { createHash, randomBytes } from 'node:crypto';
import type { TokenRole } from '../ports/state-store.js';

/** Prefix that makes gpushare tokens recognisable (e.g. by secret scanners). */
export const TOKEN_PREFIX = 'gs_';

/** A new random token: `gs_` + 32 random bytes in base64url (256 bits of entropy). */
export function generateToken(): string {
  return TOKEN_PREFIX + randomBytes(32).toString('base64url');
}

/** Lower-case hex SHA-256 of a token string: what the store keeps and looks tokens up by. */
export function tokenDigest(token: string): string {
  return createHash('sha256').update(token, 'utf8').digest('hex');
}

/**
 * Who is calling: an admin, a tenant's token, or a job's report token (`GPUSHARE_JOB_TOKEN`), which
 * may only report progress for its own job (src/app/auth/job-scope.ts) and has no other rights:
 * every check that grants something tests for `admin` or `tenant` explicitly.
 */
export interface Principal {
  readonly role: TokenRole | 'job';
  /** The token's tenant; null for admins and job tokens. */
  readonly tenant: string | null;
  /** The job a report token belongs to; absent for admin and tenant tokens. */
  readonly jobId?: number;
  /** The stored token's id (admin and tenant tokens); absent for a job's report token. */
  readonly tokenId?: number;
}
