import { chownSync, mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { refuseForeignDataDir } from './data-dir.js';

const asRoot = process.getuid?.() === 0;

describe('refuseForeignDataDir', () => {
  let base: string;
  beforeEach(() => {
    base = mkdtempSync(join(tmpdir(), 'gpushare-data-dir-'));
  });
  afterEach(() => rmSync(base, { recursive: true, force: true }));

  it.skipIf(!asRoot)("refuses another uid's data directory for a root server only", () => {
    const dir = join(base, 'data');
    mkdirSync(dir);
    chownSync(dir, 200_000, 200_000);
    expect(() => refuseForeignDataDir(dir, 0)).toThrow(
      `--data-dir: ${dir} is owned by uid 200000, not root; a server running as root uses only a data directory ` +
        `root owns (its owner could replace the store or plant links in it): \`chown -R root: ${dir}\` or choose ` +
        `another --data-dir`,
    );
    expect(() => refuseForeignDataDir(dir, 200_000)).not.toThrow();
    chownSync(dir, 0, 0);
    expect(() => refuseForeignDataDir(dir, 0)).not.toThrow();
  });

  it('lets a root server make a missing data directory', () => {
    expect(() => refuseForeignDataDir(join(base, 'missing'), 0)).not.toThrow();
  });
});
