/**
 * The checkout as another uid sees it. Tests that run the server (or a job) under another uid need
 * that uid to read the built program; a checkout under a folder other users cannot enter (root's
 * home folder, a 0700 temporary folder) hides it. {@link readableCheckout} then lays out a copy of
 * what a server started from the checkout reads (bin/, dist/, web/, package.json, node_modules/)
 * in a temporary folder that uid can read, hard links where it can (the same file system, a file
 * others may read), copies elsewhere, and removes it when asked.
 */
import { spawnSync } from 'node:child_process';
import {
  chmodSync,
  copyFileSync,
  existsSync,
  linkSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readlinkSync,
  rmSync,
  statSync,
  symlinkSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

/** Root of this checkout. */
const ROOT = fileURLToPath(new URL('../..', import.meta.url));

/** What a server started from a checkout reads, relative to its root: copied when another uid cannot read it. */
const LAYOUT = ['bin', 'dist', 'web', 'package.json', 'node_modules'] as const;

/** Files whose reading, as the uid, shows that it can start the server from a checkout. */
const PROBES = [
  'bin/gpushare',
  'dist/main/gpushare.cjs',
  'dist/main/server-commands.js',
  'package.json',
  'node_modules/better-sqlite3/package.json',
] as const;

/** A checkout a given uid can run the server from. */
export interface ReadableCheckout {
  /** Root of the checkout: this one, or a copy. */
  readonly root: string;
  /** The `gpushare` command in it (`<root>/bin/gpushare`). */
  readonly bin: string;
  /** Whether `root` is a copy (in a temporary folder that {@link ReadableCheckout.remove} deletes). */
  readonly copied: boolean;
  /** Deletes the copy, if one was made; idempotent. */
  remove(): void;
}

/**
 * Whether `uid` (with gid `uid`, no supplementary groups) can execute `program` and read every
 * one of `paths`, asked of the kernel: `/bin/sh -c 'test -r ...'` run as that uid.
 *
 * @param uid the user to ask for (the caller must be root to switch to it)
 * @param paths absolute paths that must be readable
 * @param program an absolute path that must be executable (default: this Node.js)
 */
function readableBy(uid: number, paths: readonly string[], program: string = process.execPath): boolean {
  const script = 'test -x "$0" || exit 1; for p; do test -r "$p" || exit 1; done';
  const result = spawnSync('/bin/sh', ['-c', script, program, ...paths], {
    uid,
    gid: uid,
    cwd: '/',
    stdio: 'ignore',
  });
  return result.status === 0;
}

/**
 * A checkout from which `uid` can run `gpushare serve`: this checkout when `uid` can read it,
 * else a copy of bin/, dist/, web/, package.json and node_modules/ in a new folder under the
 * system's temporary folder (mode 0755, files hard linked when others may read them, copied with
 * mode 0644 or 0755 otherwise). Build first (`npm run build`; the test run's global setup does).
 *
 * @param uid the user that will run the server (the caller is root)
 * @throws Error when `uid` cannot execute this Node.js (`process.execPath`) or cannot read the copy
 *   either (a temporary folder others cannot enter), naming what to change
 */
export function readableCheckout(uid: number): ReadableCheckout {
  const bin = (root: string): string => join(root, 'bin', 'gpushare');
  if (
    readableBy(
      uid,
      PROBES.map((p) => join(ROOT, p)),
    )
  ) {
    return { root: ROOT, bin: bin(ROOT), copied: false, remove: () => undefined };
  }
  if (!readableBy(uid, [])) {
    throw new Error(`uid ${uid} cannot execute ${process.execPath}: install Node.js where other users can run it`);
  }
  const copy = mkdtempSync(join(tmpdir(), 'gpushare-readable-checkout-'));
  const remove = (): void => rmSync(copy, { recursive: true, force: true });
  try {
    chmodSync(copy, 0o755);
    for (const name of LAYOUT) {
      const from = join(ROOT, name);
      if (!existsSync(from)) continue;
      if (statSync(from).isDirectory()) copyTree(from, join(copy, name));
      else linkOrCopy(from, join(copy, name));
    }
    if (
      !readableBy(
        uid,
        PROBES.map((p) => join(copy, p)),
      )
    ) {
      throw new Error(
        `uid ${uid} cannot read the checkout ${ROOT}, nor its copy in ${copy}: ` +
          'set TMPDIR to a folder other users can enter (e.g. /var/tmp)',
      );
    }
  } catch (error) {
    remove();
    throw error;
  }
  return { root: copy, bin: bin(copy), copied: true, remove };
}

/** Lays `from` out again at `to` (made, mode 0755): folders made, links kept, files as {@link linkOrCopy}. */
function copyTree(from: string, to: string): void {
  mkdirSync(to);
  chmodSync(to, 0o755);
  for (const entry of readdirSync(from, { withFileTypes: true })) {
    const source = join(from, entry.name);
    const target = join(to, entry.name);
    if (entry.isDirectory()) copyTree(source, target);
    else if (entry.isSymbolicLink()) symlinkSync(readlinkSync(source), target);
    else if (entry.isFile()) linkOrCopy(source, target);
  }
}

/**
 * A hard link to `from` at `to` when others may read `from` and it lies on the same file system,
 * else a copy others may read.
 */
function linkOrCopy(from: string, to: string): void {
  const mode = statSync(from).mode;
  if ((mode & 0o004) !== 0) {
    try {
      linkSync(from, to);
      return;
    } catch {
      // another file system (EXDEV), or links refused: copy
    }
  }
  copyFileSync(from, to);
  chmodSync(to, (mode & 0o111) !== 0 ? 0o755 : 0o644);
}
