/**
 * The server's admin token file, `<data-dir>/admin-token`: the secret of an admin token on one
 * line, mode 0600. `gpushare serve` reads it at start (AdminService.ensureAdminToken decides
 * whether it is still good) and rewrites it when that token is rotated through the API.
 */
import {
  closeSync,
  existsSync,
  fsyncSync,
  openSync,
  readFileSync,
  renameSync,
  rmSync,
  writeSync,
  chmodSync,
} from 'node:fs';
import { dirname } from 'node:path';
import { syncFolder, temporaryPathNextTo } from '../adapters/store/atomic-file.js';
import { PRIVATE_FILE_MODE } from '../adapters/store/private-file.js';

/**
 * The token in the file (trimmed), or null when there is no file or it is empty. @throws Error when it exists but
 * cannot be read
 */
export function readAdminTokenFile(path: string): string | null {
  if (!existsSync(path)) return null;
  const text = readFileSync(path, 'utf8').trim();
  return text === '' ? null : text;
}

/**
 * Writes `token` to the file atomically: a private (0600) temporary file in the same folder,
 * flushed, then renamed over it; a reader sees the old token or the new one, never a part.
 * @throws Error when the folder is not writable (the old file is then untouched)
 */
export function writeAdminTokenFile(path: string, token: string): void {
  const temporary = temporaryPathNextTo(path);
  try {
    const fd = openSync(temporary, 'wx', PRIVATE_FILE_MODE);
    try {
      writeSync(fd, `${token}\n`);
      fsyncSync(fd);
    } finally {
      closeSync(fd);
    }
    chmodSync(temporary, PRIVATE_FILE_MODE);
    renameSync(temporary, path);
  } catch (error) {
    rmSync(temporary, { force: true });
    throw error;
  }
  syncFolder(dirname(path));
}
