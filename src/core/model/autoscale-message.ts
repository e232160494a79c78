/**
 * The line a person reads for an autoscaler decision (AUTOSCALE_CODES in status.ts), written from
 * the code and details alone. Jobs are named through the viewer (status-viewer.ts); nodes,
 * templates, counts, seconds and prices are the operator's own figures.
 */
import type { Status, StatusDetail } from './status.js';
import { ADMIN_VIEWER, type StatusViewer } from './status-viewer.js';
import { figure, words } from './status-figures.js';

/** The job ids of a list figure; none when absent. */
function jobIds(value: StatusDetail | undefined): number[] {
  return Array.isArray(value) ? (value as readonly StatusDetail[]).filter((v) => typeof v === 'number') : [];
}

/** ` (for job 7)` when the details name the job the decision was about, else nothing. */
function forJob(d: Status['details'], viewer: StatusViewer): string {
  return typeof d.jobId === 'number' ? ` (for ${viewer.job(d.jobId)})` : '';
}

/** One line for an autoscaler decision, as `viewer` may read it (default: an admin). */
export function autoscaleMessage(reason: Status, viewer: StatusViewer = ADMIN_VIEWER): string {
  const d = reason.details;
  switch (reason.code) {
    case 'unschedulable-jobs':
      return (
        `${figure(d.jobCount)} pending job(s) fit no node of the pool: adding ${figure(d.nodeCount)} ` +
        `node(s) of template ${words(d.template)}`
      );
    case 'below-queue-threshold':
      return (
        `${figure(d.jobCount)} job(s) waiting at least ${figure(d.waitSeconds)} s need new nodes, fewer than ` +
        `the threshold of ${figure(d.threshold)}`
      );
    case 'scale-up-cooling-down':
      return `a scale-up happened lately: the next may start in ${figure(d.secondsLeft)} s`;
    case 'no-template-fits':
      return `no node template fits${forJob(d, viewer)} even empty`;
    case 'max-nodes':
      return `the pool has its maximum of ${figure(d.maxNodes)} node(s)${forJob(d, viewer)}`;
    case 'max-cost':
      return (
        `another node would raise the pool's cost to ${figure(d.costPerHour)} per hour, over the cap of ` +
        `${figure(d.maxCostPerHour)}${forJob(d, viewer)}`
      );
    case 'template-max-count':
      return `template ${words(d.template)} has its maximum of ${figure(d.maxCount)} node(s)${forJob(d, viewer)}`;
    case 'provider-backoff':
      return (
        `the provider failed ${figure(d.failures)} time(s) for template ${words(d.template)}: next try in ` +
        `${figure(d.secondsLeft)} s`
      );
    case 'boot-timed-out':
      return (
        `node ${words(d.node)} (template ${words(d.template)}) did not come up within ${figure(d.bootSeconds)} s ` +
        `+ ${figure(d.timeoutSeconds)} s: given up`
      );
    case 'node-idle':
      return `node ${words(d.node)} (template ${words(d.template)}) held no job for ${figure(d.idleSeconds)} s`;
    case 'node-underused':
      return (
        `node ${words(d.node)} (template ${words(d.template)}) used ${figure(d.utilization)} of its GPUs, at most ` +
        `${figure(d.threshold)}, for ${figure(d.idleSeconds)} s; ${viewer.jobs(jobIds(d.jobIds))} move elsewhere`
      );
    case 'uncheckpointable-job':
      return `node ${words(d.node)} is kept: ${viewer.job(figure(d.jobId))} on it cannot be checkpointed`;
    case 'jobs-fit-nowhere-else':
      return `node ${words(d.node)} is kept: ${viewer.jobs(jobIds(d.jobIds))} would fit no other node`;
    case 'node-not-empty': {
      // `jobs` are the cluster's names for them (pods): an admin reads them, anyone else a count.
      const count = Array.isArray(d.jobs) ? d.jobs.length : 0;
      const jobs = viewer.seesEverything ? words(d.jobs) : `${count} job(s)`;
      const node = `node ${words(d.node)} (template ${words(d.template)})`;
      return `${node} is kept, cordoned: ${jobs} were placed on it after the decision`;
    }
    case 'template-min-count':
      return `node ${words(d.node)} is kept: template ${words(d.template)} has its minimum of ${figure(d.minCount)}`;
    default:
      return reason.code;
  }
}
