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
 *   text's length, its own version and flags); the file begins with that digest too, and is read
 *   only when it is the user's own (checked on the open file).
 * - When: a file is written once, after the first successful command that compiled it without a
 *   cache (or whose cache V8 rejected); atomically (a temporary file renamed).
 * Every failure to read or write falls back to a plain compile: the cache only ever saves time.
 * The cached files are compiled with `vm.Script`, which cannot run `import()` (Node 20 without
 * flags): scripts/bundle.mjs turns their dynamic imports into `require` and checks none is left.
 */
import { createHash } from 'node:crypto';
import {
  closeSync,
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
  const base = env.XDG_CACHE_HOME?.startsWith('/') ? env.XDG_CACHE_HOME : join(homedir(), '.cache');
  return join(base, 'gpushare', 'code-cache');
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

/** Hex characters of the text's SHA-256 in a code file's name, and first in the file itself. */
const DIGEST_CHARS = 32;

/**
 * The cached code at `path` when it is this user's own file (owner, no one else may write) and
 * begins with `digest`, the text's: a file that a swapped folder or a link put there is not run.
 */
function readOwnCode(path: string, digest: string): Buffer | undefined {
  let fd: number | null = null;
  try {
    fd = openSync(path, 'r');
    const stat = fstatSync(fd);
    if (!stat.isFile() || stat.uid !== process.getuid?.() || (stat.mode & 0o022) !== 0) return undefined;
    const data = readFileSync(fd);
    return data.subarray(0, DIGEST_CHARS).toString('latin1') === digest ? data.subarray(DIGEST_CHARS) : undefined;
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
    const digest = createHash('sha256').update(content).digest('hex').slice(0, DIGEST_CHARS);
    const prefix = `${basename(filename)}-`;
    const path = join(dir, `${prefix}${process.version}-${digest}.v8`);
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
        try {
          const code = Buffer.concat([Buffer.from(digest, 'latin1'), script.createCachedData()]);
          writeFileSync(temporary, code, { mode: 0o600 });
          renameSync(temporary, path);
          // The code of the same file's earlier texts (an older build) is of no more use.
          for (const other of readdirSync(dir!))
            if (other.startsWith(prefix) && join(dir!, other) !== path) rmSync(join(dir!, other), { force: true });
        } catch {
          // A full disk or a read-only home: the next start compiles again.
        }
      }
    },
    uninstall() {
      proto._compile = compile;
    },
  };
}
