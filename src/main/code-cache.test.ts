import { execFileSync } from 'node:child_process';
import {
  chmodSync,
  copyFileSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { codeCacheDir, installCodeCache } from './code-cache.js';

const root = mkdtempSync(join(tmpdir(), 'gpushare-code-cache-'));
const require = createRequire(import.meta.url);
afterAll(() => rmSync(root, { recursive: true, force: true }));

/**
 * Writes a CommonJS file under `root` and requires it afresh through `dir`'s cache: its exports and
 * what was compiled.
 */
function load(
  file: string,
  text: string,
  dir: string | null,
): { exports: unknown; hit: boolean[]; cache: ReturnType<typeof installCodeCache> } {
  writeFileSync(file, text);
  delete require.cache[file];
  const cache = installCodeCache(dir, (f) => f === file);
  try {
    return { exports: require(file) as unknown, hit: cache.compiled.map((c) => c.hit), cache };
  } finally {
    cache.uninstall();
  }
}

describe('the code cache of the CLI files', () => {
  it("keeps a file's code after a successful run and uses it at the next start; another text never meets it", () => {
    const dir = join(root, 'own', 'code-cache');
    const file = join(root, 'one.cjs');
    const first = load(file, 'module.exports = { answer: () => 41 + 1 };', dir);
    expect([(first.exports as { answer(): number }).answer(), first.hit]).toEqual([42, [false]]);
    expect(readdirSync(dir)).toEqual([]);
    first.cache.save();
    expect(readdirSync(dir)).toHaveLength(1);
    expect(readdirSync(dir)[0]).toMatch(new RegExp(`^one\\.cjs-${process.version}-[0-9a-f]{32}\\.v8$`));
    const second = load(file, 'module.exports = { answer: () => 41 + 1 };', dir);
    expect([(second.exports as { answer(): number }).answer(), second.hit]).toEqual([42, [true]]);
    // The same length, another text: compiled from the text, never from the other's code.
    const edited = load(file, 'module.exports = { answer: () => 40 + 3 };', dir);
    expect([(edited.exports as { answer(): number }).answer(), edited.hit]).toEqual([43, [false]]);
    edited.cache.save();
    // The earlier text's code is removed when the new one's is kept.
    expect(readdirSync(dir)).toHaveLength(1);
    expect(load(file, 'module.exports = { answer: () => 40 + 3 };', dir).hit).toEqual([true]);
  });

  it("runs no code file that others may write to, or that begins with another text's digest", () => {
    const dir = join(root, 'guarded', 'code-cache');
    const file = join(root, 'three.cjs');
    load(file, 'module.exports = 1 + 1;', dir).cache.save();
    const [name] = readdirSync(dir);
    const path = join(dir, name!);
    chmodSync(path, 0o666);
    expect(load(file, 'module.exports = 1 + 1;', dir).hit).toEqual([false]);
    chmodSync(path, 0o600);
    expect(load(file, 'module.exports = 1 + 1;', dir).hit).toEqual([true]);
    // The same code under the name of another text of the same length: its digest does not match.
    const other = join(root, 'four.cjs');
    const run = load(other, 'module.exports = 2 + 2;', dir);
    run.cache.save();
    const otherName = readdirSync(dir).find((n) => n.startsWith('four.cjs-'))!;
    copyFileSync(path, join(dir, otherName));
    const fooled = load(other, 'module.exports = 2 + 2;', dir);
    expect([fooled.exports, fooled.hit]).toEqual([4, [false]]);
  });

  it('runs no damaged code, waits on no FIFO, writes through no planted link', () => {
    const dir = join(root, 'hostile', 'code-cache');
    const file = join(root, 'five.cjs');
    load(file, 'module.exports = 5;', dir).cache.save();
    const path = join(dir, readdirSync(dir)[0]!);
    const bytes = readFileSync(path);
    bytes[bytes.length - 100] = bytes[bytes.length - 100]! ^ 0xff;
    writeFileSync(path, bytes);
    expect(load(file, 'module.exports = 5;', dir)).toMatchObject({ exports: 5, hit: [false] });
    rmSync(path);
    execFileSync('mkfifo', ['-m', '600', path]);
    expect(load(file, 'module.exports = 5;', dir)).toMatchObject({ exports: 5, hit: [false] });
    rmSync(path);
    // A link at the name the save writes first: it is not written through.
    const victim = join(root, 'victim');
    writeFileSync(victim, 'keep me');
    const run = load(file, 'module.exports = 5;', dir);
    symlinkSync(victim, `${path}.${process.pid}.tmp`);
    run.cache.save();
    expect(readFileSync(victim, 'utf8')).toBe('keep me');
  });

  it('uses no folder that others may write to, and none when turned off; the file still loads', () => {
    const shared = join(root, 'shared');
    mkdirSync(shared, { mode: 0o777 });
    chmodSync(shared, 0o777);
    const file = join(root, 'two.cjs');
    const run = load(file, 'module.exports = 7;', shared);
    expect([run.exports, run.hit]).toEqual([7, []]);
    run.cache.save();
    expect(readdirSync(shared)).toEqual([]);
    expect(load(file, 'module.exports = 8;', null).exports).toBe(8);
    expect(codeCacheDir({ GPUSHARE_CODE_CACHE: 'off', XDG_CACHE_HOME: '/c' })).toBeNull();
    expect(codeCacheDir({ XDG_CACHE_HOME: '/c' })).toBe('/c/gpushare/code-cache');
    expect(codeCacheDir({ XDG_CACHE_HOME: 'relative' })).not.toContain('relative');
  });
});
