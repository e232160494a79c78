/**
 * Blocking the thread for a while, for the few places that must wait synchronously (a lock file
 * taken by a synchronous command, the cleanup at process exit). No timer: `Atomics.wait` on a
 * buffer nobody notifies.
 */

/** Blocks the calling thread for `ms` milliseconds. */
export function sleepSync(ms: number): void {
  Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, ms);
}
