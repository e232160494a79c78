/**
 * Writing a store backup so that `path` holds either the previous file or the complete new one,
 * never a partial one: write to a unique temporary name in the same folder, flush it, rename it
 * over `path`, flush the folder.
 */
import { closeSync, fsyncSync, openSync, renameSync, rmSync } from 'node:fs';
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

/**
 * Runs `write(temporaryPath)`, which must create and flush the complete file, then renames it over
 * `path`. On any failure the temporary file is removed and the error is rethrown; `path` is untouched.
 */
export async function replaceFileAtomically(
  path: string,
  write: (temporaryPath: string) => Promise<void> | void,
): Promise<void> {
  const temporary = temporaryPathNextTo(path);
  try {
    await write(temporary);
    renameSync(temporary, path);
  } catch (err) {
    rmSync(temporary, { force: true });
    throw err;
  }
  syncFolder(dirname(path));
}
