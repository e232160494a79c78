/**
 * The job files (app/ports/job-files.ts) in a data directory: one private folder (mode 0700) per
 * job, `<dataDir>/jobs/<id>-<16 random hex digits>/` (or `<id>/` for jobs launched before schema
 * version 4), with the attempt files the supervisor writes (attempt-files.ts) and `checkpoint/`.
 * The random part makes a folder name unguessable and never the name of an earlier folder, so a
 * job can never be handed the files of another one, even when a restored store has forgotten jobs
 * whose folders are still on disk (docs/store.md).
 *
 * Logs are read only from the file the store's folder name names: never through a symbolic link a
 * job planted in place of a log file or of its folder (see {@link openLogFile}).
 */
import { randomBytes } from 'node:crypto';
import {
  chmodSync,
  closeSync,
  constants,
  fstatSync,
  mkdirSync,
  openSync,
  readlinkSync,
  readSync,
  realpathSync,
  rmSync,
} from 'node:fs';
import { join } from 'node:path';
import type { JobFiles, LogStream } from '../../app/ports/job-files.js';
import { attemptFiles } from './attempt-files.js';
import { errnoCode } from './cgroup-dir.js';

/** Mode of job folders and of `<dataDir>/jobs`: only the server's user may enter them. */
export const JOB_FOLDER_MODE = 0o700;

/** Random bytes in a new folder name (64 bits, 16 hex digits). */
const FOLDER_RANDOM_BYTES = 8;

/** A folder name this module makes (`<id>-<16 hex>`) or a legacy one (`<id>`). */
const FOLDER_NAME = /^([1-9]\d*)(?:-[0-9a-f]{16})?$/;

/** The job id a job folder's name starts with; null when `name` is not a job folder name. */
export function jobIdOfFolder(name: string): number | null {
  const match = FOLDER_NAME.exec(name);
  if (!match) return null;
  const id = Number(match[1]);
  return Number.isSafeInteger(id) ? id : null;
}

/**
 * Mode of `<dataDir>/jobs` and of job folders when a user-namespace sandbox binds job folders in
 * under the tenant's own uid: others may pass through (never list or read); every file in them is
 * private to its owner (decision 0036).
 */
export const TRAVERSABLE_FOLDER_MODE = 0o711;

/** Makes `path` (one level) with `mode` whatever the umask; an existing one is left as it is. */
function makeFolder(path: string, mode: number): void {
  mkdirSync(path, { mode });
  chmodSync(path, mode);
}

/**
 * Opens `path` for reading when it is a regular file reached through no symbolic link: the last
 * component is opened with O_NOFOLLOW (and O_NONBLOCK, so a FIFO cannot hang the server), and the
 * path the kernel says the open file has (`/proc/self/fd/N`) must be `path` itself, which a link
 * in any folder above it (a job folder swapped for a link) changes. Returns the descriptor, or
 * null for a missing file, a link, a folder that moved, or anything but a regular file.
 * @param path absolute path with no link in it (its data directory resolved)
 */
export function openLogFile(path: string): number | null {
  let fd: number;
  try {
    fd = openSync(path, constants.O_RDONLY | constants.O_NOFOLLOW | constants.O_NONBLOCK);
  } catch (error) {
    // ELOOP: the file is a link; ENOTDIR: a folder on the way is not one; ENXIO: a socket.
    if (['ENOENT', 'ELOOP', 'ENOTDIR', 'ENXIO'].includes(errnoCode(error) ?? '')) return null;
    throw error;
  }
  try {
    if (fstatSync(fd).isFile() && readlinkSync(`/proc/self/fd/${fd}`) === path) return fd;
  } catch {
    // no /proc answer: not shown
  }
  closeSync(fd);
  return null;
}

/**
 * Job files under `<dataDir>/jobs`.
 * @param folderMode mode of `jobs/` and of the job folders made: {@link JOB_FOLDER_MODE} (default) or
 *   {@link TRAVERSABLE_FOLDER_MODE} for a user-namespace sandbox
 */
export function createJobFiles(dataDir: string, folderMode: number = JOB_FOLDER_MODE): JobFiles {
  const root = join(dataDir, 'jobs');
  // Log paths are compared with what the kernel reports: the data directory as it resolves, once.
  let resolvedRoot: string | null = null;
  const resolvedLogPath = (folder: string, attempt: number, stream: LogStream): string => {
    resolvedRoot ??= join(realpathSync(dataDir), 'jobs');
    const files = attemptFiles(join(resolvedRoot, directory(folder).slice(root.length + 1)), attempt);
    return stream === 'stdout' ? files.stdoutPath : files.stderrPath;
  };
  const directory = (folder: string): string => {
    if (jobIdOfFolder(folder) === null) throw new RangeError(`not a job folder name: ${JSON.stringify(folder)}`);
    return join(root, folder);
  };
  return {
    createFolder(jobId) {
      mkdirSync(root, { recursive: true, mode: folderMode });
      const folder = `${jobId}-${randomBytes(FOLDER_RANDOM_BYTES).toString('hex')}`;
      makeFolder(directory(folder), folderMode); // EEXIST (a 2^-64 chance) fails the launch rather than share a folder
      return folder;
    },
    directory,
    prepareCheckpointDirectory(folder) {
      const checkpoint = join(directory(folder), 'checkpoint');
      mkdirSync(checkpoint, { recursive: true, mode: JOB_FOLDER_MODE });
      return checkpoint;
    },
    prepareWorkDirectory(folder) {
      const work = join(directory(folder), 'work');
      mkdirSync(work, { recursive: true, mode: JOB_FOLDER_MODE });
      return work;
    },
    logSize(folder, attempt, stream) {
      const fd = openLogFile(resolvedLogPath(folder, attempt, stream));
      if (fd === null) return null;
      try {
        return fstatSync(fd).size;
      } finally {
        closeSync(fd);
      }
    },
    readLog(folder, attempt, stream, offset, length) {
      const buffer = Buffer.alloc(length);
      if (length === 0) return buffer;
      const fd = openLogFile(resolvedLogPath(folder, attempt, stream));
      if (fd === null) return buffer.subarray(0, 0);
      try {
        const read = readSync(fd, buffer, 0, length, offset);
        return buffer.subarray(0, read);
      } finally {
        closeSync(fd);
      }
    },
    remove(folder) {
      rmSync(directory(folder), { recursive: true, force: true });
    },
  };
}
