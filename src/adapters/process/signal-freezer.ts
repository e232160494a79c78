/**
 * The signals freezer backend, for hosts without a usable cgroup freezer: SIGSTOP / SIGCONT to
 * the job's process group, and to a sandboxed command's own group. It reaches only those groups (a
 * descendant that called setsid escapes them), and a program can observe SIGCONT. The supervisor
 * is in another process group, so it keeps running and still records the outcome.
 */
import type { Freezer, FreezeTarget } from './freezer-backend.js';
import { isExitedState } from '../../host/proc-identity.js';
import { listProcessGroup } from './proc-group.js';
import { signalGroup } from './supervisor-helpers.js';
import { waitUntil } from './wait-until.js';

/** True when every process of the groups is stopped (T) or already exited. */
function groupsStopped(pgids: readonly number[]): boolean {
  return pgids.every((pgid) =>
    listProcessGroup(pgid).every((p) => p.state === 'T' || p.state === 't' || isExitedState(p.state)),
  );
}

/** The process groups of a target: the job's and, when it has one of its own, the sandboxed command's. */
function groupsOf(target: FreezeTarget): number[] {
  return [...new Set([target.jobPid, target.commandPid ?? null])].filter((p): p is number => p !== null);
}

/** SIGSTOP / SIGCONT to the job's process groups; a freeze waits until every member shows state T. */
export class SignalFreezer implements Freezer {
  readonly kind = 'signals' as const;

  /** {@inheritDoc Freezer.cgroupDirectory} */
  cgroupDirectory(): null {
    return null;
  }

  /** {@inheritDoc Freezer.freeze} */
  async freeze(target: FreezeTarget, timeoutMs: number): Promise<void> {
    // The command's group first, then bubblewrap's outer process.
    const pgids = groupsOf(target)
      .reverse()
      .filter((pgid) => signalGroup(pgid, 'SIGSTOP'));
    if (pgids.length === 0) return;
    const stopped = await waitUntil(
      () => {
        // A member forked after the first SIGSTOP is stopped by a repeat.
        if (groupsStopped(pgids)) return true;
        for (const pgid of pgids) signalGroup(pgid, 'SIGSTOP');
        return false;
      },
      timeoutMs,
      5,
    );
    if (!stopped)
      throw new Error(`freezer signals: process group ${pgids.join(', ')} not stopped after ${timeoutMs} ms`);
  }

  /** {@inheritDoc Freezer.thaw} */
  async thaw(target: FreezeTarget): Promise<void> {
    for (const pgid of groupsOf(target)) signalGroup(pgid, 'SIGCONT');
  }
}
