/**
 * `gpushare audit verify` on this machine: opens the store file read-only (the server may be
 * running), recomputes the audit log's hash chain and checks it against the head journal
 * `<data-dir>/audit-head` (src/app/audit/audit-chain.ts).
 */
import { existsSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { verifyAuditChain } from '../app/audit/audit-chain.js';
import { readAuditHeadJournal } from '../adapters/store/audit-head-journal.js';
import { readAuditRows } from '../adapters/store/sqlite-audit-log.js';
import { openSqliteStore } from '../adapters/store/sqlite-store.js';
import type { AuditVerifyReport } from '../cli/audit-command.js';
import { defaultDataDir } from '../config/server-config.js';
import { AUDIT_HEAD_FILE } from './server-audit.js';

/**
 * Verifies the audit log of `dataDir` (null: the default data directory).
 * @throws Error naming the file when the store is missing or cannot be read, or a journal line is malformed
 */
export function verifyDataDirAudit(
  dataDir: string | null,
  env: Readonly<Record<string, string | undefined>> = process.env,
): AuditVerifyReport {
  const dir = resolve(dataDir ?? defaultDataDir(env));
  const storePath = join(dir, 'gpushare.db');
  const journalPath = join(dir, AUDIT_HEAD_FILE);
  if (!existsSync(storePath)) throw new Error(`no store at ${storePath}: give the server's --data-dir`);
  const journal = readAuditHeadJournal(journalPath);
  const store = openSqliteStore(storePath, { readonly: true });
  try {
    const result = verifyAuditChain(readAuditRows(store.database), journal);
    return { ...result, store: storePath, journal: journalPath };
  } finally {
    store.close();
  }
}
