/**
 * The assignments the extender's view refused to account (assignment-check.ts), by pod UID: what
 * each blocks, the filter reasons that say so, and the one notice (log, Event, metric) per pod and
 * assignment. Also the signer the view verifies with, remembering what verified. No I/O.
 */
import type { AssignmentSigner } from '../schema/assignment-signature.js';
import type { PodAssignment } from '../schema/pod-assignment.js';
import type { AssignmentRefusal } from './assignment-check.js';
import type { Failure } from './node-answer-memo.js';

/** A pod whose assignment the view refused to account, and the GPUs it blocks. */
export interface RefusedAssignment extends AssignmentRefusal {
  readonly uid: string;
  readonly namespace: string;
  readonly name: string;
  readonly node: string;
  /** Indices of the node's GPUs the assignment names: they take no new pod while it stands. */
  readonly gpuIndexes: readonly number[];
}

/** How the view treats assignments it reads from pods. */
export interface AssignmentChecks {
  /** Signs the assignments of this view's binds and verifies those read; null: no signatures. */
  readonly signer: AssignmentSigner | null;
  /** Told once per pod and assignment when one is refused (the log, an Event, the metric). */
  readonly onRefused?: (refused: RefusedAssignment) => void;
}

/**
 * `signer`, remembering the assignments that verified (each parsed object belongs to one pod): a
 * rebuild checks every bound pod again, and an HMAC costs about 7 µs where the rest of the check
 * costs 0.2. Null for null.
 */
export function rememberingVerifier(signer: AssignmentSigner | null): AssignmentSigner | null {
  if (signer === null) return null;
  const verified = new WeakSet<PodAssignment>();
  return {
    sign: (uid, assignment) => signer.sign(uid, assignment),
    verify: (uid, assignment) => {
      if (verified.has(assignment)) return true;
      if (!signer.verify(uid, assignment)) return false;
      verified.add(assignment);
      return true;
    },
  };
}

/** The refused assignments of one view. */
export class AssignmentRefusals {
  private readonly refused = new Map<string, RefusedAssignment>();
  /** The refusal (code and assignment) `onRefused` was last told of, by pod UID. */
  private readonly notified = new Map<string, string>();

  constructor(private readonly onRefused?: (refused: RefusedAssignment) => void) {}

  /** Refused assignments now, by pod UID. */
  all(): ReadonlyMap<string, RefusedAssignment> {
    return this.refused;
  }

  /** Whether the pod's assignment is refused now. */
  has(uid: string): boolean {
    return this.refused.has(uid);
  }

  /** Records `refused` (of `assignment`); tells `onRefused` unless it was told of this one already. */
  refuse(refused: RefusedAssignment, assignment: PodAssignment): void {
    this.refused.set(refused.uid, refused);
    const key = `${refused.code}\u0000${JSON.stringify(assignment)}`;
    if (this.notified.get(refused.uid) !== key) {
      this.notified.set(refused.uid, key);
      this.onRefused?.(refused);
    }
  }

  /** The pod's assignment passed: a later refusal is told again. */
  accept(uid: string): void {
    this.refused.delete(uid);
    this.notified.delete(uid);
  }

  /** Drops the pod's refusal (it is checked again); true when there was one. */
  drop(uid: string): boolean {
    return this.refused.delete(uid);
  }

  /** The pod is gone: forgets it; true when its assignment was refused. */
  forget(uid: string): boolean {
    this.notified.delete(uid);
    return this.refused.delete(uid);
  }

  /** Drops every refusal (a rebuild checks every pod again); the notices stay. */
  clear(): void {
    this.refused.clear();
  }

  /**
   * `failed` with the blocked GPUs of each node named in its reason (code `assignment-refused`, the
   * pod and the refusal's code), when a refused assignment blocks GPUs there; `failed` itself
   * otherwise (it may be a memo's: never changed in place).
   */
  annotate(failed: ReadonlyMap<string, Failure>): ReadonlyMap<string, Failure> {
    if (this.refused.size === 0) return failed;
    const byNode = new Map<string, string[]>();
    for (const r of this.refused.values())
      for (const index of r.gpuIndexes)
        byNode.set(r.node, [...(byNode.get(r.node) ?? []), `GPU ${index} by pod ${r.namespace}/${r.name} (${r.code})`]);
    let out: Map<string, Failure> | null = null;
    for (const [name, failure] of failed) {
      const blocked = byNode.get(name)?.sort();
      if (blocked === undefined) continue;
      out ??= new Map(failed);
      out.set(name, {
        ...failure,
        reason: `${failure.reason}; blocked GPUs (assignment-refused): ${blocked.join(', ')}`,
      });
    }
    return out ?? failed;
  }
}
