/**
 * Bearer tokens: 256 random bits, shown to the user once, stored only as a SHA-256 digest.
 */
import { createHash, randomBytes } from 'node:crypto';

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

/** Who is calling: an admin, or a tenant's token. */
export interface Principal {
  readonly role: 'admin' | 'tenant';
  /** The token's tenant; null for admins. */
  readonly tenant: string | null;
}
