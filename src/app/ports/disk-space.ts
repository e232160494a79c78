/**
 * Port: whether the disk holding the server's data directory has room for writes. A write that
 * fails because the disk is full (store or file) is reported here; from then on the server knows
 * the disk is full until a recheck (adapters/disk) finds room again. While it is full, the
 * background loops (scheduling passes, settling ended attempts) wait instead of failing on every
 * tick, `/healthz` answers 503, and each change of state is logged once.
 * Implementation: adapters/disk/disk-space-watch.ts.
 */

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
}
