/**
 * The crash points of one harness run (app/ports/crash-points.ts): counts every point reached
 * and, when told to, crashes at the n-th: from then on every point throws {@link CrashError}, so
 * the dropped control plane writes nothing more, launches and signals nothing, and its audit
 * journal appends nothing (docs/crash-testing.md).
 */
import { type CrashPoint, type CrashPoints, crashPointName } from '../../app/ports/crash-points.js';

/** What a crash point throws at and after the crash. */
export class CrashError extends Error {
  constructor(readonly point: CrashPoint) {
    super(`crashed at ${crashPointName(point)} (${point.detail})`);
  }
}

/**
 * Sites that are told of but not counted: the audit-head journal is written when its batch fills
 * or a real-time timer fires, so where its writes fall in a scenario is not deterministic. It is
 * cut off at a crash like everything else (its lines lost, as in a crash); real `kill -9` points
 * cover its writes (test/slow/serve-crash-kill.test.ts).
 */
const UNCOUNTED_SITES: ReadonlySet<string> = new Set(['audit-journal.write']);

/** A point as counted: its name (`store.commit.after`) and detail. */
export interface CountedPoint {
  readonly name: string;
  readonly detail: string;
}

/** Counts crash points and crashes at one of them. */
export class CrashController implements CrashPoints {
  /** Every counted point reached, in order. */
  readonly reached: CountedPoint[] = [];
  private crashedAt: CrashPoint | null = null;

  /** @param crashAtIndex the 0-based index of the counted point to crash at; null: never crash */
  constructor(private readonly crashAtIndex: number | null = null) {}

  /** The point it crashed at; null while it has not. */
  get crash(): CrashPoint | null {
    return this.crashedAt;
  }

  reach(point: CrashPoint): void {
    if (this.crashedAt !== null) throw new CrashError(this.crashedAt);
    if (UNCOUNTED_SITES.has(point.site)) return;
    const index = this.reached.length;
    this.reached.push({ name: crashPointName(point), detail: point.detail });
    if (index === this.crashAtIndex) {
      this.crashedAt = point;
      throw new CrashError(point);
    }
  }
}
