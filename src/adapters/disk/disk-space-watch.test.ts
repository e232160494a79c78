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
