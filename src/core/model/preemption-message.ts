/**
 * The line a person reads for why the preemption planner found no victims for a job, written from
 * the code and details alone (status-viewer.ts). Details: `preemptorJobId`; `ineligible`, the
 * count of running jobs each rule excludes (`self`, `notLowerPriority`, `notPreemptible`,
 * `tooYoung`, `preemptedTooOften`) with `minRunSeconds` and `maxPreemptionsPerJob`;
 * `eligibleVictims`; for `no-node-with-room`, `nodes` [{ nodeIndex, refusal }].
 */
import type { Status, StatusDetails } from './status.js';
import { ADMIN_VIEWER, type StatusViewer } from './status-viewer.js';
import { figure, nestedStatus, records } from './status-figures.js';

/** The rules in the order the line names them, with their words. */
const INELIGIBLE: readonly [string, (d: StatusDetails) => string][] = [
  ['self', () => 'the job itself'],
  ['notLowerPriority', () => 'not of lower priority (and not a reclaimable borrower)'],
  ['notPreemptible', () => 'not preemptible (and not a reclaimable borrower)'],
  ['tooYoung', (d) => `running for less than ${figure(d.minRunSeconds)} s`],
  ['preemptedTooOften', (d) => `preempted ${figure(d.maxPreemptionsPerJob)} time(s) already`],
];

/** `; ineligible: 1 running for less than 60 s, …`, or nothing. */
function ineligible(d: StatusDetails): string {
  const counts = (typeof d.ineligible === 'object' && d.ineligible !== null ? d.ineligible : {}) as StatusDetails;
  const parts = INELIGIBLE.filter(([rule]) => figure(counts[rule]) > 0).map(
    ([rule, words]) => `${figure(counts[rule])} ${words(d)}`,
  );
  return parts.length === 0 ? '' : `; ineligible: ${parts.join(', ')}`;
}

/** One line for a preemption refusal, as `viewer` may read it (default: an admin). */
export function preemptionMessage(reason: Status, viewer: StatusViewer = ADMIN_VIEWER): string {
  const d = reason.details;
  const job = viewer.job(figure(d.preemptorJobId));
  switch (reason.code) {
    case 'no-eligible-victim':
      return `no running job may be preempted for ${job}${ineligible(d)}`;
    case 'no-room-with-victims':
      return (
        `${job} would not fit even with all ${figure(d.eligibleVictims)} eligible victim(s) removed` + ineligible(d)
      );
    case 'fits-without-preemption':
      return `${job} fits without preemption`;
    case 'no-node-with-room': {
      const lines = records(d.nodes).map((n) => {
        const refusal = nestedStatus(n.refusal);
        return `node ${figure(n.nodeIndex)}: ${refusal === null ? '' : preemptionMessage(refusal, viewer)}`;
      });
      return `no node can make room for ${job}: ${lines.join('; ')}`;
    }
    default:
      return reason.code;
  }
}
