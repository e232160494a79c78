/** The disk as the loop sees it, with and without the DiskSpace port. */
import { describe, expect, it } from 'vitest';
import { diskFull } from '../errors.js';
import { testDisk } from '../testing/loop-parts.js';
import { DiskState } from './disk-state.js';

describe('DiskState', () => {
  it('without a port: never full; a write error is a full disk only when it says so', () => {
    const disk = new DiskState(undefined);
    expect(disk.full).toBe(false);
    expect(disk.noteError(diskFull('/data', 'SQLITE_FULL'))).toBe(true);
    expect(disk.noteError(new Error('constraint failed'))).toBe(false);
    expect(disk.full).toBe(false);
  });

  it('with a port: full from the first full-disk error until the port finds room', () => {
    const port = testDisk();
    const disk = new DiskState(port);
    expect(disk.noteError(new Error('constraint failed'))).toBe(false);
    expect(disk.full).toBe(false);
    expect(disk.noteError(diskFull('/data', 'ENOSPC'))).toBe(true);
    expect(disk.full).toBe(true);
    port.free();
    expect(disk.full).toBe(false);
  });
});
