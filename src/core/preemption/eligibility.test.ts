import { describe, expect, it } from 'vitest';
import { PRIORITY_CLASSES } from '../model/priority.js';
import {
  classifyCandidate,
  DEFAULT_PREEMPTION_OPTIONS,
  defaultPreemptible,
  isEligible,
  type Eligibility,
  type PreemptionOptions,
  type Preemptor,
} from './eligibility.js';
import { candidate } from './testing/fixtures.js';

const { low, normal, high, critical } = PRIORITY_CLASSES;
const NOW_MS = 3_600_000;

describe('defaultPreemptible', () => {
  it.each([
    [0, true],
    [low, true],
    [normal, true],
    [899, true],
    [high, false],
    [critical, false],
    [5000, false],
  ])('priority %i → %s', (priority, expected) => {
    expect(defaultPreemptible(priority)).toBe(expected);
  });
});

describe('classifyCandidate', () => {
  const critic: Preemptor = { jobId: 9, priority: critical, tenant: 'a', reclaiming: false };
  const reclaimer: Preemptor = { jobId: 9, priority: normal, tenant: 'a', reclaiming: true };
  const guarded: PreemptionOptions = { minRunSeconds: 600, maxPreemptionsPerJob: 2 };
  const cases: [string, Preemptor, Parameters<typeof candidate>[1], PreemptionOptions, Eligibility][] = [
    ['lower priority, preemptible', critic, { priority: low }, DEFAULT_PREEMPTION_OPTIONS, 'priority'],
    ['equal priority', critic, { priority: critical }, DEFAULT_PREEMPTION_OPTIONS, 'not-lower-priority'],
    [
      'higher priority',
      { ...critic, priority: low },
      { priority: normal },
      DEFAULT_PREEMPTION_OPTIONS,
      'not-lower-priority',
    ],
    [
      'lower priority, not preemptible',
      critic,
      { priority: low, preemptible: false },
      DEFAULT_PREEMPTION_OPTIONS,
      'not-preemptible',
    ],
    [
      'high under critical (not preemptible by default)',
      critic,
      { priority: high },
      DEFAULT_PREEMPTION_OPTIONS,
      'not-preemptible',
    ],
    ['the preemptor itself', critic, { jobId: 9 }, DEFAULT_PREEMPTION_OPTIONS, 'self'],
    ['ran 599 s of 600', critic, { startedAtMs: NOW_MS - 599_000 }, guarded, 'too-young'],
    ['ran 600 s of 600', critic, { startedAtMs: NOW_MS - 600_000 }, guarded, 'priority'],
    [
      'minRunSeconds 0: a start in the future (clock skew) does not matter',
      critic,
      { startedAtMs: NOW_MS + 5_000 },
      DEFAULT_PREEMPTION_OPTIONS,
      'priority',
    ],
    ['preempted 2 of 2 times', critic, { preemptionCount: 2 }, guarded, 'preempted-too-often'],
    ['preempted 1 of 2 times', critic, { preemptionCount: 1, startedAtMs: 0 }, guarded, 'priority'],
    [
      'reclaim: a critical, not preemptible borrower of another tenant',
      reclaimer,
      { priority: critical, preemptible: false, overQuotaBorrower: true },
      DEFAULT_PREEMPTION_OPTIONS,
      'reclaim',
    ],
    [
      'reclaim: a borrower of the own tenant',
      reclaimer,
      { priority: critical, overQuotaBorrower: true, tenant: 'a' },
      DEFAULT_PREEMPTION_OPTIONS,
      'not-lower-priority',
    ],
    [
      'reclaim: a non-borrower of equal priority',
      reclaimer,
      { priority: normal },
      DEFAULT_PREEMPTION_OPTIONS,
      'not-lower-priority',
    ],
    [
      'reclaim: a lower-priority non-borrower still falls under the priority rule',
      reclaimer,
      { priority: low },
      DEFAULT_PREEMPTION_OPTIONS,
      'priority',
    ],
    [
      'reclaim: the guards apply to borrowers too',
      reclaimer,
      { priority: critical, overQuotaBorrower: true, preemptionCount: 2 },
      guarded,
      'preempted-too-often',
    ],
    [
      'not reclaiming: a borrower of higher priority',
      { ...reclaimer, reclaiming: false },
      { priority: critical, overQuotaBorrower: true },
      DEFAULT_PREEMPTION_OPTIONS,
      'not-lower-priority',
    ],
  ];
  it.each(cases)('%s', (_name, preemptor, extra, options, expected) => {
    const eligibility = classifyCandidate(candidate(1, extra), preemptor, options, NOW_MS);
    expect(eligibility).toBe(expected);
    expect(isEligible(eligibility)).toBe(expected === 'priority' || expected === 'reclaim');
  });
});
