/**
 * Test helpers of the process adapter (not built into dist): the supervisor and the launcher
 * bundled from the current source (src/testing/bundle-entry.ts), job directories, and bounded
 * waits for outcomes.
 */
import { accessSync, constants, existsSync, mkdtempSync, rmdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { ProcessHandle, ProcessLauncher, ProcessOutcome } from '../../../app/ports/process-launcher.js';
import { detectCgroupLayout } from '../cgroup-layout.js';
import { waitUntil } from '../wait-until.js';
import { bundleEntry, removeBundles } from '../../../testing/bundle-entry.js';
import { WAIT_MS } from '../../../testing/deadlines.js';

const SOURCE_DIR = join(dirname(fileURLToPath(import.meta.url)), '..');

/** The job supervisor bundled from the current source (it must run as plain JavaScript in its own node process). */
export function compiledSupervisorPath(): string {
  return bundleEntry(join(SOURCE_DIR, 'supervisor.ts'));
}

/** The process launcher bundled from the current source, for a server run as a separate node process. */
export function bundledLauncherPath(): string {
  return bundleEntry(join(SOURCE_DIR, 'child-process-launcher.ts'));
}

const temporaryDirectories: string[] = [];

/** A fresh empty job directory under the system temp directory (removed by {@link removeTemporaryDirectories}). */
export function makeJobDirectory(): string {
  const dir = mkdtempSync(join(tmpdir(), 'gpushare-job-'));
  temporaryDirectories.push(dir);
  return dir;
}

/** Removes the job directories and the bundles made by this test process. */
export function removeTemporaryDirectories(): void {
  for (const dir of temporaryDirectories.splice(0)) rmSync(dir, { recursive: true, force: true });
  removeBundles();
}

/** A cgroup parent name private to this test process, so parallel test files never collide. */
export function testCgroupParent(label: string): string {
  return `gpushare-test-${label}-${process.pid}`;
}

/** Removes the (empty) test cgroup parent directories made under `cgroupParent`. */
export function removeTestCgroupParent(cgroupParent: string): void {
  const layout = detectCgroupLayout();
  for (const mount of [layout.v2Mount, ...Object.values(layout.v1Mounts)]) {
    if (mount === null) continue;
    const dir = join(mount, cgroupParent);
    try {
      if (existsSync(dir)) rmdirSync(dir);
    } catch {
      // a leftover child: visible in the failing test
    }
  }
}

/** Waits up to `timeoutMs` for the outcome of `handle`; throws when none appears. */
export async function waitForOutcome(
  launcher: ProcessLauncher,
  handle: ProcessHandle,
  timeoutMs = WAIT_MS,
): Promise<ProcessOutcome> {
  let outcome: ProcessOutcome | null = null;
  await waitUntil(() => (outcome = launcher.readOutcome(handle)) !== null, timeoutMs, 10);
  if (outcome === null) throw new Error(`no outcome in ${handle.outcomePath} after ${timeoutMs} ms`);
  return outcome;
}

/**
 * The folders of `path` (a PATH value) this process may search. A folder it may not enter (root's
 * `/root/.cargo/bin` in the PATH that `runuser` or `sudo` hands another user) turns a missing
 * command's ENOENT into EACCES (execvp reports the EACCES it met on the way).
 */
function searchableFolders(path: string): string {
  const searchable = (folder: string): boolean => {
    try {
      accessSync(folder, constants.X_OK);
      return true;
    } catch {
      return false;
    }
  };
  return path.split(':').filter(searchable).join(':') || '/usr/bin:/bin';
}

/** The environment for test jobs: PATH only (this process's, less the folders it may not search). */
export const TEST_ENV: Readonly<Record<string, string>> = {
  PATH: searchableFolders(process.env.PATH ?? '/usr/bin:/bin'),
};
