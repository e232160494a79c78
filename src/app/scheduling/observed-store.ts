/**
 * A StateStore decorator that reports every committed job transition (submit included) to a
 * PlaneEvents bus, after its transaction commits. Everything else passes through unchanged, so
 * counters of placements, preemptions and outcomes see exactly what the store recorded.
 */
import type { JobEventReason, JobState } from '../../core/index.js';
import type { JobRecord, StateStore } from '../ports/state-store.js';
import type { PlaneEvents } from './plane-events.js';

/** Wraps `store` so that committed transitions are emitted on `events`. */
export function observeStore(store: StateStore, events: PlaneEvents): StateStore {
  const transition = (job: JobRecord, from: JobState | null, atMs: number, reason: JobEventReason | null): void =>
    events.emit({
      type: 'job',
      jobId: job.id,
      tenant: job.tenant,
      priority: job.priority,
      from,
      to: job.state,
      mode: job.placement?.mode ?? null,
      atMs,
      reason,
    });
  const insertJob: StateStore['insertJob'] = (job, atMs) => {
    const record = store.insertJob(job, atMs);
    transition(record, null, atMs, null);
    return record;
  };
  const applyJobChanges: StateStore['applyJobChanges'] = (changes) => {
    // A change that expects a state names it; only the others need a read.
    const before = new Map(
      changes
        .filter((c) => c.to !== undefined)
        .map((c) => [c.jobId, c.expectState ?? store.getJob(c.jobId)?.state ?? null]),
    );
    store.applyJobChanges(changes);
    for (const change of changes) {
      if (change.to === undefined) continue;
      const job = store.getJob(change.jobId);
      if (job) transition(job, before.get(change.jobId) ?? null, change.atMs, change.reason ?? null);
    }
  };
  // A Proxy, so that stores built as classes or as plain objects are both wrapped.
  return new Proxy(store, {
    get(target, property, receiver) {
      if (property === 'insertJob') return insertJob;
      if (property === 'applyJobChanges') return applyJobChanges;
      const value: unknown = Reflect.get(target, property, receiver);
      return typeof value === 'function' ? (value as (...args: unknown[]) => unknown).bind(target) : value;
    },
  });
}
