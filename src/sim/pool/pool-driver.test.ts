import { describe, expect, it } from 'vitest';
import {
  DEFAULT_AUTOSCALE_POLICY,
  DEFAULT_PREEMPTION_OPTIONS,
  PRIORITY_CLASSES,
  SeededRng,
  type AutoscalePolicy,
  type NodeTemplate,
} from '../../core/index.js';
import { replayTimeline, timelinePreemptionSettings, type TimelineOptions } from '../timeline/timeline-engine.js';
import type { TimelineJob } from '../timeline/timeline-jobs.js';
import { PoolCluster } from './pool-cluster.js';
import { AutoscaleDriver } from './pool-driver.js';

const T4: NodeTemplate = {
  name: 'T4x2',
  gpuModel: 'T4',
  gpuCount: 2,
  migCapable: false,
  hostCpuMilli: 64_000,
  hostMemoryMiB: 262_144,
  pricePerHour: 0.7,
  minCount: 0,
  maxCount: 10,
  bootSeconds: 100,
};

function jobs(...specs: { arrival: number; duration: number; milli?: number }[]): TimelineJob[] {
  return specs.map((s, id) => ({
    id,
    name: `j${id}`,
    request: {
      cpuMilli: 1000,
      hostMemoryMiB: 1024,
      gpuCount: 1,
      gpuMilli: s.milli ?? 1000,
      gpuMemoryMiB: 0,
      allowedGpuModels: [],
    },
    priority: PRIORITY_CLASSES.low,
    arrivalSeconds: s.arrival,
    durationSeconds: s.duration,
  }));
}

const OPTIONS: TimelineOptions = {
  preemption: false,
  checkpointIntervalSeconds: 1800,
  preemptionOptions: DEFAULT_PREEMPTION_OPTIONS,
};

function replay(list: TimelineJob[], policy: Partial<AutoscalePolicy> = {}) {
  const scheduling = { policy: 'default' };
  const cluster = new PoolCluster(
    { templates: [T4], rng: new SeededRng(1), scheduling },
    timelinePreemptionSettings(OPTIONS),
  );
  const driver = new AutoscaleDriver(cluster, {
    templates: [T4],
    policy: { ...DEFAULT_AUTOSCALE_POLICY, ...policy },
    intervalSeconds: 60,
    maxPendingJobs: 100,
    scheduling,
    seed: 1,
    drainable: 'all',
  });
  const outcome = replayTimeline(list, cluster, OPTIONS, driver);
  return { outcome, driver };
}

describe('AutoscaleDriver in the timeline replay', () => {
  it('adds the nodes the queue needs, which take jobs once booted, and pays them from the request', () => {
    const { outcome, driver } = replay(
      jobs({ arrival: 0, duration: 1000 }, { arrival: 0, duration: 1000 }, { arrival: 0, duration: 1000 }),
    );
    // Three whole GPUs: two nodes of two GPUs, asked for at 0, up at 100.
    expect(outcome.outcomes.map((o) => [o.firstStartSeconds, o.waitSeconds])).toEqual([
      [100, 100],
      [100, 100],
      [100, 100],
    ]);
    expect(outcome.makespanSeconds).toBe(1100);
    const totals = driver.ledger.totals(1100);
    expect(totals.gpuHours).toBeCloseTo((4 * 1100) / 3600, 10);
    expect(totals.cost).toBeCloseTo((2 * 0.7 * 1100) / 3600, 10);
    expect(driver.queueLength.intervalMeans(0, 1100, 11)[0]).toBe(3);
    expect(driver.queueLength.valueAt(100)).toBe(0);
    expect(driver.reservedMilli.integralTo(1100)).toBe(3 * 1000 * 1000);
    expect(driver.calls).toMatchObject({ nodesAdded: 2, nodesRemoved: 0, jobsDrained: 0 });
  });

  it('removes a node idle for the scale-down delay, and waits for the wait-time target before adding', () => {
    const { outcome, driver } = replay(
      jobs(
        { arrival: 0, duration: 200 },
        { arrival: 0, duration: 5000 },
        { arrival: 0, duration: 200 },
        { arrival: 1000, duration: 100, milli: 500 },
      ),
      { scaleDownDelaySeconds: 300, scaleUpWaitSeconds: 30 },
    );
    // Jobs of t=0 have waited 30 s at the turn of t=60: two nodes are asked for then, up at 160.
    expect(outcome.outcomes.slice(0, 3).map((o) => o.firstStartSeconds)).toEqual([160, 160, 160]);
    // The node left empty at 360 goes at the first turn 300 s later; the share of t=1000 lands on the other.
    expect(driver.calls.nodesRemoved).toBe(1);
    expect(outcome.outcomes[3]!.waitSeconds).toBe(0);
    const totals = driver.ledger.totals(outcome.makespanSeconds);
    expect(totals.nodes).toBe(2);
    expect(totals.peakGpus).toBe(4);
  });
});
