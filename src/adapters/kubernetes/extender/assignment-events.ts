/**
 * A refused assignment (assignment-check.ts) as a core/v1 Event on its pod: type Warning, reason
 * the refusal's code, the message naming the field, what was expected and found, and the GPUs
 * blocked. `kubectl describe pod` shows it. A write that fails is told to `warn`, never thrown.
 */
import type { RefusedAssignment } from './assignment-refusals.js';
import { statusMessage, type KubeRest } from './kube-rest.js';

/** The Event's message of a refusal. */
export function refusalEventMessage(refused: RefusedAssignment): string {
  const details = Object.entries(refused.details)
    .map(([k, v]) => `${k}=${v === null ? 'none' : String(v)}`)
    .join(', ');
  const gpus = refused.gpuIndexes.length === 0 ? 'none' : refused.gpuIndexes.map((i) => `GPU ${i}`).join(', ');
  return (
    `gpushare: the assignment on this pod is not accounted (${refused.code}: ${details}); blocked on node ` +
    `${refused.node} until the pod is deleted or its assignment fixed: ${gpus}`
  );
}

/**
 * Posts the Event of `refused` through `rest` as `gpushare-extender` (reportingInstance
 * `instance`), stamped `nowMs`.
 */
export async function postRefusalEvent(
  rest: KubeRest,
  refused: RefusedAssignment,
  instance: string,
  nowMs: number,
  warn: (message: string) => void,
): Promise<void> {
  const time = new Date(nowMs).toISOString().replace(/\.\d+Z$/, 'Z');
  const namespace = refused.namespace;
  const body = {
    apiVersion: 'v1',
    kind: 'Event',
    metadata: { name: `${refused.name}.${nowMs.toString(16)}`, namespace },
    involvedObject: { apiVersion: 'v1', kind: 'Pod', name: refused.name, namespace, uid: refused.uid },
    reason: refused.code,
    message: refusalEventMessage(refused),
    type: 'Warning',
    count: 1,
    firstTimestamp: time,
    lastTimestamp: time,
    source: { component: 'gpushare-extender' },
    reportingComponent: 'gpushare.io/extender',
    reportingInstance: instance,
  };
  const what = `Event ${refused.code} on pod ${namespace}/${refused.name}`;
  try {
    const answer = await rest.request('POST', `/api/v1/namespaces/${encodeURIComponent(namespace)}/events`, body);
    if (answer.status !== 201) warn(`could not write ${what}: ${statusMessage(answer)}`);
  } catch (err) {
    warn(`could not write ${what}: ${(err as Error).message}`);
  }
}
