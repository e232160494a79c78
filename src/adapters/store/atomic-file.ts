/**
 * Replacing a file of the server's own so that its path holds either the previous file or the
 * complete new one, never a partial one: write to a unique temporary name in the same folder (the
 * name below), flush it, rename it over the path, flush the folder (`syncFolder`). Files a caller
 * names are written by caller-path.ts instead.
 */
import { closeSync, fsyncSync, openSync } from 'node:fs';
import { randomBytes } from 'node:crypto';
import { basename, dirname, join } from 'node:path';

/** A fresh temporary file name next to `path` (same folder, so a rename is atomic). */
export function temporaryPathNextTo(path: string): string {
  return join(dirname(path), `.${basename(path)}.tmp-${process.pid}-${randomBytes(4).toString('hex')}`);
}

/** Flushes a folder's entries (a rename in it) to disk; a no-op where folders cannot be opened. */
export function syncFolder(folder: string): void {
  let fd: number;
  try {
    fd = openSync(folder, 'r');
  } catch {
    return;
  }
  try {
    fsyncSync(fd);
  } catch {
    // some file systems refuse fsync on folders; the rename itself is still atomic
  } finally {
    closeSync(fd);
  }
}
