/**
 * Files the server writes where a caller asked (a backup's `path`), written so that no other local
 * user can steer the write elsewhere (docs/security.md "Paths a caller names"):
 * - A `..` component is refused: the path must say where it goes.
 * - The folder is walked one component at a time from `/`, each opened with
 *   `O_RDONLY | O_DIRECTORY | O_NOFOLLOW` relative to the folder before it (through
 *   `/proc/self/fd/<fd>/<name>`), so that the folder written into is the one checked, whatever is
 *   renamed meanwhile.
 * - A symbolic link among the components is followed only when no user other than root could have
 *   placed it: the link is owned by root and lies in a folder owned by root that nobody else may
 *   write, or may write only with the sticky bit (as `/tmp`), which keeps others from replacing it.
 *   A server not running as root trusts its own user as it trusts root.
 *   System links (`/var/run → /run`) pass; a link a tenant made, or one in a folder a tenant can
 *   write, is refused. The link's own text is walked the same way.
 * - The folder written into must be one only root could remove or replace the file in (the same
 *   rule as for a link's folder): a folder a tenant owns or may write is refused.
 * - The file is made in the checked folder with `O_CREAT | O_EXCL | O_NOFOLLOW` (mode 0600) under a
 *   temporary name, written and flushed, then linked to its name (refused when that name exists:
 *   nothing is ever overwritten) and the temporary name removed, all through the folder's
 *   descriptor; on any failure the temporary file is removed.
 * Refusals are 422 errors naming the field (`invalidField`); errors of the system (EACCES, EROFS,
 * ENOSPC) are thrown as they are.
 */
import {
  closeSync,
  constants,
  fchmodSync,
  fstatSync,
  fsyncSync,
  linkSync,
  lstatSync,
  openSync,
  readlinkSync,
  renameSync,
  unlinkSync,
  type Stats,
} from 'node:fs';
import { randomBytes } from 'node:crypto';
import { invalidField, type GpushareError } from '../../app/errors.js';
import { PRIVATE_FILE_MODE } from './private-file.js';

const { O_RDONLY, O_WRONLY, O_CREAT, O_EXCL, O_DIRECTORY, O_NOFOLLOW } = constants;

/** The sticky bit of a folder's mode (S_ISVTX): only an entry's owner may remove or rename it. */
const STICKY_BIT = 0o1000;

/** Most symbolic links followed in one path (the kernel's own limit). */
const MAX_SYMLINKS = 40;

/** `/proc/self/fd/<fd>/<name>`: `name` in the folder open as `fd`, reached without resolving its path again. */
function inFolder(fd: number, name: string): string {
  return `/proc/self/fd/${fd}/${name}`;
}

/**
 * True when only root (or the server's own user, who holds the server's rights already: the same as
 * root for a root server) could have placed a symbolic link with `link`'s status in a folder with
 * `folder`'s status: the link is theirs, and the folder is theirs and writable by nobody else, or
 * only with the sticky bit (others may add entries there but never replace theirs).
 */
function placedByRoot(link: Stats, folder: Stats): boolean {
  return trustedUid(link.uid) && onlyRootReplaces(folder);
}

/** Root, or the server's own user. */
function trustedUid(uid: number): boolean {
  return uid === 0 || uid === process.geteuid?.();
}

/**
 * True when no user other than root (or the server's own) can remove or replace an entry root made
 * in a folder with `folder`'s status: the folder is theirs and writable by nobody else, or only with
 * the sticky bit.
 */
function onlyRootReplaces(folder: Stats): boolean {
  if (!trustedUid(folder.uid)) return false;
  const othersMayWrite = (folder.mode & 0o022) !== 0;
  return !othersMayWrite || (folder.mode & STICKY_BIT) !== 0;
}

/** `uid 200000 with mode 0755`: who holds a folder, for a refusal. */
function folderOwnership(folder: Stats): string {
  return `uid ${folder.uid} with mode ${(folder.mode & 0o7777).toString(8).padStart(4, '0')}`;
}

/** The components of a path or of a link's text, without empty ones and `.`. */
function componentsOf(text: string): string[] {
  return text.split('/').filter((name) => name !== '' && name !== '.');
}

/**
 * Refuses a path with a `..` component, or not absolute, or naming no file (422 naming `field`).
 * @returns the folder's components and the file's name
 */
export function splitCallerPath(path: string, field: string): { folder: string[]; name: string } {
  if (!path.startsWith('/')) throw invalidField(field, `${path} is not an absolute path`);
  if (path.split('/').includes('..'))
    throw invalidField(field, `${path} has a ".." component; give the path without it`);
  const components = componentsOf(path);
  const name = components.pop();
  if (name === undefined || path.endsWith('/'))
    throw invalidField(field, `${path} names a folder; give a file name in it`);
  return { folder: components, name };
}

/** A folder opened by {@link openCheckedFolder}. */
interface CheckedFolder {
  readonly fd: number;
  close(): void;
}

/**
 * Opens the folder `/` + `components` as described in the module comment.
 * @throws GpushareError 422 naming `field` for a symbolic link another user could have placed, a
 * component that is missing or not a folder, or too many links; the system's error otherwise
 */
function openCheckedFolder(path: string, components: readonly string[], field: string): CheckedFolder {
  const stack: number[] = [openSync('/', O_RDONLY | O_DIRECTORY)];
  const closeAll = (): void => {
    for (const fd of stack.splice(0)) closeSync(fd);
  };
  const refuse = (message: string): never => {
    closeAll();
    throw invalidField(field, `${path}: ${message}`);
  };
  const queue = [...components];
  const walked: string[] = [];
  let links = 0;
  try {
    while (queue.length > 0) {
      const name = queue.shift()!;
      if (name === '..') {
        // only from the text of a link root placed
        if (stack.length > 1) closeSync(stack.pop()!);
        walked.pop();
        continue;
      }
      const parent = stack.at(-1)!;
      const at = inFolder(parent, name);
      const shown = `/${[...walked, name].join('/')}`;
      let entry: Stats;
      try {
        entry = lstatSync(at);
      } catch (error) {
        const code = (error as NodeJS.ErrnoException).code;
        if (code === 'ENOENT') return refuse(`folder ${shown} does not exist on the server`);
        throw error;
      }
      if (entry.isSymbolicLink()) {
        const folder = fstatSync(parent);
        if (!placedByRoot(entry, folder)) {
          return refuse(
            `${shown} is a symbolic link that a user other than root could have placed (the link is ` +
              `uid ${entry.uid}'s, in a folder of ${folderOwnership(folder)}); give a path without it`,
          );
        }
        if (++links > MAX_SYMLINKS) return refuse(`more than ${MAX_SYMLINKS} symbolic links`);
        const text = readlinkSync(at);
        if (text.startsWith('/')) {
          while (stack.length > 1) closeSync(stack.pop()!);
          walked.length = 0;
        }
        queue.unshift(...componentsOf(text));
        continue;
      }
      if (!entry.isDirectory()) return refuse(`${shown} is not a folder`);
      let fd: number;
      try {
        fd = openSync(at, O_RDONLY | O_DIRECTORY | O_NOFOLLOW);
      } catch (error) {
        const code = (error as NodeJS.ErrnoException).code;
        // replaced by a link or a file since it was looked at
        if (code === 'ELOOP' || code === 'ENOTDIR' || code === 'ENOENT')
          return refuse(`${shown} changed while it was checked`);
        throw error;
      }
      stack.push(fd);
      walked.push(name);
    }
  } catch (error) {
    closeAll();
    throw error;
  }
  const folder = fstatSync(stack.at(-1)!);
  if (!onlyRootReplaces(folder)) {
    return refuse(
      `folder /${walked.join('/')} is of ${folderOwnership(folder)}: a user other than root could remove or ` +
        `replace what is written there; give a folder root owns that nobody else may write (or only with the ` +
        `sticky bit, as /tmp)`,
    );
  }
  const fd = stack.pop()!;
  closeAll();
  return { fd, close: () => closeSync(fd) };
}

/** Removes `name` from the folder open as `fd`; a missing one is fine. */
function removeQuietly(fd: number, name: string): void {
  try {
    unlinkSync(inFolder(fd, name));
  } catch {
    // never made, or already moved
  }
}

/** Flushes the folder's entries; some file systems refuse fsync on folders (the link is still made). */
function syncFolderFd(fd: number): void {
  try {
    fsyncSync(fd);
  } catch {
    // see above
  }
}

/**
 * Writes a new private file (mode 0600) at `path`, a path a caller named in the request field
 * `field`, as the module comment says: `write(fd)` writes the whole content to the open file
 * (descriptor of a new file in the checked folder); it is flushed and then given its name.
 * @returns the file's size in bytes
 * @throws GpushareError 422 naming `field` for a refused path or an existing file; the system's
 * error when the folder cannot be written (EACCES, EROFS, ENOSPC); whatever `write` throws. Nothing
 * is left behind on any failure.
 */
export async function writeCallerFile(
  path: string,
  field: string,
  write: (fd: number) => Promise<void> | void,
): Promise<number> {
  const { folder: components, name } = splitCallerPath(path, field);
  const folder = openCheckedFolder(path, components, field);
  const temporary = `.${name}.tmp-${process.pid}-${randomBytes(4).toString('hex')}`;
  try {
    let bytes: number;
    const fd = openSync(inFolder(folder.fd, temporary), O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW, PRIVATE_FILE_MODE);
    try {
      fchmodSync(fd, PRIVATE_FILE_MODE); // whatever the umask
      await write(fd);
      fsyncSync(fd);
      bytes = fstatSync(fd).size;
    } catch (error) {
      removeQuietly(folder.fd, temporary);
      throw error;
    } finally {
      closeSync(fd);
    }
    try {
      giveName(folder.fd, temporary, name, path, field);
    } finally {
      removeQuietly(folder.fd, temporary);
    }
    syncFolderFd(folder.fd);
    return bytes;
  } finally {
    folder.close();
  }
}

/**
 * Links `temporary` to `name` in the folder open as `fd`, refusing an existing `name`; where the
 * file system has no hard links, renames it unless `name` exists.
 */
function giveName(fd: number, temporary: string, name: string, path: string, field: string): void {
  const exists = (): GpushareError =>
    invalidField(field, `${path} exists; the server never overwrites a file (choose a new name)`);
  try {
    linkSync(inFolder(fd, temporary), inFolder(fd, name));
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'EEXIST') throw exists();
    if (code !== 'EPERM' && code !== 'ENOTSUP' && code !== 'EOPNOTSUPP') throw error;
    try {
      lstatSync(inFolder(fd, name));
    } catch {
      renameSync(inFolder(fd, temporary), inFolder(fd, name));
      return;
    }
    throw exists();
  }
}
