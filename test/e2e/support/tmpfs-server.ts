/**
 * What the end-to-end tests of a server on a small tmpfs share: whether this process may mount
 * one, and the teardown that kills the server, its supervisors and their jobs while the data
 * directory is still mounted, unmounts it, and then lets the harness remove an ordinary folder.
 */
import { execFileSync } from 'node:child_process';
import { REQUIRE_TOOLS_ENV } from '../../support/required-tool.js';
import { processesNaming } from '../../support/local-process.js';
import { cleanupServe, killRecordedJobs, pollFor, type ServeHandle } from './serve-harness.js';

/**
 * True when this process may mount a tmpfs (root); else writes `skipped: <what> mounts a tmpfs …`
 * and returns false, or throws under GPUSHARE_REQUIRE_TOOLS=1.
 */
export function canMountTmpfs(what: string): boolean {
  if (process.getuid?.() === 0) return true;
  const message = `${what} mounts a tmpfs and needs root; run the tests as root`;
  if (process.env[REQUIRE_TOOLS_ENV] === '1') throw new Error(`${message} (required because ${REQUIRE_TOOLS_ENV}=1)`);
  process.stderr.write(`skipped: ${message}\n`);
  return false;
}

/**
 * Kills `server` (when given) and every process naming its data directory, unmounts `mounted`
 * (when given; polled, since a dying process may still hold it), then removes the server's folders.
 */
export async function stopServerOnTmpfs(server: ServeHandle | null, mounted: string | null): Promise<void> {
  if (server) {
    server.process.kill('SIGKILL');
    // The jobs' pid files are on the tmpfs: read them before it goes.
    killRecordedJobs(server);
    for (const pid of processesNaming(server.dataDir)) {
      try {
        process.kill(pid, 'SIGKILL');
      } catch {
        // already gone
      }
    }
  }
  if (mounted) {
    await pollFor('the test tmpfs to unmount', () => {
      try {
        execFileSync('umount', [mounted], { stdio: 'ignore' });
        return true;
      } catch {
        return undefined; // a process dying still holds it
      }
    });
  }
  if (server) await cleanupServe(server);
}
