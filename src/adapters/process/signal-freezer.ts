/**
 * The signals freezer backend, for hosts without a usable cgroup freezer: SIGSTOP / SIGCONT to
 * the job's process group. It reaches only that process group (a descendant that called setsid
 * escapes it), and a program can observe SIGCONT. The supervisor is in another process group,
 * so it keeps running and still records the outcome.
 */
import type { Freezer, FreezeTarget } from './freezer-backend.js';
import { isExitedState } from '../../host/proc-identity.js';
import { listProcessGroup } from './proc-group.js';
import { signalGroup } from './supervisor-helpers.js';
import { waitUntil } from './wait-until.js';

/** True when every process of the group is stopped (T) or already exited. */
function groupStopped(pgid: number): boolean {
  return listProcessGroup(pgid).every((p) => p.state === 'T' || p.state === 't' || isExitedState(p.state));
}

/** SIGSTOP / SIGCONT to the job's process group; a freeze waits until every member shows state T. */
export class SignalFreezer implements Freezer {
  readonly kind = 'signals' as const;

  /** {@inheritDoc Freezer.cgroupDirectory} */
  cgroupDirectory(): null {
    return null;
  }

  /** {@inheritDoc Freezer.freeze} */
  async freeze(target: FreezeTarget, timeoutMs: number): Promise<void> {
    const pgid = target.jobPid;
    if (pgid === null || !signalGroup(pgid, 'SIGSTOP')) return;
    const stopped = await waitUntil(
      () => {
        // A member forked after the first SIGSTOP is stopped by a repeat.
        if (groupStopped(pgid)) return true;
        signalGroup(pgid, 'SIGSTOP');
        return false;
      },
      timeoutMs,
      5,
    );
    if (!stopped) throw new Error(`freezer signals: process group ${pgid} not stopped after ${timeoutMs} ms`);
  }

  /** {@inheritDoc Freezer.thaw} */
  async thaw(target: FreezeTarget): Promise<void> {
    if (target.jobPid !== null) signalGroup(target.jobPid, 'SIGCONT');
  }
}
