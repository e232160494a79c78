/**
 * `gpushare audit verify` on this machine: opens the store file read-only (the server may be
 * running), recomputes the audit log's hash chain and checks it against the head journal
 * `<data-dir>/audit-head`, the append-only triggers and, with `--anchor-file`, an outside copy of the
 * heads the anchor command received (src/app/audit/audit-verification.ts); reports the entries not
 * yet handed to the anchor command (`<data-dir>/audit-anchored`).
 */
import { existsSync, readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { parseAuditHeadLines, type AuditHeadLines } from '../app/audit/audit-head-lines.js';
import { verifyAuditChain } from '../app/audit/audit-verification.js';
import { AUDIT_ANCHORED_FILE, readAnchoredHead } from '../adapters/audit-anchor/anchored-head-file.js';
import { readAuditHeadJournal } from '../adapters/store/audit-head-journal.js';
import { missingAuditTriggers } from '../adapters/store/audit-triggers.js';
import { readAuditRows } from '../adapters/store/sqlite-audit-log.js';
import { openSqliteStore } from '../adapters/store/sqlite-store.js';
import type { AuditVerifyOptions, AuditVerifyReport } from '../cli/audit-command.js';
import { UsageError } from '../cli/exit-codes.js';
import { defaultDataDir } from '../config/server-config.js';
import { AUDIT_HEAD_FILE } from './server-audit.js';

/** The anchor's copy at `path`. @throws UsageError naming --anchor-file when it cannot be read */
function readAnchorCopy(path: string): AuditHeadLines {
  try {
    return parseAuditHeadLines(readFileSync(path, 'utf8'), 'anchor-copy');
  } catch (error) {
    throw new UsageError(`--anchor-file: cannot read ${path}: ${(error as Error).message}`);
  }
}

/**
 * Verifies the audit log of `dataDir` (null: the default data directory).
 * @throws Error naming the file when the store is missing or cannot be read; UsageError naming
 *   --anchor-file when that file cannot be read
 */
export function verifyDataDirAudit(
  dataDir: string | null,
  options: AuditVerifyOptions = { anchorFile: null },
  env: Readonly<Record<string, string | undefined>> = process.env,
): AuditVerifyReport {
  const dir = resolve(dataDir ?? defaultDataDir(env));
  const storePath = join(dir, 'gpushare.db');
  const journalPath = join(dir, AUDIT_HEAD_FILE);
  if (!existsSync(storePath)) throw new Error(`no store at ${storePath}: give the server's --data-dir`);
  const anchor = options.anchorFile === null ? null : readAnchorCopy(options.anchorFile);
  const journal = readAuditHeadJournal(journalPath);
  const anchored = readAnchoredHead(join(dir, AUDIT_ANCHORED_FILE));
  const store = openSqliteStore(storePath, { readonly: true });
  try {
    const result = verifyAuditChain(readAuditRows(store.database), journal, {
      missingTriggers: missingAuditTriggers(store.database),
      anchor,
    });
    const unanchored =
      anchored !== null && result.ok && result.head.seq > anchored.seq
        ? { fromSeq: anchored.seq + 1, toSeq: result.head.seq }
        : null;
    return {
      ...result,
      store: storePath,
      journal: journalPath,
      anchorFile: options.anchorFile === null ? null : resolve(options.anchorFile),
      anchoredSeq: anchored?.seq ?? null,
      unanchored,
    };
  } finally {
    store.close();
  }
}
