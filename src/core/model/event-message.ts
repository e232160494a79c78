/**
 * The line a person reads for what happened to a job (a transition's reason, an attempt's end, a
 * stop intent), written for one viewer from the code and the details alone (status-viewer.ts).
 * The details each code carries are listed on {@link eventMessage}; docs/reasons.md says what each
 * code means.
 */
import type { Status, StatusDetail, StatusDetails } from './status.js';
import { ADMIN_VIEWER, type StatusViewer } from './status-viewer.js';
import { figure, nestedStatus, records, words } from './status-figures.js';

/** `an admin`, or the tenant (as the viewer may read it) that asked for a cancel. */
function canceller(d: StatusDetails, viewer: StatusViewer): string {
  const who = d.by === 'admin' ? 'an admin' : viewer.tenant(words(d.tenant));
  return typeof d.note === 'string' ? `${who}: ${d.note}` : who;
}

/** `job 7 (priority 900, tenant b)`, or `another tenant's job (priority 900)`. */
function preemptor(d: StatusDetails, viewer: StatusViewer): string {
  const jobId = figure(d.preemptorJobId);
  if (!viewer.seesJob(jobId)) return `${viewer.job(jobId)} (priority ${figure(d.preemptorPriority)})`;
  const tenant = typeof d.preemptorTenant === 'string' ? `, ${viewer.tenant(d.preemptorTenant)}` : '';
  return `${viewer.job(jobId)} (priority ${figure(d.preemptorPriority)}${tenant})`;
}

/** `GPU 0 (3g.40gb), GPU 1`: the GPUs of a `placed` reason. */
function gpuList(value: StatusDetail | undefined): string {
  return records(value)
    .map((gpu) => `GPU ${figure(gpu.gpuIndex)}${typeof gpu.migProfile === 'string' ? ` (${gpu.migProfile})` : ''}`)
    .join(', ');
}

/**
 * One line for `reason`, as `viewer` may read it (default: an admin). Details by code: `placed`
 * gpus [{ gpuIndex, migProfile (null: none) }], mode, modeChoice (null, or why an `auto` job got
 * its mode); `attempt-started` attempt, pid (null: unknown); `exited` exitCode; `killed` signal;
 * `could-not-start` and `launch-failed` error; `retry` retry, retries, failure (the failure's
 * Status); `process-limit` pidsMax, forksRefused; `host-memory-limit` hostMemoryMiB, oomKills;
 * `cancel-requested` and `cancelled` by (`admin` or `tenant`), tenant, note (null: none);
 * `preemption-requested` and `preempted` preemptorJobId, preemptorPriority, preemptorTenant;
 * `attempt-recovered` attempt; `qos-violation` kind, observedSeconds, targetSeconds,
 * violationSeconds; `qos-recovered` kind, observedSeconds, targetSeconds; `workdir-not-writable`
 * requestedDirectory, problem; `recorded` text (a
 * reason stored before reasons were coded: shown to admins only).
 */
export function eventMessage(reason: Status, viewer: StatusViewer = ADMIN_VIEWER): string {
  const d = reason.details;
  switch (reason.code) {
    case 'placed': {
      const where = `placed on ${gpuList(d.gpus)} in mode ${words(d.mode)}`;
      return typeof d.modeChoice === 'string' ? `${where}: ${d.modeChoice}` : where;
    }
    case 'attempt-started':
      return `attempt ${figure(d.attempt)} started${typeof d.pid === 'number' ? ` (pid ${d.pid})` : ''}`;
    case 'exited':
      return `exit code ${figure(d.exitCode)}`;
    case 'killed':
      return `killed by ${words(d.signal)}`;
    case 'lost':
      return 'lost';
    case 'could-not-start':
      return words(d.error);
    case 'launch-failed':
      return `launch failed: ${words(d.error)}`;
    case 'retry': {
      const failure = nestedStatus(d.failure);
      const after = failure === null ? '' : eventMessage(failure, viewer);
      return `retry ${figure(d.retry)} of ${figure(d.retries)} after ${after}`;
    }
    case 'time-limit':
      return 'time-limit';
    case 'process-limit':
      return `process limit: more than ${figure(d.pidsMax)} processes (${figure(d.forksRefused)} fork(s) refused)`;
    case 'host-memory-limit':
      return `host memory limit: over ${figure(d.hostMemoryMiB)} MiB (${figure(d.oomKills)} process(es) OOM-killed)`;
    case 'cancel-requested':
      return `cancel requested by ${canceller(d, viewer)}`;
    case 'cancelled':
      return `cancelled by ${canceller(d, viewer)}`;
    case 'preemption-requested':
      return `preemption requested: preempted by ${preemptor(d, viewer)}`;
    case 'preempted':
      return `preempted by ${preemptor(d, viewer)}`;
    case 'attempt-recovered':
      return `attempt ${figure(d.attempt)} had started before the restart`;
    case 'requeued-after-stop':
      return 're-queued: the server stopped while launching it';
    case 'requeued-disk-full':
      return 're-queued: the disk was full at launch';
    case 'qos-violation':
      return (
        `QoS violation: ${words(d.kind)} ${figure(d.observedSeconds)} s > target ${figure(d.targetSeconds)} s for ` +
        `${figure(d.violationSeconds)} s`
      );
    case 'qos-recovered':
      return `QoS recovered: ${words(d.kind)} ${figure(d.observedSeconds)} s ≤ target ${figure(d.targetSeconds)} s`;
    case 'workdir-not-writable':
      return (
        `runs in a private working directory (in its job folder): ${words(d.requestedDirectory)} cannot be ` +
        `its own (${words(d.problem)})`
      );
    case 'recorded':
      return viewer.seesEverything ? words(d.text) : 'recorded before reasons were coded';
    default:
      return reason.code;
  }
}
