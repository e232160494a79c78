import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { diskFull } from '../../app/errors.js';
import { createDiskSpaceWatch, freeBytes } from './disk-space-watch.js';

let dir: string | null = null;
afterEach(() => {
  if (dir) rmSync(dir, { recursive: true, force: true });
  dir = null;
});

/** A logger that keeps its lines. */
function recordingLogger() {
  const lines: { level: string; msg: string }[] = [];
  return {
    lines,
    warn: (_: object, msg = '') => lines.push({ level: 'warn', msg }),
    error: (_: object, msg = '') => lines.push({ level: 'error', msg }),
  };
}

describe('disk space watch', () => {
  it(
    'goes full on a disk-full error only, logs it once however often it is reported, and recovers once a ' +
      'recheck finds room',
    () => {
      dir = mkdtempSync(join(tmpdir(), 'gpushare-disk-watch-'));
      const logger = recordingLogger();
      const watch = createDiskSpaceWatch({ dataDir: dir, logger, recheckMs: 60_000 });
      let recovered = 0;
      watch.onRecovered(() => (recovered += 1));
      expect(watch.noteError(new Error('boom'))).toBe(false);
      expect(watch.noteError(Object.assign(new Error('busy'), { code: 'SQLITE_BUSY' }))).toBe(false);
      expect(watch.fullReason()).toBeNull();
      expect(watch.noteError(diskFull(dir, 'SQLITE_FULL'))).toBe(true);
      expect(watch.noteError(Object.assign(new Error('write'), { code: 'ENOSPC' }))).toBe(true);
      expect(
        watch.noteError(new Error('wrapped', { cause: Object.assign(new Error('quota'), { code: 'EDQUOT' }) })),
      ).toBe(true);
      expect(watch.fullReason()).toBe(`the disk holding ${dir} is full: free space there`);
      expect(logger.lines).toEqual([
        {
          level: 'error',
          msg:
            `disk full: the disk holding ${dir} is full: free space there; submits are refused (507), ` +
            `/healthz answers 503, and ended jobs are recorded once space returns`,
        },
      ]);
      // This temporary folder has room: the recheck's probe write succeeds and is removed.
      expect(freeBytes(dir)).toBeGreaterThan(1 << 20);
      expect(watch.recheck()).toBe(true);
      expect(watch.fullReason()).toBeNull();
      expect(recovered).toBe(1);
      expect(existsSync(join(dir, '.disk-probe'))).toBe(false);
      expect(logger.lines).toHaveLength(2);
      expect(logger.lines[1]!.level).toBe('warn');
      expect(logger.lines[1]!.msg).toMatch(
        new RegExp(`^disk space is back: \\d+ MiB free in ${dir}; pending writes are retried$`),
      );
      expect(watch.recheck()).toBe(true);
      expect(recovered).toBe(1);
      watch.close();
    },
  );

  it('stays full while the probe cannot be written', () => {
    dir = mkdtempSync(join(tmpdir(), 'gpushare-disk-watch-'));
    const logger = recordingLogger();
    const missing = join(dir, 'gone');
    const watch = createDiskSpaceWatch({ dataDir: missing, logger, recheckMs: 60_000 });
    watch.noteError(Object.assign(new Error('write'), { code: 'ENOSPC' }));
    expect(watch.recheck()).toBe(false);
    expect(watch.fullReason()).not.toBeNull();
    expect(logger.lines).toHaveLength(1);
    watch.close();
  });
});

describe('disk space watch with a free-space threshold', () => {
  const MIB = 1 << 20;

  it('is low below the threshold before any write fails, logs each change once, and tells when it is healthy', () => {
    dir = mkdtempSync(join(tmpdir(), 'gpushare-disk-watch-'));
    const logger = recordingLogger();
    let free = 100 * MIB;
    const watch = createDiskSpaceWatch({
      dataDir: dir,
      logger,
      recheckMs: 60_000,
      pollMs: 60_000,
      minFreeDiskBytes: 64 * MIB,
      readFreeBytes: () => free,
    });
    let healthy = 0;
    watch.onHealthy(() => (healthy += 1));
    expect(watch.problem()).toBeNull();
    free = 10 * MIB;
    expect(watch.problem()).toEqual({
      reason: 'disk-low',
      message: `the disk holding ${dir} has 10 MiB free, below the threshold of 64 MiB (--min-free-disk-mib)`,
      dataDir: dir,
      freeBytes: 10 * MIB,
      minFreeBytes: 64 * MIB,
    });
    expect(watch.problem()?.reason).toBe('disk-low');
    expect(watch.fullReason()).toBeNull(); // the loop's writes go on
    expect(logger.lines).toEqual([
      {
        level: 'warn',
        msg:
          `disk space low: 10 MiB free in ${dir}, below the threshold of 64 MiB (--min-free-disk-mib); /healthz ` +
          `answers 503 and submits are refused (507) until there is more`,
      },
    ]);
    // Full while low: a recheck finding room for writes does not make it healthy yet.
    watch.noteError(Object.assign(new Error('write'), { code: 'ENOSPC' }));
    expect(watch.problem()?.reason).toBe('disk-full');
    expect(watch.recheck()).toBe(true);
    expect(watch.problem()?.reason).toBe('disk-low');
    expect(healthy).toBe(0);
    free = 65 * MIB;
    expect(watch.problem()).toBeNull();
    expect(healthy).toBe(1);
    expect(watch.problem()).toBeNull();
    expect(healthy).toBe(1);
    expect(logger.lines.at(-1)).toEqual({
      level: 'warn',
      msg: `disk space is above the threshold again: 65 MiB free in ${dir}`,
    });
    watch.close();
  });

  it('with threshold 0 is never low, and a recovery from full makes it healthy at once', () => {
    dir = mkdtempSync(join(tmpdir(), 'gpushare-disk-watch-'));
    const watch = createDiskSpaceWatch({ dataDir: dir, logger: recordingLogger(), recheckMs: 60_000 });
    let healthy = 0;
    watch.onHealthy(() => (healthy += 1));
    expect(watch.problem()).toBeNull();
    watch.noteError(Object.assign(new Error('write'), { code: 'ENOSPC' }));
    expect(watch.problem()).toMatchObject({ reason: 'disk-full', minFreeBytes: 0 });
    expect(watch.recheck()).toBe(true);
    expect(watch.problem()).toBeNull();
    expect(healthy).toBe(1);
    watch.close();
  });
});
