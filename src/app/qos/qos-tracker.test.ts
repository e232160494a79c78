import { describe, expect, it } from 'vitest';
import { statusMessage } from '../../core/index.js';
import type { QosChange } from './qos-tracker.js';

/** The changes with their reasons' lines. */
const lines = (changes: readonly QosChange[]) => changes.map((c) => ({ ...c, reason: statusMessage(c.reason) }));
import { QosTracker, type QosTrackedJob } from './qos-tracker.js';

const T0 = 1_750_000_000_000;
const job: QosTrackedJob = {
  jobId: 7,
  tenant: 'team-a',
  priority: 900,
  gpuIndices: [0],
  targets: { stepSeconds: 0.5 },
};

function tracker(violationSeconds = 60): { qos: QosTracker; clock: { now: number } } {
  const clock = { now: T0 };
  return { qos: new QosTracker({ nowMs: () => clock.now, violationSeconds }), clock };
}

describe('QosTracker', () => {
  it('raises a violation on the report that makes the run of misses 60 s old, not before', () => {
    const { qos } = tracker();
    qos.track(job);
    expect(lines(qos.report(7, { stepSeconds: 0.62 }, T0))).toEqual([]);
    expect(lines(qos.report(7, { stepSeconds: 0.7 }, T0 + 30_000))).toEqual([]);
    expect(lines(qos.report(7, { stepSeconds: 0.61 }, T0 + 59_999))).toEqual([]);
    expect(qos.statuses()).toEqual([
      {
        jobId: 7,
        tenant: 'team-a',
        gpuIndices: [0],
        kind: 'step',
        targetSeconds: 0.5,
        lastObservedSeconds: 0.61,
        lastReportAtMs: T0 + 59_999,
        reports: 3,
        violating: false,
        missingSinceMs: T0,
        violations: 0,
      },
    ]);
    expect(lines(qos.report(7, { stepSeconds: 0.62 }, T0 + 60_000))).toEqual([
      {
        jobId: 7,
        tenant: 'team-a',
        kind: 'step',
        change: 'violation',
        observedSeconds: 0.62,
        targetSeconds: 0.5,
        atMs: T0 + 60_000,
        reason: 'QoS violation: step 0.62 s > target 0.5 s for 60 s',
      },
    ]);
    // Still missing: no second violation.
    expect(lines(qos.report(7, { stepSeconds: 0.9 }, T0 + 61_000))).toEqual([]);
    expect(qos.statusesOf(7)[0]).toMatchObject({ violating: true, violations: 1, reports: 5, missingSinceMs: T0 });
    expect(qos.violatingJobs().map((j) => j.jobId)).toEqual([7]);
  });

  it(
    'a run of misses spans silences: a job reporting every 2 s with a 1 s violation time is flagged at its ' +
      'second miss',
    () => {
      const { qos, clock } = tracker(1);
      qos.track(job);
      clock.now = T0;
      expect(lines(qos.report(7, { stepSeconds: 0.9 }))).toEqual([]);
      clock.now = T0 + 1_000;
      expect(lines(qos.check())).toEqual([]); // the latest report is already 1 s old: not judged on the timer
      clock.now = T0 + 2_000;
      expect(lines(qos.report(7, { stepSeconds: 0.9 }))).toEqual([
        {
          jobId: 7,
          tenant: 'team-a',
          kind: 'step',
          change: 'violation',
          observedSeconds: 0.9,
          targetSeconds: 0.5,
          atMs: T0 + 2_000,
          reason: 'QoS violation: step 0.9 s > target 0.5 s for 1 s',
        },
      ]);
      expect(qos.statusesOf(7)[0]).toMatchObject({ violating: true, missingSinceMs: T0, violations: 1 });
      clock.now = T0 + 4_000;
      expect(lines(qos.report(7, { stepSeconds: 0.9 }))).toEqual([]); // still violating: raised once
      // It meets the target after the misses: recovered at once.
      clock.now = T0 + 6_000;
      expect(qos.report(7, { stepSeconds: 0.4 }).map((c) => [c.change, statusMessage(c.reason)])).toEqual([
        ['recovered', 'QoS recovered: step 0.4 s ≤ target 0.5 s'],
      ]);
      expect(qos.violatingJobs()).toEqual([]);
    },
  );

  it('a job reporting every 5 minutes is flagged at its second miss with the default 60 s', () => {
    const { qos } = tracker(60);
    qos.track(job);
    expect(lines(qos.report(7, { stepSeconds: 0.9 }, T0))).toEqual([]);
    expect(qos.report(7, { stepSeconds: 0.9 }, T0 + 300_000).map((c) => [c.change, c.atMs])).toEqual([
      ['violation', T0 + 300_000],
    ]);
  });

  it('recovers on the first met report (equal to the target meets it) and restarts the run after', () => {
    const { qos } = tracker(10);
    qos.track(job);
    qos.report(7, { stepSeconds: 0.6 }, T0);
    expect(qos.report(7, { stepSeconds: 0.6 }, T0 + 10_000).map((c) => c.change)).toEqual(['violation']);
    expect(lines(qos.report(7, { stepSeconds: 0.5 }, T0 + 12_000))).toEqual([
      {
        jobId: 7,
        tenant: 'team-a',
        kind: 'step',
        change: 'recovered',
        observedSeconds: 0.5,
        targetSeconds: 0.5,
        atMs: T0 + 12_000,
        reason: 'QoS recovered: step 0.5 s ≤ target 0.5 s',
      },
    ]);
    expect(qos.statusesOf(7)[0]).toMatchObject({ violating: false, missingSinceMs: null, violations: 1 });
    expect(qos.violatingJobs()).toEqual([]);
    // A new run of misses starts at its own first miss.
    expect(lines(qos.report(7, { stepSeconds: 0.7 }, T0 + 13_000))).toEqual([]);
    expect(lines(qos.report(7, { stepSeconds: 0.7 }, T0 + 22_999))).toEqual([]);
    expect(qos.report(7, { stepSeconds: 0.7 }, T0 + 23_000).map((c) => [c.change, c.atMs])).toEqual([
      ['violation', T0 + 23_000],
    ]);
    expect(qos.statusesOf(7)[0]!.violations).toBe(2);
  });

  it('a met report in the middle resets the run: no violation 60 s after the first miss', () => {
    const { qos } = tracker();
    qos.track(job);
    qos.report(7, { stepSeconds: 0.8 }, T0);
    qos.report(7, { stepSeconds: 0.4 }, T0 + 20_000);
    qos.report(7, { stepSeconds: 0.8 }, T0 + 40_000);
    expect(lines(qos.report(7, { stepSeconds: 0.8 }, T0 + 60_000))).toEqual([]);
    expect(qos.report(7, { stepSeconds: 0.8 }, T0 + 100_000).map((c) => c.atMs)).toEqual([T0 + 100_000]);
  });

  it('check raises the violation on time between reports, but not for a job that stopped reporting', () => {
    const { qos, clock } = tracker(1);
    qos.track(job);
    qos.track({ ...job, jobId: 8, gpuIndices: [1] });
    qos.report(7, { stepSeconds: 0.62 }, T0);
    qos.report(8, { stepSeconds: 0.62 }, T0);
    qos.report(7, { stepSeconds: 0.62 }, T0 + 600);
    expect(lines(qos.check(T0 + 999))).toEqual([]);
    clock.now = T0 + 1_000;
    // Job 8's latest report is 1 s old: it is not judged. Job 7 reported 0.4 s ago.
    expect(qos.check().map((c) => [c.jobId, c.change, c.atMs, statusMessage(c.reason)])).toEqual([
      [7, 'violation', T0 + 1_000, 'QoS violation: step 0.62 s > target 0.5 s for 1 s'],
    ]);
    expect(lines(qos.check(T0 + 1_200))).toEqual([]);
    // A violation stays while the job is silent; the next met report recovers it.
    expect(lines(qos.check(T0 + 50_000))).toEqual([]);
    expect(qos.statusesOf(7)[0]!.violating).toBe(true);
    expect(qos.report(7, { stepSeconds: 0.3 }, T0 + 50_000).map((c) => c.change)).toEqual(['recovered']);
  });

  it('judges step and latency separately and rejects a kind without a target', () => {
    const { qos } = tracker(5);
    qos.track({ ...job, targets: { stepSeconds: 0.5, latencySeconds: 0.2 } });
    qos.report(7, { stepSeconds: 0.6, latencySeconds: 0.1 }, T0);
    expect(qos.report(7, { stepSeconds: 0.6, latencySeconds: 0.3 }, T0 + 5_000).map((c) => [c.kind, c.change])).toEqual(
      [['step', 'violation']],
    );
    expect(qos.statuses().map((s) => [s.kind, s.violating, s.missingSinceMs, s.reports])).toEqual([
      ['step', true, T0, 2],
      ['latency', false, T0 + 5_000, 2],
    ]);
    qos.track({ ...job, jobId: 9, targets: { latencySeconds: 0.2 } });
    expect(() => qos.report(9, { stepSeconds: 1 }, T0)).toThrow('job 9 declares no step target');
    expect(qos.statusesOf(9)[0]!.reports).toBe(0);
  });

  it('forgets a job whose attempt ended; tracking again starts fresh; jobs without targets are not tracked', () => {
    const { qos } = tracker(1);
    qos.track(job);
    qos.report(7, { stepSeconds: 0.9 }, T0);
    qos.report(7, { stepSeconds: 0.9 }, T0 + 1_000);
    qos.forget(7);
    expect(qos.statuses()).toEqual([]);
    expect(() => qos.report(7, { stepSeconds: 0.9 }, T0 + 2_000)).toThrow('job 7 has no QoS targets being tracked');
    qos.track(job);
    expect(qos.statusesOf(7)[0]).toMatchObject({
      reports: 0,
      violations: 0,
      violating: false,
      lastObservedSeconds: null,
    });
    qos.track({ ...job, jobId: 3, targets: {} });
    expect(qos.isTracked(3)).toBe(false);
  });

  it('refuses a violation time that is not a positive number', () => {
    expect(() => new QosTracker({ nowMs: () => 0, violationSeconds: 0 })).toThrow(
      'violationSeconds must be a positive number of seconds, got 0',
    );
  });
});
