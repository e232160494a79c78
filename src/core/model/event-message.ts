/**
 * The line a person reads for what happened to a job (a transition's reason, an attempt's end, a
 * stop intent), written for one viewer from the code and the details alone (status-viewer.ts).
 * The details each code carries are listed on {@link eventMessage}; docs/reasons.md says what each
 * code means.
 */
import type { Status, StatusDetail, StatusDetails } from './status.js';
import { ADMIN_VIEWER, type StatusViewer } from './status-viewer.js';

const num = (value: StatusDetail | undefined): number => (typeof value === 'number' ? value : 0);
const text = (value: StatusDetail | undefined): string =>
  typeof value === 'string' || typeof value === 'number' ? String(value) : '';

/** `an admin`, or the tenant (as the viewer may read it) that asked for a cancel. */
function canceller(d: StatusDetails, viewer: StatusViewer): string {
  const who = d.by === 'admin' ? 'an admin' : viewer.tenant(text(d.tenant));
  return typeof d.note === 'string' ? `${who}: ${d.note}` : who;
}

/** `job 7 (priority 900, tenant b)`, or `another tenant's job (priority 900)`. */
function preemptor(d: StatusDetails, viewer: StatusViewer): string {
  const jobId = num(d.preemptorJobId);
  if (!viewer.seesJob(jobId)) return `${viewer.job(jobId)} (priority ${num(d.preemptorPriority)})`;
  const tenant = typeof d.preemptorTenant === 'string' ? `, ${viewer.tenant(d.preemptorTenant)}` : '';
  return `${viewer.job(jobId)} (priority ${num(d.preemptorPriority)}${tenant})`;
}

/** `GPU 0 (3g.40gb), GPU 1`: the GPUs of a `placed` reason. */
function gpuList(value: StatusDetail | undefined): string {
  if (!Array.isArray(value)) return '';
  return (value as readonly StatusDetail[])
    .map((g) => {
      const gpu = (typeof g === 'object' && g !== null && !Array.isArray(g) ? g : {}) as StatusDetails;
      return `GPU ${num(gpu.gpuIndex)}${typeof gpu.migProfile === 'string' ? ` (${gpu.migProfile})` : ''}`;
    })
    .join(', ');
}

/**
 * One line for `reason`, as `viewer` may read it (default: an admin). Details by code: `placed`
 * gpus [{ gpuIndex, migProfile (null: none) }], mode, modeChoice (null, or why an `auto` job got
 * its mode); `attempt-started` attempt, pid (null: unknown); `exited` exitCode; `killed` signal;
 * `could-not-start` and `launch-failed` error; `retry` retry, retries, failure (the failure's
 * Status); `cancel-requested` and `cancelled` by (`admin` or `tenant`), tenant, note (null: none);
 * `preemption-requested` and `preempted` preemptorJobId, preemptorPriority, preemptorTenant;
 * `attempt-recovered` attempt; `qos-violation` kind, observedSeconds, targetSeconds,
 * violationSeconds; `qos-recovered` kind, observedSeconds, targetSeconds; `recorded` text (a
 * reason stored before reasons were coded: shown to admins only).
 */
export function eventMessage(reason: Status, viewer: StatusViewer = ADMIN_VIEWER): string {
  const d = reason.details;
  switch (reason.code) {
    case 'placed': {
      const where = `placed on ${gpuList(d.gpus)} in mode ${text(d.mode)}`;
      return typeof d.modeChoice === 'string' ? `${where}: ${d.modeChoice}` : where;
    }
    case 'attempt-started':
      return `attempt ${num(d.attempt)} started${typeof d.pid === 'number' ? ` (pid ${d.pid})` : ''}`;
    case 'exited':
      return `exit code ${num(d.exitCode)}`;
    case 'killed':
      return `killed by ${text(d.signal)}`;
    case 'lost':
      return 'lost';
    case 'could-not-start':
      return text(d.error);
    case 'launch-failed':
      return `launch failed: ${text(d.error)}`;
    case 'retry': {
      const failure = d.failure as Status | undefined;
      const after = failure && typeof failure === 'object' && 'code' in failure ? eventMessage(failure, viewer) : '';
      return `retry ${num(d.retry)} of ${num(d.retries)} after ${after}`;
    }
    case 'time-limit':
      return 'time-limit';
    case 'cancel-requested':
      return `cancel requested by ${canceller(d, viewer)}`;
    case 'cancelled':
      return `cancelled by ${canceller(d, viewer)}`;
    case 'preemption-requested':
      return `preemption requested: preempted by ${preemptor(d, viewer)}`;
    case 'preempted':
      return `preempted by ${preemptor(d, viewer)}`;
    case 'attempt-recovered':
      return `attempt ${num(d.attempt)} had started before the restart`;
    case 'requeued-after-stop':
      return 're-queued: the server stopped while launching it';
    case 'requeued-disk-full':
      return 're-queued: the disk was full at launch';
    case 'qos-violation':
      return (
        `QoS violation: ${text(d.kind)} ${num(d.observedSeconds)} s > target ${num(d.targetSeconds)} s for ` +
        `${num(d.violationSeconds)} s`
      );
    case 'qos-recovered':
      return `QoS recovered: ${text(d.kind)} ${num(d.observedSeconds)} s ≤ target ${num(d.targetSeconds)} s`;
    case 'recorded':
      return viewer.seesEverything ? text(d.text) : 'recorded before reasons were coded';
    default:
      return reason.code;
  }
}
