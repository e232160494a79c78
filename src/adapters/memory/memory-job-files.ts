/**
 * Job files in memory (app/ports/job-files.ts), for tests: logs are written with `appendLog`.
 */
import type { JobFiles, LogStream } from '../../app/ports/job-files.js';

/** In-memory job files under a made-up root. */
export class MemoryJobFiles implements JobFiles {
  private readonly logs = new Map<string, Buffer>();
  private readonly prepared = new Set<number>();

  constructor(private readonly root = '/memory/jobs') {}

  directory(jobId: number): string {
    return `${this.root}/${jobId}`;
  }

  prepareCheckpointDirectory(jobId: number): string {
    this.prepared.add(jobId);
    return `${this.directory(jobId)}/checkpoint`;
  }

  prepareWorkDirectory(jobId: number): string {
    this.prepared.add(jobId);
    return `${this.directory(jobId)}/work`;
  }

  logSize(jobId: number, attempt: number, stream: LogStream): number | null {
    return this.logs.get(key(jobId, attempt, stream))?.length ?? null;
  }

  readLog(jobId: number, attempt: number, stream: LogStream, offset: number, length: number): Buffer {
    const log = this.logs.get(key(jobId, attempt, stream)) ?? Buffer.alloc(0);
    return log.subarray(offset, offset + length);
  }

  remove(jobId: number): void {
    this.prepared.delete(jobId);
    for (const k of [...this.logs.keys()]) if (k.startsWith(`${jobId}/`)) this.logs.delete(k);
  }

  /** Appends text to a log (what a job would print). */
  appendLog(jobId: number, attempt: number, stream: LogStream, text: string): void {
    const k = key(jobId, attempt, stream);
    this.logs.set(k, Buffer.concat([this.logs.get(k) ?? Buffer.alloc(0), Buffer.from(text)]));
  }

  /** True when the job's checkpoint directory was prepared and not removed since. */
  hasFiles(jobId: number): boolean {
    return this.prepared.has(jobId);
  }
}

const key = (jobId: number, attempt: number, stream: LogStream): string => `${jobId}/${attempt}/${stream}`;
