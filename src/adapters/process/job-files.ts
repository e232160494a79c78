/**
 * The job files (app/ports/job-files.ts) in a data directory: one private folder (mode 0700) per
 * job, `<dataDir>/jobs/<id>-<16 random hex digits>/` (or `<id>/` for jobs launched before schema
 * version 4), with the attempt files the supervisor writes (attempt-files.ts) and `checkpoint/`.
 * The random part makes a folder name unguessable and never the name of an earlier folder, so a
 * job can never be handed the files of another one, even when a restored store has forgotten jobs
 * whose folders are still on disk (docs/store.md).
 */
import { randomBytes } from 'node:crypto';
import { chmodSync, closeSync, mkdirSync, openSync, readSync, rmSync, statSync } from 'node:fs';
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

/** Makes `path` (one level) with mode 0700 whatever the umask; an existing one is left as it is. */
function makePrivateFolder(path: string): void {
  mkdirSync(path, { mode: JOB_FOLDER_MODE });
  chmodSync(path, JOB_FOLDER_MODE);
}

/** Job files under `<dataDir>/jobs`. */
export function createJobFiles(dataDir: string): JobFiles {
  const root = join(dataDir, 'jobs');
  const directory = (folder: string): string => {
    if (jobIdOfFolder(folder) === null) throw new RangeError(`not a job folder name: ${JSON.stringify(folder)}`);
    return join(root, folder);
  };
  const logPath = (folder: string, attempt: number, stream: LogStream): string => {
    const files = attemptFiles(directory(folder), attempt);
    return stream === 'stdout' ? files.stdoutPath : files.stderrPath;
  };
  return {
    createFolder(jobId) {
      mkdirSync(root, { recursive: true, mode: JOB_FOLDER_MODE });
      const folder = `${jobId}-${randomBytes(FOLDER_RANDOM_BYTES).toString('hex')}`;
      makePrivateFolder(directory(folder)); // EEXIST (a 2^-64 chance) fails the launch rather than share a folder
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
      try {
        return statSync(logPath(folder, attempt, stream)).size;
      } catch (error) {
        if (errnoCode(error) === 'ENOENT') return null;
        throw error;
      }
    },
    readLog(folder, attempt, stream, offset, length) {
      const buffer = Buffer.alloc(length);
      if (length === 0) return buffer;
      const fd = openSync(logPath(folder, attempt, stream), 'r');
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
