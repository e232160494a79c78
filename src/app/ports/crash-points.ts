/**
 * Port: crash points, the places where a crash loses or keeps state (docs/crash-testing.md). The
 * store reaches one before and one after every commit of its single write primitive (and the
 * job-id mark, the audit log, the audit-head journal theirs); the launcher and MIG decorators
 * (src/app/crash/) reach one before and after every process event. Production wires none (the
 * adapters then do no work for them); the crash harness (src/testing/crash/) counts them and crashes
 * at each in turn, and `GPUSHARE_CRASH_AT` (src/main/crash-at.ts) makes a real server SIGKILL itself
 * at one.
 */

/** Where a crash point is. */
export type CrashSite =
  /** A StateStore write transaction: `before` inside it (all statements run, not committed), `after` its COMMIT. */
  | 'store.commit'
  /** An audit-log append transaction (the entry's INSERT), before and after its COMMIT. */
  | 'audit.commit'
  /** The job-id mark file's write (inside the job insert, before its COMMIT). */
  | 'job-id-mark.write'
  /** The store's job-id sequence raised at open (one transaction). */
  | 'job-id-sequence.raise'
  /** A batch of lines appended to the audit-head journal. */
  | 'audit-journal.write'
  /** A process launch (the launcher's `start`). */
  | 'process.launch'
  /** An attempt's end seen (its outcome read), before and after the plane acts on it. */
  | 'process.exit'
  /** A signal sent to an attempt (stop, cancel, time limit). */
  | 'process.signal'
  /** The preemption signal: the job is asked to save its checkpoint and exit. */
  | 'process.checkpoint'
  /** A MIG layout change of one GPU (the MIG manager's `apply`). */
  | 'mig.apply';

/** Which side of the event. */
export type CrashPhase = 'before' | 'after';

/** One crash point as reached. */
export interface CrashPoint {
  readonly site: CrashSite;
  readonly phase: CrashPhase;
  /** What is written or done, e.g. the store method (`insertJob`), the job id of a launch; for reports only. */
  readonly detail: string;
}

/** What is told of each crash point reached; it may throw (an in-process crash) or end the process. */
export interface CrashPoints {
  /** Called at `point`, synchronously; whatever it throws propagates as the write's or event's error. */
  reach(point: CrashPoint): void;
}

/** A crash point's name as `GPUSHARE_CRASH_AT` and reports write it: `<site>.<phase>` (e.g. `store.commit.after`). */
export function crashPointName(point: Pick<CrashPoint, 'site' | 'phase'>): string {
  return `${point.site}.${point.phase}`;
}
