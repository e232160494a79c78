/**
 * Job files in memory (app/ports/job-files.ts), for tests: logs are written with `appendLog`.
 */
import type { JobFiles, LogStream } from '../../app/ports/job-files.js';

/** In-memory job files under a made-up root; folders are named `<id>-m<n>` (n counts up). */
export class MemoryJobFiles implements JobFiles {
  private readonly logs = new Map<string, Buffer>();
  private readonly prepared = new Set<string>();
  private made = 0;

  constructor(private readonly root = '/memory/jobs') {}

  createFolder(jobId: number): string {
    this.made += 1;
    return `${jobId}-m${this.made}`;
  }

  directory(folder: string): string {
    return `${this.root}/${folder}`;
  }

  prepareCheckpointDirectory(folder: string): string {
    this.prepared.add(folder);
    return `${this.directory(folder)}/checkpoint`;
  }

  prepareWorkDirectory(folder: string): string {
    this.prepared.add(folder);
    return `${this.directory(folder)}/work`;
  }

  logSize(folder: string, attempt: number, stream: LogStream): number | null {
    return this.logs.get(key(folder, attempt, stream))?.length ?? null;
  }

  readLog(folder: string, attempt: number, stream: LogStream, offset: number, length: number): Buffer {
    const log = this.logs.get(key(folder, attempt, stream)) ?? Buffer.alloc(0);
    return log.subarray(offset, offset + length);
  }

  remove(folder: string): void {
    this.prepared.delete(folder);
    for (const k of [...this.logs.keys()]) if (k.startsWith(`${folder}/`)) this.logs.delete(k);
  }

  /** Appends text to a log of the job folder `folder` (what a job would print). */
  appendLog(folder: string, attempt: number, stream: LogStream, text: string): void {
    const k = key(folder, attempt, stream);
    this.logs.set(k, Buffer.concat([this.logs.get(k) ?? Buffer.alloc(0), Buffer.from(text)]));
  }

  /** True when the folder's checkpoint directory was prepared and not removed since. */
  hasFiles(folder: string): boolean {
    return this.prepared.has(folder);
  }
}

const key = (folder: string, attempt: number, stream: LogStream): string => `${folder}/${attempt}/${stream}`;
