/**
 * Resolves a command name the way execvp does, to check a job's command before starting it.
 */
import { accessSync, constants, statSync } from 'node:fs';
import { isAbsolute, resolve } from 'node:path';

/** PATH used when the environment has none (libuv's and glibc's default). */
export const DEFAULT_PATH = '/usr/bin:/bin';

/** True when `path` is a regular file this process may execute. */
export function isExecutableFile(path: string): boolean {
  try {
    // No exception for a missing file: a PATH search misses in most directories, and building an
    // ENOENT error for each cost a submit more than the rest of its checks.
    const stat = statSync(path, { throwIfNoEntry: false });
    if (stat === undefined || !stat.isFile()) return false;
    accessSync(path, constants.X_OK);
    return true;
  } catch {
    return false;
  }
}

/**
 * Resolves `argv0` like execvp: a name containing '/' is taken as a path (relative to
 * `workingDirectory`); any other name is searched in the PATH of `environment` (default
 * {@link DEFAULT_PATH}; an empty or relative entry is relative to `workingDirectory`). Returns
 * the absolute path of the first executable regular file, or null when there is none.
 */
export function resolveExecutable(
  argv0: string,
  workingDirectory: string,
  environment: Readonly<Record<string, string>>,
): string | null {
  if (argv0 === '') return null;
  if (argv0.includes('/')) {
    const path = resolve(workingDirectory, argv0);
    return isExecutableFile(path) ? path : null;
  }
  for (const entry of (environment.PATH ?? DEFAULT_PATH).split(':')) {
    const dir = entry === '' ? workingDirectory : isAbsolute(entry) ? entry : resolve(workingDirectory, entry);
    const path = resolve(dir, argv0);
    if (isExecutableFile(path)) return path;
  }
  return null;
}
