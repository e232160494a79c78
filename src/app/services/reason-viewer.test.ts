import { describe, expect, it } from 'vitest';
import { DEFAULT_TENANT_LIMITS } from '../ports/state-store.js';
import { checkPriorityCap, highestPriorityOf } from '../auth/priority-cap.js';
import {
  JOB_EVENT_CODES as E,
  jobEventReason,
  statusMessage,
  waitReason,
  WAIT_CODES as W,
  type Status,
} from '../../core/index.js';
import { viewerFor } from './reason-viewer.js';

/** Jobs 1-3 are team-a's, 7-9 team-b's; others unknown. */
const tenantOf = (id: number): string | null => (id <= 3 ? 'team-a' : id >= 7 && id <= 9 ? 'team-b' : null);

const preemptor = (preemptorJobId: number, preemptorPriority: number) => ({
  preemptorJobId,
  preemptorPriority,
  preemptorTenant: tenantOf(preemptorJobId) ?? 'unknown',
});

describe('viewerFor: reasons written for their reader', () => {
  const forA = viewerFor({ role: 'member', tenant: 'team-a', tokenId: 5 }, tenantOf);

  it.each<[Status, string]>([
    [jobEventReason(E.preempted, preemptor(7, 1000)), "preempted by another tenant's job (priority 1000)"],
    [
      jobEventReason(E.preemptionRequested, preemptor(8, 900)),
      "preemption requested: preempted by another tenant's job (priority 900)",
    ],
    [jobEventReason(E.preempted, preemptor(2, 900)), 'preempted by job 2 (priority 900, tenant team-a)'],
    [
      waitReason(W.backfill, { blockedJobId: 9, timeLimitSeconds: 60, reservedStartMs: 0 }),
      "waiting behind another tenant's job: a 60 s time limit would not end before its reserved start at " +
        '1970-01-01T00:00:00.000Z',
    ],
    [
      waitReason(W.preempting, { victimIds: [7, 8] }),
      'preempting 2 jobs of other tenants: waiting for them to checkpoint and exit',
    ],
    [
      waitReason(W.preempting, { victimIds: [2, 7] }),
      "preempting job(s) 2 and another tenant's job: waiting for them to checkpoint and exit",
    ],
    [
      waitReason(W.qosProtected, { gpus: [{ node: 'n', gpuIndex: 0, jobId: 42 }] }),
      "GPU 0 is protected: another tenant's job misses its QoS target",
    ],
    [
      waitReason(W.backfill, { blockedJobId: 3, timeLimitSeconds: null, reservedStartMs: null }),
      'waiting behind job 3: only jobs with a time limit may start ahead of a blocked job',
    ],
    [
      jobEventReason(E.placed, { gpus: [{ gpuIndex: 0, migProfile: null }], mode: 'mps', modeChoice: null }),
      'placed on GPU 0 in mode mps',
    ],
    [jobEventReason(E.recorded, { text: 'preempted by job 7' }), 'recorded before reasons were coded'],
  ])('%j → %s', (reason, shown) => {
    expect(statusMessage(reason, forA)).toBe(shown);
  });

  it('shows an admin every job and tenant', () => {
    const admin = viewerFor({ role: 'admin', tenant: null }, tenantOf);
    expect(statusMessage(jobEventReason(E.preempted, preemptor(7, 1000)), admin)).toBe(
      'preempted by job 7 (priority 1000, tenant team-b)',
    );
    expect(statusMessage(jobEventReason(E.recorded, { text: 'preempted by job 7' }), admin)).toBe('preempted by job 7');
  });

  it("hides every job from a principal without a tenant (a job's report token)", () => {
    const forJob = viewerFor({ role: 'job', tenant: null, jobId: 1 }, tenantOf);
    expect(
      statusMessage(waitReason(W.backfill, { blockedJobId: 1, timeLimitSeconds: null, reservedStartMs: null }), forJob),
    ).toBe("waiting behind another tenant's job: only jobs with a time limit may start ahead of a blocked job");
  });
});

describe('checkPriorityCap', () => {
  const tenant = (maxPriorityClass: 'low' | 'normal' | 'high' | 'critical') => ({
    name: 'team-a',
    createdAtMs: 0,
    guaranteedGpuEquivalents: 0,
    limitGpuEquivalents: null,
    ...DEFAULT_TENANT_LIMITS,
    maxPriorityClass,
  });
  const member = { role: 'member' as const, tenant: 'team-a', tokenId: 3 };

  it(
    "allows up to the class's value, refuses above it with 403 on priority, and bounds critical and admins " +
      'by nothing',
    () => {
      expect([
        highestPriorityOf('low'),
        highestPriorityOf('normal'),
        highestPriorityOf('high'),
        highestPriorityOf('critical'),
      ]).toEqual([100, 500, 900, null]);
      expect(() => checkPriorityCap(member, tenant('high'), 900)).not.toThrow();
      expect(() => checkPriorityCap(member, tenant('high'), 950)).toThrow(
        expect.objectContaining({
          httpStatus: 403,
          code: 'GPUSHARE_PRIORITY_CAP',
          details: { field: 'priority', maxPriorityClass: 'high', maxPriority: 900 },
        }),
      );
      expect(() => checkPriorityCap(member, tenant('low'), 101)).toThrow(
        /^priority: 101 is above the cap of tenant "team-a": its highest priority class is low \(100\)/,
      );
      expect(() => checkPriorityCap(member, tenant('critical'), 1_000_000)).not.toThrow();
      expect(() => checkPriorityCap({ role: 'admin', tenant: null }, tenant('low'), 1000)).not.toThrow();
    },
  );
});
