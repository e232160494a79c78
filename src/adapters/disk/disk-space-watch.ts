/**
 * The {@link DiskSpace} of `gpushare serve`: learns that the data directory's disk is full from a
 * failed write (`noteError`), then rechecks on a timer (1 s, doubling up to 5 s) until there is
 * room again: `statfs` must show at least `minFreeBytes` free and a probe file of `probeBytes` must
 * be written (and is deleted). Each change of state is logged once: `disk full: …` (error) when it
 * fills, `disk space is back: …` (warn) when a recheck finds room; nothing in between.
 * Before writes fail: with a threshold (`minFreeDiskBytes`, `--min-free-disk-mib`), free space is
 * read (statfs) every `pollMs` and whenever `problem()` is asked; below the threshold the disk is
 * `low` (logged once, `disk space low: …`), back at or above it `disk space is above …` is logged.
 * Each time the disk has no problem any more (neither full nor low) the `onHealthy` listeners run.
 */
import { statfsSync, unlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { isDiskFullError } from '../../app/errors.js';
import type { DiskProblem, DiskSpace } from '../../app/ports/disk-space.js';

/** The subset of a pino logger the watch uses. */
export interface DiskWatchLogger {
  warn(obj: object, msg?: string): void;
  error(obj: object, msg?: string): void;
}

/** Options of {@link createDiskSpaceWatch}. */
export interface DiskSpaceWatchOptions {
  /** The data directory (the probe file goes there). */
  readonly dataDir: string;
  readonly logger: DiskWatchLogger;
  /** First recheck after this long, ms (default 1000); each failed recheck doubles it up to `maxRecheckMs`. */
  readonly recheckMs?: number;
  /** Longest time between rechecks, ms (default 5000). */
  readonly maxRecheckMs?: number;
  /** Free bytes a recheck wants to see (default 1 MiB). */
  readonly minFreeBytes?: number;
  /** Size of the probe write, bytes (default 64 KiB). */
  readonly probeBytes?: number;
  /** Below this many free bytes the disk is `low` (default 0: never). */
  readonly minFreeDiskBytes?: number;
  /** How often free space is read against `minFreeDiskBytes`, ms (default 1000). */
  readonly pollMs?: number;
  /** Reads the free bytes of the file system holding a path (default {@link freeBytes}; tests give their own). */
  readonly readFreeBytes?: (path: string) => number;
}

/** The watch, with its recheck exposed for tests and a close for shutdown. */
export interface DiskSpaceWatch extends DiskSpace {
  problem(): DiskProblem | null;
  onHealthy(listener: () => void): void;
  /** Rechecks now (see the module comment); true when there is room (the state is then not full). */
  recheck(): boolean;
  /** Stops the recheck timer. */
  close(): void;
}

/** Free bytes of the file system holding `path` that this process may use (root may use the reserve). */
export function freeBytes(path: string): number {
  const stats = statfsSync(path);
  const blocks = process.getuid?.() === 0 ? stats.bfree : stats.bavail;
  return blocks * stats.bsize;
}

/** Creates the watch; see the module comment. */
export function createDiskSpaceWatch(options: DiskSpaceWatchOptions): DiskSpaceWatch {
  const { dataDir, logger } = options;
  const firstRecheckMs = options.recheckMs ?? 1000;
  const maxRecheckMs = options.maxRecheckMs ?? 5000;
  const minFreeBytes = options.minFreeBytes ?? 1 << 20;
  const probeBytes = options.probeBytes ?? 64 << 10;
  const reason = `the disk holding ${dataDir} is full: free space there`;
  const minFreeDiskBytes = options.minFreeDiskBytes ?? 0;
  const readFree = options.readFreeBytes ?? freeBytes;
  const listeners: (() => void)[] = [];
  const healthyListeners: (() => void)[] = [];
  let full: { sinceMs: number; failedRechecks: number } | null = null;
  let timer: NodeJS.Timeout | null = null;
  /** Free bytes when last read, and whether that was below the threshold. */
  let lastFreeBytes = 0;
  let low = false;
  const mib = (bytes: number): number => Math.floor(bytes / (1 << 20));
  const becameHealthy = (): void => {
    for (const listener of healthyListeners) listener();
  };
  /** Reads free space against the threshold, logging a change and telling listeners when the disk is healthy again. */
  const readLow = (): void => {
    if (minFreeDiskBytes <= 0) return;
    try {
      lastFreeBytes = readFree(dataDir);
    } catch {
      return; // keeps the last answer
    }
    const nowLow = lastFreeBytes < minFreeDiskBytes;
    if (nowLow === low) return;
    low = nowLow;
    if (low) {
      logger.warn(
        { dataDir, freeBytes: lastFreeBytes, minFreeBytes: minFreeDiskBytes },
        `disk space low: ${mib(lastFreeBytes)} MiB free in ${dataDir}, below the threshold of ` +
          `${mib(minFreeDiskBytes)} MiB (--min-free-disk-mib); /healthz answers 503 and submits are refused ` +
          `(507) until there is more`,
      );
      return;
    }
    logger.warn(
      { dataDir, freeBytes: lastFreeBytes, minFreeBytes: minFreeDiskBytes },
      `disk space is above the threshold again: ${mib(lastFreeBytes)} MiB free in ${dataDir}`,
    );
    if (full === null) becameHealthy();
  };
  const poller = minFreeDiskBytes > 0 ? setInterval(readLow, options.pollMs ?? 1000) : null;
  poller?.unref();
  readLow();

  const room = (): { ok: boolean; freeBytes: number } => {
    let free: number;
    try {
      free = readFree(dataDir);
    } catch {
      return { ok: false, freeBytes: 0 };
    }
    if (free < minFreeBytes) return { ok: false, freeBytes: free };
    const probe = join(dataDir, '.disk-probe');
    try {
      writeFileSync(probe, Buffer.alloc(probeBytes), { mode: 0o600 });
      return { ok: true, freeBytes: free };
    } catch {
      return { ok: false, freeBytes: free };
    } finally {
      try {
        unlinkSync(probe);
      } catch {
        // never made
      }
    }
  };

  const schedule = (): void => {
    if (full === null || timer !== null) return;
    const delayMs = Math.min(maxRecheckMs, firstRecheckMs * 2 ** Math.min(full.failedRechecks, 16));
    timer = setTimeout(() => {
      timer = null;
      if (!watch.recheck()) schedule();
    }, delayMs);
    timer.unref();
  };

  const watch: DiskSpaceWatch = {
    fullReason: () => (full === null ? null : reason),
    noteError(error) {
      if (!isDiskFullError(error)) return false;
      if (full === null) {
        full = { sinceMs: Date.now(), failedRechecks: 0 };
        logger.error(
          { dataDir, err: { message: (error as Error).message } },
          `disk full: ${reason}; submits are refused (507), /healthz answers 503, and ended jobs are ` +
            `recorded once space returns`,
        );
        schedule();
      }
      return true;
    },
    onRecovered(listener) {
      listeners.push(listener);
    },
    recheck() {
      if (full === null) return true;
      const found = room();
      if (!found.ok) {
        full.failedRechecks += 1;
        return false;
      }
      const fullForMs = Date.now() - full.sinceMs;
      full = null;
      logger.warn(
        { dataDir, freeBytes: found.freeBytes, fullForMs },
        `disk space is back: ${Math.floor(found.freeBytes / (1 << 20))} MiB free in ${dataDir}; pending ` +
          `writes are retried`,
      );
      for (const listener of listeners) listener();
      readLow();
      if (!low) becameHealthy();
      return true;
    },
    problem() {
      readLow();
      if (full === null && !low) return null;
      if (minFreeDiskBytes <= 0) {
        try {
          lastFreeBytes = readFree(dataDir);
        } catch {
          lastFreeBytes = 0;
        }
      }
      return {
        reason: full === null ? 'disk-low' : 'disk-full',
        message:
          full === null
            ? `the disk holding ${dataDir} has ${mib(lastFreeBytes)} MiB free, below the threshold of ` +
              `${mib(minFreeDiskBytes)} MiB (--min-free-disk-mib)`
            : reason,
        dataDir,
        freeBytes: lastFreeBytes,
        minFreeBytes: minFreeDiskBytes,
      };
    },
    onHealthy(listener) {
      healthyListeners.push(listener);
    },
    close() {
      if (timer !== null) clearTimeout(timer);
      timer = null;
      if (poller !== null) clearInterval(poller);
    },
  };
  return watch;
}
