/**
 * The line a person reads for why the preemption planner found no victims for a job, written from
 * the code and details alone (status-viewer.ts). Details: `preemptorJobId`; `ineligible`, the
 * count of running jobs each rule excludes (`self`, `notLowerPriority`, `notPreemptible`,
 * `tooYoung`, `preemptedTooOften`) with `minRunSeconds` and `maxPreemptionsPerJob`;
 * `eligibleVictims`; for `no-node-with-room`, `nodes` [{ nodeIndex, refusal }].
 */
import type { Status, StatusDetail, StatusDetails } from './status.js';
import { ADMIN_VIEWER, type StatusViewer } from './status-viewer.js';

const num = (value: StatusDetail | undefined): number => (typeof value === 'number' ? value : 0);

/** The rules in the order the line names them, with their words. */
const INELIGIBLE: readonly [string, (d: StatusDetails) => string][] = [
  ['self', () => 'the job itself'],
  ['notLowerPriority', () => 'not of lower priority (and not a reclaimable borrower)'],
  ['notPreemptible', () => 'not preemptible (and not a reclaimable borrower)'],
  ['tooYoung', (d) => `running for less than ${num(d.minRunSeconds)} s`],
  ['preemptedTooOften', (d) => `preempted ${num(d.maxPreemptionsPerJob)} time(s) already`],
];

/** `; ineligible: 1 running for less than 60 s, …`, or nothing. */
function ineligible(d: StatusDetails): string {
  const counts = (typeof d.ineligible === 'object' && d.ineligible !== null ? d.ineligible : {}) as StatusDetails;
  const parts = INELIGIBLE.filter(([rule]) => num(counts[rule]) > 0).map(
    ([rule, words]) => `${num(counts[rule])} ${words(d)}`,
  );
  return parts.length === 0 ? '' : `; ineligible: ${parts.join(', ')}`;
}

/** One line for a preemption refusal, as `viewer` may read it (default: an admin). */
export function preemptionMessage(reason: Status, viewer: StatusViewer = ADMIN_VIEWER): string {
  const d = reason.details;
  const job = viewer.job(num(d.preemptorJobId));
  switch (reason.code) {
    case 'no-eligible-victim':
      return `no running job may be preempted for ${job}${ineligible(d)}`;
    case 'no-room-with-victims':
      return `${job} would not fit even with all ${num(d.eligibleVictims)} eligible victim(s) removed${ineligible(d)}`;
    case 'fits-without-preemption':
      return `${job} fits without preemption`;
    case 'no-node-with-room': {
      const nodes = Array.isArray(d.nodes) ? (d.nodes as readonly StatusDetails[]) : [];
      const lines = nodes.map((n) => `node ${num(n.nodeIndex)}: ${preemptionMessage(n.refusal as Status, viewer)}`);
      return `no node can make room for ${job}: ${lines.join('; ')}`;
    }
    default:
      return reason.code;
  }
}
