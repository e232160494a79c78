/**
 * The line of any Status for one viewer: wait reasons (wait-message.ts), node refusals
 * (refusal-message.ts), preemption refusals (preemption-message.ts), job events
 * (event-message.ts) and autoscaler decisions (autoscale-message.ts), each from its code and details alone.
 */
import { autoscaleMessage } from './autoscale-message.js';
import { eventMessage } from './event-message.js';
import { refusalMessage } from './refusal-message.js';
import { preemptionMessage } from './preemption-message.js';
import { AUTOSCALE_CODES, JOB_EVENT_CODES, NODE_CODES, PREEMPTION_CODES, type Status } from './status.js';
import { ADMIN_VIEWER, type StatusViewer } from './status-viewer.js';
import { waitMessage } from './wait-message.js';

const EVENT_CODES: ReadonlySet<string> = new Set(Object.values(JOB_EVENT_CODES));
const NODE_ONLY_CODES: ReadonlySet<string> = new Set(Object.values(NODE_CODES));
const PREEMPTION_ONLY_CODES: ReadonlySet<string> = new Set(Object.values(PREEMPTION_CODES));
const AUTOSCALE_ONLY_CODES: ReadonlySet<string> = new Set(Object.values(AUTOSCALE_CODES));

/** One line for `reason`, as `viewer` may read it (default: an admin). */
export function statusMessage(reason: Status, viewer: StatusViewer = ADMIN_VIEWER): string {
  if (EVENT_CODES.has(reason.code)) return eventMessage(reason, viewer);
  if (NODE_ONLY_CODES.has(reason.code)) return refusalMessage(reason);
  if (PREEMPTION_ONLY_CODES.has(reason.code)) return preemptionMessage(reason, viewer);
  if (AUTOSCALE_ONLY_CODES.has(reason.code)) return autoscaleMessage(reason, viewer);
  return waitMessage(reason, viewer);
}
