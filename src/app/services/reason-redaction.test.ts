import { describe, expect, it } from 'vitest';
import { DEFAULT_TENANT_LIMITS } from '../ports/state-store.js';
import { checkPriorityCap, highestPriorityOf } from '../auth/priority-cap.js';
import { reasonRedactor } from './reason-redaction.js';

/** Jobs 1-3 are team-a's, 7-9 team-b's; others unknown. */
const tenantOf = (id: number): string | null => (id <= 3 ? 'team-a' : id >= 7 && id <= 9 ? 'team-b' : null);

describe('reasonRedactor', () => {
  const forA = reasonRedactor({ role: 'member', tenant: 'team-a', tokenId: 5 }, tenantOf);

  it.each([
    [
      'preempted by job 7 (priority 1000, tenant team-b)',
      "preempted by another tenant's job (priority 1000, tenant team-b)",
    ],
    [
      'preemption requested: preempted by job 8 (priority 900, tenant team-b)',
      "preemption requested: preempted by another tenant's job (priority 900, tenant team-b)",
    ],
    [
      'waiting behind job 9: a 60 s time limit would not end before 12:00',
      "waiting behind another tenant's job: a 60 s time limit would not end before 12:00",
    ],
    [
      'preempting job(s) 7, 8: waiting for them to checkpoint and exit',
      'preempting 2 jobs of other tenants: waiting for them to checkpoint and exit',
    ],
    [
      'preempting job(s) 2, 7: waiting for them to checkpoint and exit',
      "preempting job(s) 2 and another tenant's job: waiting for them to checkpoint and exit",
    ],
    ['GPU 0: job 42 misses its QoS target', "GPU 0: another tenant's job misses its QoS target"],
    [
      'waiting behind job 3: only jobs with a time limit may start ahead of a blocked job',
      'waiting behind job 3: only jobs with a time limit may start ahead of a blocked job',
    ],
    ['no running job may be preempted for job 1', 'no running job may be preempted for job 1'],
    ['placed on GPU 0 in mode mps', 'placed on GPU 0 in mode mps'],
  ])('%s → %s', (stored, shown) => {
    expect(forA(stored)).toBe(shown);
  });

  it('keeps null, and shows an admin the stored truth', () => {
    expect(forA(null)).toBeNull();
    expect(
      reasonRedactor({ role: 'admin', tenant: null }, tenantOf)('preempted by job 7 (priority 1000, tenant team-b)'),
    ).toBe('preempted by job 7 (priority 1000, tenant team-b)');
  });

  it("hides every job from a principal without a tenant (a job's report token)", () => {
    expect(reasonRedactor({ role: 'job', tenant: null, jobId: 1 }, tenantOf)('waiting behind job 1: …')).toBe(
      "waiting behind another tenant's job: …",
    );
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
