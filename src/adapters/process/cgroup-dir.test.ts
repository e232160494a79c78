import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createNewCgroup, removeCgroup } from './cgroup-dir.js';

// The directory operations on plain folders: a cgroup directory is made and removed the same way.
describe('cgroup directories', () => {
  let root: string;
  beforeEach(() => {
    root = mkdtempSync(join(tmpdir(), 'gpushare-cgroup-dir-'));
  });
  afterEach(() => rmSync(root, { recursive: true, force: true }));

  it('creates a new cgroup once and reports a leftover the second time', () => {
    const dir = join(root, 'job-1-1');
    expect(createNewCgroup(dir)).toBe(true);
    expect(createNewCgroup(dir)).toBe(false);
    expect(existsSync(dir)).toBe(true);
  });

  it('makes missing parents', () => {
    const dir = join(root, 'gpushare', 'job-2-1');
    expect(createNewCgroup(dir)).toBe(true);
    expect(existsSync(dir)).toBe(true);
  });

  it('throws what is neither a leftover nor a missing parent', () => {
    // A parent that is a file: ENOTDIR, which the caller must see.
    const blocker = join(root, 'file');
    writeFileSync(blocker, '');
    expect(() => createNewCgroup(join(blocker, 'job-3-1'))).toThrow(/ENOTDIR/);
  });

  it('removes an empty cgroup at once, and a missing one is fine', async () => {
    const dir = join(root, 'job-4-1');
    createNewCgroup(dir);
    await removeCgroup(dir, 100);
    expect(existsSync(dir)).toBe(false);
    await expect(removeCgroup(dir, 100)).resolves.toBeUndefined();
  });
});
