/**
 * `<data-dir>/audit-anchored`: the last audit head the server handed to its anchor command
 * (`--audit-anchor-command`), one line `seq hash`, replaced atomically (a temporary file fsynced and
 * renamed over it). `gpushare audit verify` reads it to report the entries not yet anchored.
 */
import { closeSync, fsyncSync, openSync, readFileSync, renameSync, writeSync } from 'node:fs';

/** The file's name in the data directory. */
export const AUDIT_ANCHORED_FILE = 'audit-anchored';

/** A head: the seq of an audit entry and its hash. */
export interface AnchoredHead {
  readonly seq: number;
  readonly hash: string;
}

/**
 * Reads the file. @returns null when it does not exist or does not hold one `seq hash` line
 * @throws Error of the system when it exists but cannot be read
 */
export function readAnchoredHead(path: string): AnchoredHead | null {
  let text: string;
  try {
    text = readFileSync(path, 'latin1');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return null;
    throw error;
  }
  const match = /^(\d{1,15}) ([0-9a-f]{64})\n$/.exec(text);
  return match === null ? null : { seq: Number(match[1]), hash: match[2]! };
}

/** Replaces the file with `head` (mode 0600). @throws Error of the system when it cannot be written */
export function writeAnchoredHead(path: string, head: AnchoredHead): void {
  const temporary = `${path}.new`;
  const fd = openSync(temporary, 'w', 0o600);
  try {
    writeSync(fd, `${head.seq} ${head.hash}\n`);
    fsyncSync(fd);
  } finally {
    closeSync(fd);
  }
  renameSync(temporary, path);
}
