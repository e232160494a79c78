/**
 * What happens when a QoS violation is raised or recovered: the job gets an event without a state
 * change (its reason, e.g. `QoS violation: step 0.62 s > target 0.5 s for 60 s`, shows in
 * `gpushare show`), a `qos` event goes on the plane's bus, the server logs it, and a scheduling pass
 * is asked for (a recovery may let a waiting job onto the job's GPUs).
 */
import type { StateStore } from '../ports/state-store.js';
import type { Logger } from '../scheduling/plane-deps.js';
import type { PlaneEvents } from '../scheduling/plane-events.js';
import type { QosChange } from './qos-tracker.js';
import { statusMessage } from '../../core/index.js';

/** Where QoS changes are published. */
export interface QosPublishTarget {
  readonly store: StateStore;
  readonly logger: Logger;
  readonly events: PlaneEvents;
  requestPass(): void;
}

/**
 * Publishes violations and recoveries. Storing an event may fail when the job left `running` in
 * the meantime; that is logged and the rest still happens.
 */
export function publishQosChanges(target: QosPublishTarget, changes: readonly QosChange[]): void {
  if (changes.length === 0) return;
  const { store, logger } = target;
  for (const change of changes) {
    try {
      store.addJobEvent(change.jobId, change.atMs, change.reason, 'running');
    } catch (error) {
      logger.warn({ jobId: change.jobId, err: error }, 'storing the QoS event failed');
    }
    target.events.emit({
      type: 'qos',
      jobId: change.jobId,
      tenant: change.tenant,
      kind: change.change,
      qosKind: change.kind,
      atMs: change.atMs,
    });
    const fields = {
      jobId: change.jobId,
      tenant: change.tenant,
      kind: change.kind,
      observedSeconds: change.observedSeconds,
      targetSeconds: change.targetSeconds,
    };
    if (change.change === 'violation') logger.warn(fields, statusMessage(change.reason));
    else logger.info(fields, statusMessage(change.reason));
  }
  target.requestPass();
}
