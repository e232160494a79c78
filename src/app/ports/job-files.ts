/**
 * Port: the files of a job kept by the server: one private folder per job with the attempts' logs
 * and outcome files (written by the supervisor, adapters/process) and a checkpoint directory that
 * survives attempts (docs/preemption.md). A folder is named once, when the job first launches, and
 * its name is recorded in the store (`JobRecord.folder`): every other method takes that name, so a
 * job only ever sees the folder the store says is its own. Implementations:
 * adapters/process/job-files.ts (the data directory) and adapters/memory/memory-job-files.ts (tests).
 */

/** A log stream of an attempt. */
export type LogStream = 'stdout' | 'stderr';

/** The files of the jobs. */
export interface JobFiles {
  /**
   * Makes a new, empty, private folder for job `jobId` and returns its name (never the name of an
   * earlier folder, even of a job with the same id), for the caller to record as the job's `folder`.
   * @throws Error when the folder cannot be made
   */
  createFolder(jobId: number): string;
  /** The absolute path of the job folder named `folder`, where its attempts' files go. */
  directory(folder: string): string;
  /** Makes the folder's checkpoint directory (and the folder when missing); returns the checkpoint directory's path. */
  prepareCheckpointDirectory(folder: string): string;
  /** Makes the folder's private working directory (`work/`, kept across attempts); returns its path. */
  prepareWorkDirectory(folder: string): string;
  /**
   * Size in bytes of one stream of attempt `attempt` (1-based); null when there is no such file, or
   * when it is not a regular file reached through no symbolic link (a job may have planted one).
   */
  logSize(folder: string, attempt: number, stream: LogStream): number | null;
  /** Reads `length` bytes of that stream from byte `offset` (fewer at its end; none when logSize would be null). */
  readLog(folder: string, attempt: number, stream: LogStream, offset: number, length: number): Buffer;
  /** Deletes the folder and every file in it (retention); a no-op when there is none. */
  remove(folder: string): void;
}
