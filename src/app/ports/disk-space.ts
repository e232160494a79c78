/**
 * Port: whether the disk holding the server's data directory has room for writes. A write that
 * fails because the disk is full (store or file) is reported here; from then on the server knows
 * the disk is full until a recheck (adapters/disk) finds room again. While it is full, the
 * background loops (scheduling passes, settling ended attempts) wait instead of failing on every
 * tick, `/healthz` answers 503, and each change of state is logged once. Before that, free space
 * below the server's threshold (`--min-free-disk-mib`) makes the disk `low`: `/healthz` answers 503
 * and submits are refused (507) while writes still succeed (docs/server.md "A full disk").
 * Implementation: adapters/disk/disk-space-watch.ts.
 */

/** Why the data directory's disk keeps the server from its work: a code with its numbers. */
export interface DiskProblem {
  /** `disk-full`: a write failed for want of space; `disk-low`: free space is below the threshold. */
  readonly reason: 'disk-full' | 'disk-low';
  /** The same in words, naming the data directory. */
  readonly message: string;
  readonly dataDir: string;
  /** Free bytes last seen on the data directory's file system (0 when it could not be read). */
  readonly freeBytes: number;
  /** The threshold, bytes (`--min-free-disk-mib` × 1 MiB; 0: none). */
  readonly minFreeBytes: number;
}

/** The data directory's disk as the server knows it. */
export interface DiskSpace {
  /** Null while writes succeed; else why the disk is taken to be full (a message naming the data directory). */
  fullReason(): string | null;
  /**
   * Reports a failed write. @returns true when `error` says the disk is full (`isDiskFullError`);
   * the state is then full until a recheck finds room.
   */
  noteError(error: unknown): boolean;
  /** Runs `listener` each time room is found again after the disk was full. */
  onRecovered(listener: () => void): void;
  /** The disk's problem now (statfs), or null while it is neither full nor below the threshold. */
  problem?(): DiskProblem | null;
  /** Runs `listener` each time the disk has no problem any more (neither full nor low). */
  onHealthy?(listener: () => void): void;
}
