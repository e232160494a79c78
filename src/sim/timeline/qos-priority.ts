/**
 * The trace's `qos` column mapped to the core's priority classes (docs/simulator.md "Timeline
 * replay"): latency-sensitive services first, best-effort batch last.
 */
import { PRIORITY_CLASSES } from '../../core/index.js';

/**
 * Priority (a `PRIORITY_CLASSES` value; higher is more important) of each `qos` value of the
 * Alibaba trace: `LS` → critical (1000), `Guaranteed` → high (900), `Burstable` → normal (500),
 * `BE` → low (100).
 */
export const QOS_PRIORITY: ReadonlyMap<string, number> = new Map([
  ['LS', PRIORITY_CLASSES.critical],
  ['Guaranteed', PRIORITY_CLASSES.high],
  ['Burstable', PRIORITY_CLASSES.normal],
  ['BE', PRIORITY_CLASSES.low],
]);

/**
 * Priority of a pod with this `qos`: see {@link QOS_PRIORITY}. A pod without `qos` (null, or a
 * file without the column) or with a value outside the four above gets `normal` (500), the
 * priority of a job submitted without one.
 * @param qos the `qos` cell as read (case-sensitive), or null
 * @returns the priority number
 */
export function priorityOfQos(qos: string | null): number {
  return (qos === null ? undefined : QOS_PRIORITY.get(qos)) ?? PRIORITY_CLASSES.normal;
}
