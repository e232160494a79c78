/**
 * The server's data directory: refused when the server runs as root and root does not own it,
 * created component by component (so a path that cannot exist fails at once with the system's
 * reason instead of retrying), and locked so that two servers never share one store: the lock file
 * holds the owner's PID and process start time, and a lock whose owner is gone (crash, SIGKILL) is
 * taken over.
 */
import { closeSync, existsSync, mkdirSync, openSync, readFileSync, rmSync, statSync, writeSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { isSameProcess, readProcessStartTime } from '../host/proc-identity.js';

/**
 * Creates `path` and its missing parents (mode 0700 for the ones made here).
 * @throws Error naming the flag, the path and the system's reason
 */
export function makeDataDir(path: string): void {
  const missing: string[] = [];
  for (let p = path; !existsSync(p); p = dirname(p)) {
    missing.unshift(p);
    if (dirname(p) === p) break;
  }
  for (const p of missing) {
    try {
      mkdirSync(p, { mode: 0o700 });
    } catch (error) {
      throw new Error(
        `--data-dir: cannot create ${p}: ${(error as NodeJS.ErrnoException).code ?? (error as Error).message}`,
      );
    }
  }
  if (!statSync(path).isDirectory()) throw new Error(`--data-dir: ${path} exists and is not a directory`);
}

/**
 * A server running as root (`euid` 0) refuses a data directory that root does not own: its owner
 * could replace the store, the admin token or the audit journal, or plant links in it, and root
 * would act on them (docs/security.md, decision 0032). A missing directory passes (root makes it).
 * @param euid the server's effective uid (default the process's)
 * @throws Error naming the flag, the directory and its owner's uid
 */
export function refuseForeignDataDir(path: string, euid: number | undefined = process.geteuid?.()): void {
  if (euid !== 0 || !existsSync(path)) return;
  const owner = statSync(path).uid;
  if (owner === 0) return;
  throw new Error(
    `--data-dir: ${path} is owned by uid ${owner}, not root; a server running as root uses only a data ` +
      `directory root owns (its owner could replace the store or plant links in it): \`chown -R root: ` +
      `${path}\` or choose another --data-dir`,
  );
}

/** A held data-dir lock. */
export interface DataDirLock {
  /** Removes the lock file (idempotent). */
  release(): void;
}

/**
 * Takes `<dataDir>/server.lock`.
 * @throws Error naming the data dir and the PID of the live server that holds it
 */
export function lockDataDir(dataDir: string): DataDirLock {
  const path = join(dataDir, 'server.lock');
  const me = JSON.stringify({ pid: process.pid, startTime: readProcessStartTime(process.pid) });
  for (let tries = 0; tries < 2; tries++) {
    try {
      const fd = openSync(path, 'wx', 0o600);
      writeSync(fd, me);
      closeSync(fd);
      let released = false;
      return {
        release: () => {
          if (!released) {
            released = true;
            rmSync(path, { force: true });
          }
        },
      };
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST')
        throw new Error(`--data-dir: cannot lock ${dataDir}: ${(error as Error).message}`);
      const owner = readOwner(path);
      if (owner && owner.startTime !== null && isSameProcess(owner.pid, owner.startTime)) {
        throw new Error(
          `--data-dir: ${dataDir} is in use by another gpushare server (pid ${owner.pid}); stop it first ` +
            `or choose another --data-dir`,
        );
      }
      rmSync(path, { force: true }); // stale: its owner is gone
    }
  }
  throw new Error(`--data-dir: cannot lock ${dataDir}: another server is starting on it`);
}

function readOwner(path: string): { pid: number; startTime: string | null } | null {
  try {
    const value = JSON.parse(readFileSync(path, 'utf8')) as { pid?: unknown; startTime?: unknown };
    return typeof value.pid === 'number'
      ? { pid: value.pid, startTime: typeof value.startTime === 'string' ? value.startTime : null }
      : null;
  } catch {
    return null;
  }
}
