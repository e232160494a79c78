/**
 * The data directory's disk as the scheduling loop sees it: full or not, and whether a failed
 * write was a full disk. A thin view over the optional `DiskSpace` port (adapters/disk): without
 * one, the disk is never known full and a write error is a full disk only when it says so
 * (`isDiskFullError`). The loop's parts ask it before writing (passes, settling ended attempts)
 * and report every failed write to it, so that the disk watch logs each change of state once.
 */
import { isDiskFullError } from '../errors.js';
import type { DiskSpace } from '../ports/disk-space.js';

/** Whether the data directory's disk has room, through the `DiskSpace` port when there is one. */
export class DiskState {
  /** @param disk the port (undefined: no watch; writes are simply tried) */
  constructor(private readonly disk: DiskSpace | undefined) {}

  /** True while the disk is known to be full: passes wait, ended attempts are settled later. */
  get full(): boolean {
    return (this.disk?.fullReason() ?? null) !== null;
  }

  /**
   * Reports a failed write to the port. @returns true when `error` is a full disk (then the caller
   * keeps the write for later and logs nothing: the disk watch logs each change once)
   */
  noteError(error: unknown): boolean {
    return this.disk?.noteError(error) ?? isDiskFullError(error);
  }
}
