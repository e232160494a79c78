/**
 * The Unix uid each tenant's jobs run under (docs/security.md): one unprivileged uid per tenant,
 * from the operator's configuration or else the next free one of a reserved range, recorded in
 * `<data-dir>/tenant-uids.json` (0600, written atomically) so that a tenant keeps its uid across
 * restarts and a uid, once given, is never given to another tenant. The file is not part of the
 * store's backups: a restore never hands an old tenant's uid (and so its files) to a new one.
 */
import { readFileSync, renameSync, writeFileSync } from 'node:fs';

/** A reserved range of uids: `first` … `first + count - 1`. */
export interface UidRange {
  readonly first: number;
  readonly count: number;
}

/** Where tenants' uids come from. */
export interface TenantUidSettings {
  /** Uids the operator chose per tenant name; they win over the range. */
  readonly configured: Readonly<Record<string, number>>;
  /** The range other tenants' uids are taken from. */
  readonly range: UidRange;
}

/** Maps tenants to uids; `uidOf` allocates on first use. */
export interface TenantUids {
  /** The tenant's uid (gid is the same number). Throws when the range is exhausted. */
  uidOf(tenant: string): number;
}

/** Reads the recorded map; empty when the file does not exist. Throws naming the file when malformed. */
function readRecorded(path: string): Record<string, number> {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return {};
    throw error;
  }
  const value = JSON.parse(text) as unknown;
  if (
    typeof value !== 'object' ||
    value === null ||
    Array.isArray(value) ||
    Object.values(value).some((uid) => !Number.isSafeInteger(uid) || (uid as number) < 1)
  ) {
    throw new Error(`${path}: expected a JSON object of tenant name → uid (integer >= 1)`);
  }
  return value as Record<string, number>;
}

/**
 * Opens the tenant → uid map kept in `path`. Throws RangeError for a range that starts below 1000
 * (the system's own accounts) or a configured uid below 1000, naming the setting.
 */
export function openTenantUids(path: string, settings: TenantUidSettings): TenantUids {
  const { first, count } = settings.range;
  if (!Number.isSafeInteger(first) || first < 1000 || !Number.isSafeInteger(count) || count < 1) {
    throw new RangeError(
      `sandboxUidRange must be FIRST-LAST with 1000 <= FIRST <= LAST, got ${first}-${first + count - 1}`,
    );
  }
  for (const [tenant, uid] of Object.entries(settings.configured)) {
    if (!Number.isSafeInteger(uid) || uid < 1000)
      throw new RangeError(`tenantUids.${tenant} must be an integer >= 1000, got ${uid}`);
  }
  const recorded = readRecorded(path);
  return {
    uidOf(tenant) {
      const configured = settings.configured[tenant];
      if (configured !== undefined) return configured;
      const known = recorded[tenant];
      if (known !== undefined) return known;
      const taken = new Set([...Object.values(recorded), ...Object.values(settings.configured)]);
      for (let uid = first; uid < first + count; uid++) {
        if (taken.has(uid)) continue;
        recorded[tenant] = uid;
        const temporary = `${path}.tmp-${process.pid}`;
        writeFileSync(temporary, `${JSON.stringify(recorded, null, 2)}\n`, { mode: 0o600 });
        renameSync(temporary, path);
        return uid;
      }
      throw new Error(`no free uid left in sandboxUidRange ${first}-${first + count - 1} for tenant ${tenant}`);
    },
  };
}
