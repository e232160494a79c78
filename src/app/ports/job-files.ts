/**
 * Port: the files of a job kept by the server: one directory per job with the attempts' logs and
 * outcome files (written by the supervisor, adapters/process) and a checkpoint directory that
 * survives attempts (docs/preemption.md). Implementations: adapters/process/job-files.ts (the data
 * directory) and adapters/memory/memory-job-files.ts (tests).
 */

/** A log stream of an attempt. */
export type LogStream = 'stdout' | 'stderr';

/** The files of the jobs. */
export interface JobFiles {
  /** The directory of job `jobId` (absolute path), where its attempts' files go. */
  directory(jobId: number): string;
  /** Makes the job's directory and its checkpoint directory; returns the checkpoint directory's path. */
  prepareCheckpointDirectory(jobId: number): string;
  /** Makes the job's private working directory (`work/` in its directory; kept across attempts); returns its path. */
  prepareWorkDirectory(jobId: number): string;
  /** Size in bytes of one stream of attempt `attempt` (1-based); null when there is no such file. */
  logSize(jobId: number, attempt: number, stream: LogStream): number | null;
  /** Reads `length` bytes of that stream from byte `offset` (fewer at its end). */
  readLog(jobId: number, attempt: number, stream: LogStream, offset: number, length: number): Buffer;
  /** Deletes every file of job `jobId` (retention); a no-op when there is none. */
  remove(jobId: number): void;
}
