/**
 * The store's files are private to the server's user: the database, its `-wal` and `-shm` files,
 * the job-id mark and every backup hold token digests and job environments (docs/store.md).
 */
import { chmodSync, closeSync, openSync } from 'node:fs';

/** Mode of every file of the store and of its backups. */
export const PRIVATE_FILE_MODE = 0o600;

/**
 * Creates `path` empty with mode 0600 whatever the umask; an existing file is left as it is (false).
 * SQLite keeps the mode of a database file it opens and gives its `-wal`, `-shm` and journal files
 * that same mode, so a database file made here stays private with all its companions.
 * @returns true when the file was created
 * @throws Error of the system for any other reason than an existing file
 */
export function createPrivateFile(path: string): boolean {
  try {
    closeSync(openSync(path, 'wx', PRIVATE_FILE_MODE));
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'EEXIST') return false;
    throw err;
  }
  chmodSync(path, PRIVATE_FILE_MODE);
  return true;
}
