/**
 * The job files (app/ports/job-files.ts) in a data directory: `<dataDir>/jobs/<id>/`, with the
 * attempt files the supervisor writes (attempt-files.ts) and `checkpoint/`.
 */
import { closeSync, mkdirSync, openSync, readSync, rmSync, statSync } from 'node:fs';
import { join } from 'node:path';
import type { JobFiles, LogStream } from '../../app/ports/job-files.js';
import { attemptFiles } from './attempt-files.js';
import { errnoCode } from './cgroup-dir.js';

/** Job files under `<dataDir>/jobs`. */
export function createJobFiles(dataDir: string): JobFiles {
  const directory = (jobId: number): string => join(dataDir, 'jobs', String(jobId));
  const logPath = (jobId: number, attempt: number, stream: LogStream): string => {
    const files = attemptFiles(directory(jobId), attempt);
    return stream === 'stdout' ? files.stdoutPath : files.stderrPath;
  };
  return {
    directory,
    prepareCheckpointDirectory(jobId) {
      const checkpoint = join(directory(jobId), 'checkpoint');
      mkdirSync(checkpoint, { recursive: true });
      return checkpoint;
    },
    prepareWorkDirectory(jobId) {
      const work = join(directory(jobId), 'work');
      mkdirSync(work, { recursive: true, mode: 0o700 });
      return work;
    },
    logSize(jobId, attempt, stream) {
      try {
        return statSync(logPath(jobId, attempt, stream)).size;
      } catch (error) {
        if (errnoCode(error) === 'ENOENT') return null;
        throw error;
      }
    },
    readLog(jobId, attempt, stream, offset, length) {
      const buffer = Buffer.alloc(length);
      if (length === 0) return buffer;
      const fd = openSync(logPath(jobId, attempt, stream), 'r');
      try {
        const read = readSync(fd, buffer, 0, length, offset);
        return buffer.subarray(0, read);
      } finally {
        closeSync(fd);
      }
    },
    remove(jobId) {
      rmSync(directory(jobId), { recursive: true, force: true });
    },
  };
}
