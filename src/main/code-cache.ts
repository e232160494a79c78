/**
 * A V8 code cache for the CLI's bundled CommonJS files (dist/main/gpushare.cjs and
 * dist/main/gpushare-chunks/*.cjs): the functions a command compiled are kept on disk after it
 * succeeds, so that the next start reads them instead of parsing and compiling again (Node 22's
 * `module.enableCompileCache()` does the same; Node 20 has only `vm.Script`'s `cachedData`).
 *
 * - Where: `$XDG_CACHE_HOME/gpushare/code-cache/` (else `~/.cache/gpushare/code-cache/`), a folder
 *   of the user's own (created 0700); a folder that another user owns or may write to is not
 *   used, nor written. `GPUSHARE_CODE_CACHE=off` turns the cache off.
 * - Which: one file per bundled file, named by the SHA-256 of its text and Node's version, so a
 *   rebuilt or edited file never meets the code of another text (V8 itself checks only the
 *   text's length, its own version and flags); the file begins with that digest and the digest of
 *   the code (V8 does not check its bytes: a damaged file would crash the process), and is read
 *   only when it is the user's own (checked on the open file, opened without following a link or
 *   waiting on a FIFO). It is written as a new file (O_EXCL) and renamed into place.
 * - When: a file is written once, after the first successful command that compiled it without a
 *   cache (or whose cache V8 rejected); atomically (a temporary file renamed).
 * Every failure to read or write falls back to a plain compile: the cache only ever saves time.
 * The cached files are compiled with `vm.Script`, which cannot run `import()` (Node 20 without
 * flags): scripts/bundle.mjs turns their dynamic imports into `require` and checks none is left.
 */
import { createHash } from 'node:crypto';
import {
  closeSync,
  constants,
  fstatSync,
  mkdirSync,
  openSync,
  readdirSync,
  readFileSync,
  renameSync,
  rmSync,
  statSync,
  writeFileSync,
} from 'node:fs';
import Module, { createRequire } from 'node:module';
import { homedir } from 'node:os';
import { basename, dirname, join } from 'node:path';
import { Script } from 'node:vm';

/** The folder the cache lives in for this environment, or null when none may be used. */
export function codeCacheDir(env: NodeJS.ProcessEnv): string | null {
  if (env.GPUSHARE_CODE_CACHE === 'off') return null;
  let base: string | undefined = env.XDG_CACHE_HOME;
  if (!base?.startsWith('/')) {
    try {
      const home = homedir();
      base = home.startsWith('/') ? join(home, '.cache') : undefined;
    } catch {
      base = undefined; // no home (HOME unset and the uid unknown to the system): no cache
    }
  }
  return base === undefined ? null : join(base, 'gpushare', 'code-cache');
}

/** True when `dir` exists (or was made, 0700) and is this user's own: owned by it, no one else may write. */
function ownFolder(dir: string): boolean {
  try {
    mkdirSync(dir, { recursive: true, mode: 0o700 });
    const stat = statSync(dir);
    return stat.isDirectory() && stat.uid === process.getuid?.() && (stat.mode & 0o022) === 0;
  } catch {
    return false;
  }
}

/**
 * Hex characters of a SHA-256 kept: the text's in a code file's name and first in the file, then
 * the code's own.
 */
const DIGEST_CHARS = 32;

/** The first {@link DIGEST_CHARS} hex characters of the SHA-256 of `data`. */
function sha256(data: string | Buffer): string {
  return createHash('sha256').update(data).digest('hex').slice(0, DIGEST_CHARS);
}

/**
 * The cached code at `path` when it is this user's own file (owner, no one else may write) and
 * begins with `digest`, the text's: a file that a swapped folder or a link put there is not run.
 */
function readOwnCode(path: string, digest: string): Buffer | undefined {
  let fd: number | null = null;
  try {
    // Without blocking (a FIFO put there would hold the open) or following a link.
    fd = openSync(path, constants.O_RDONLY | constants.O_NONBLOCK | constants.O_NOFOLLOW);
    const stat = fstatSync(fd);
    if (!stat.isFile() || stat.uid !== process.getuid?.() || (stat.mode & 0o022) !== 0) return undefined;
    const data = readFileSync(fd);
    if (data.subarray(0, DIGEST_CHARS).toString('latin1') !== digest) return undefined;
    // V8 does not check its code's bytes in release builds: a damaged file would crash the process.
    const code = data.subarray(2 * DIGEST_CHARS);
    return data.subarray(DIGEST_CHARS, 2 * DIGEST_CHARS).toString('latin1') === sha256(code) ? code : undefined;
  } catch {
    return undefined;
  } finally {
    if (fd !== null) closeSync(fd);
  }
}

/** What {@link installCodeCache} returns. */
export interface CodeCache {
  /** Writes the code of files compiled without a usable cache; call once a command has succeeded. */
  save(): void;
  /** Files compiled through the cache so far: `hit` when their cached code was used. */
  readonly compiled: readonly { readonly file: string; readonly hit: boolean }[];
  /** Compiles files as before it was installed. */
  uninstall(): void;
}

interface CompilingModule {
  exports: unknown;
  _compile(content: string, filename: string): unknown;
}

/**
 * Compiles the CommonJS files that `cached(filename)` accepts through the cache in `dir` from now
 * on (Module.prototype._compile); every other file as before. `dir` null: a cache that keeps
 * nothing (the files still load).
 */
export function installCodeCache(dir: string | null, cached: (filename: string) => boolean): CodeCache {
  const usable = dir !== null && ownFolder(dir);
  const compiled: { file: string; hit: boolean }[] = [];
  const unsaved: { script: Script; path: string; prefix: string; digest: string }[] = [];
  const proto = Module.prototype as unknown as CompilingModule;
  const compile = proto._compile;
  proto._compile = function (this: CompilingModule, content: string, filename: string): unknown {
    if (!usable || !cached(filename)) return compile.call(this, content, filename);
    const digest = sha256(content);
    const prefix = `${basename(filename)}-${process.version}-`;
    const path = join(dir, `${prefix}${digest}.v8`);
    const data = readOwnCode(path, digest);
    const script = new Script(Module.wrap(content), { filename, ...(data === undefined ? {} : { cachedData: data }) });
    const hit = data !== undefined && script.cachedDataRejected !== true;
    compiled.push({ file: filename, hit });
    if (!hit) unsaved.push({ script, path, prefix, digest });
    const wrapper = script.runInThisContext({ displayErrors: true }) as (...args: unknown[]) => unknown;
    return wrapper.call(this.exports, this.exports, createRequire(filename), this, filename, dirname(filename));
  };
  return {
    compiled,
    save() {
      for (const { script, path, prefix, digest } of unsaved.splice(0)) {
        const temporary = `${path}.${process.pid}.tmp`;
        let written = false;
        try {
          const code = script.createCachedData();
          const file = Buffer.concat([Buffer.from(`${digest}${sha256(code)}`, 'latin1'), code]);
          // A new file only (O_EXCL): a name planted in the folder, a link above all, is never written through.
          writeFileSync(temporary, file, { mode: 0o600, flag: 'wx' });
          written = true;
          renameSync(temporary, path);
          written = false;
          // The code of the same file's earlier texts under this Node (an older build) is of no more use.
          for (const other of readdirSync(dir!))
            if (other.startsWith(prefix) && join(dir!, other) !== path) rmSync(join(dir!, other), { force: true });
        } catch {
          // A full disk or a read-only home: the next start compiles again.
          if (written) rmSync(temporary, { force: true });
        }
      }
    },
    uninstall() {
      proto._compile = compile;
    },
  };
}
