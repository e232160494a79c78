/**
 * The contract of one freezer backend (cgroup v2, cgroup v1, signals): what it acts on and how it
 * freezes and thaws. The backends are in cgroup-freezers.ts and signal-freezer.ts; freezer.ts
 * detects and creates them.
 */
import type { FreezerKind } from '../../app/ports/process-launcher.js';

/** What a freezer acts on: the attempt's cgroup name and its job's process group. */
export interface FreezeTarget {
  /** Name of the attempt's cgroups (`job-<id>-a<n>`), null when none were made. */
  cgroupKey: string | null;
  /** Pid and process group id of the job's command, null when not known (not running). */
  jobPid: number | null;
  /**
   * Process group of a sandboxed command, which runs in a session of its own (bwrap
   * --new-session): null when not known or not sandboxed.
   */
  commandPid?: number | null;
}

/** One freezer backend. */
export interface Freezer {
  /** Which backend this is. */
  readonly kind: FreezerKind;
  /** The directory of cgroup `cgroupKey` in this backend's hierarchy (the job joins it); null for signals. */
  cgroupDirectory(cgroupKey: string): string | null;
  /**
   * Freezes the target and resolves once the freeze is effective (every process stopped),
   * waiting at most `timeoutMs` milliseconds. A cgroup or process group that no longer exists is
   * a no-op. Throws on timeout or when the kernel refuses the write.
   */
  freeze(target: FreezeTarget, timeoutMs: number): Promise<void>;
  /** Thaws the target. A cgroup or process group that no longer exists is a no-op. */
  thaw(target: FreezeTarget): Promise<void>;
}
