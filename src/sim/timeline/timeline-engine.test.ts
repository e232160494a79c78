import { describe, expect, it } from 'vitest';
import { PRIORITY_CLASSES, SeededRng, type ClusterNode } from '../../core/index.js';
import { runTimeline, type JobOutcome, type TimelineOptions } from './timeline-engine.js';
import type { TimelineJob } from './timeline-jobs.js';

const { critical, high, normal, low } = PRIORITY_CLASSES;

/** A node with `gpus` T4 GPUs and plenty of CPU and memory. */
function node(name: string, gpus: number): ClusterNode {
  return {
    name,
    hostCpuMilli: 64_000,
    hostMemoryMiB: 262_144,
    gpus: Array.from({ length: gpus }, (_, index) => ({
      index,
      uuid: `GPU-${name}-${index}`,
      model: 'T4',
      gpuMemoryMiB: 15_360,
      migEnabled: false,
      schedulable: true,
    })),
  };
}

interface JobSpec {
  arrival: number;
  duration: number;
  priority: number;
  gpus?: number;
  milli?: number;
  cpu?: number;
}

/** Jobs with ids in the order given (which must be arrival order). */
function jobs(...specs: JobSpec[]): TimelineJob[] {
  return specs.map((s, id) => ({
    id,
    name: `job-${id}`,
    request: {
      cpuMilli: s.cpu ?? 1000,
      hostMemoryMiB: 1024,
      gpuCount: s.gpus ?? 1,
      gpuMilli: (s.gpus ?? 1) === 0 ? 0 : (s.milli ?? 1000),
      gpuMemoryMiB: 0,
      allowedGpuModels: [],
    },
    priority: s.priority,
    arrivalSeconds: s.arrival,
    durationSeconds: s.duration,
  }));
}

function replay(nodes: readonly ClusterNode[], list: readonly TimelineJob[], overrides: Partial<TimelineOptions> = {}) {
  const scheduling = { policy: 'best-fit', nodeRank: Int32Array.from(nodes, (_, i) => i) };
  return runTimeline(
    list,
    { nodes, rng: new SeededRng(1), scheduling },
    {
      preemption: true,
      checkpointIntervalSeconds: 1800,
      preemptionOptions: { minRunSeconds: 0, maxPreemptionsPerJob: 5 },
      ...overrides,
    },
  );
}

/** The fields a test checks, per job id. */
function summary(o: JobOutcome) {
  return {
    start: o.firstStartSeconds,
    end: o.endSeconds,
    wait: o.waitSeconds,
    jct: o.endSeconds - o.job.arrivalSeconds,
    preemptions: o.preemptions,
    lost: o.lostWorkGpuSeconds,
  };
}

describe('runTimeline on one node with one GPU', () => {
  const lowThenCritical = (criticalArrival: number) =>
    jobs(
      { arrival: 0, duration: 3600, priority: low },
      { arrival: criticalArrival, duration: 500, priority: critical },
    );

  it('without preemption the critical job waits until the low job ends', () => {
    const out = replay([node('n0', 1)], lowThenCritical(1000), { preemption: false }).outcomes.map(summary);
    expect(out[0]).toEqual({ start: 0, end: 3600, wait: 0, jct: 3600, preemptions: 0, lost: 0 });
    expect(out[1]).toEqual({ start: 3600, end: 4100, wait: 2600, jct: 3100, preemptions: 0, lost: 0 });
  });

  it('with preemption the critical job waits 0 and the low job pays the lost work (no checkpoint yet)', () => {
    const out = replay([node('n0', 1)], lowThenCritical(1000)).outcomes.map(summary);
    expect(out[1]).toEqual({ start: 1000, end: 1500, wait: 0, jct: 500, preemptions: 0, lost: 0 });
    // 1000 s run and lost, restarts from scratch at 1500: JCT = 3600 + 500 (critical's run) + 1000 (lost).
    expect(out[0]).toEqual({ start: 0, end: 5100, wait: 500, jct: 5100, preemptions: 1, lost: 1000 });
  });

  it('resumes a preempted job from its last checkpoint', () => {
    const out = replay([node('n0', 1)], lowThenCritical(2000)).outcomes.map(summary);
    expect(out[1]).toEqual({ start: 2000, end: 2500, wait: 0, jct: 500, preemptions: 0, lost: 0 });
    // Checkpoint at 1800 s: 200 s lost, 1800 s left after the restart at 2500.
    expect(out[0]).toEqual({ start: 0, end: 4300, wait: 500, jct: 4300, preemptions: 1, lost: 200 });
  });

  it('counts lost work in GPU-equivalents', () => {
    const list = jobs(
      { arrival: 0, duration: 3600, priority: low, milli: 600 },
      { arrival: 1000, duration: 500, priority: critical, milli: 600 },
    );
    const out = replay([node('n0', 1)], list, { checkpointIntervalSeconds: 300 }).outcomes.map(summary);
    // 1000 s run, checkpoint at 900: 100 s × 0.6 GPU lost; 2700 s left after the restart at 1500.
    expect(out[0]).toEqual({ start: 0, end: 4200, wait: 500, jct: 4200, preemptions: 1, lost: 60 });
  });

  it('never preempts jobs of high priority or above, nor jobs of equal priority', () => {
    for (const victim of [high, critical]) {
      const list = jobs(
        { arrival: 0, duration: 100, priority: victim },
        { arrival: 10, duration: 10, priority: critical },
      );
      expect(replay([node('n0', 1)], list).outcomes.map(summary)[1]).toMatchObject({ start: 100, wait: 90 });
    }
    const equal = jobs({ arrival: 0, duration: 100, priority: low }, { arrival: 10, duration: 10, priority: low });
    expect(replay([node('n0', 1)], equal).outcomes.map(summary)[1]).toMatchObject({ start: 100, wait: 90 });
  });

  it('respects maxPreemptionsPerJob', () => {
    const out = replay([node('n0', 1)], lowThenCritical(1000), {
      preemptionOptions: { minRunSeconds: 0, maxPreemptionsPerJob: 0 },
    });
    expect(out.outcomes.map(summary)[1]).toMatchObject({ start: 3600, wait: 2600 });
  });

  it('respects minRunSeconds', () => {
    const out = replay([node('n0', 1)], lowThenCritical(1000), {
      preemptionOptions: { minRunSeconds: 1200, maxPreemptionsPerJob: 5 },
    });
    expect(out.outcomes.map(summary)[1]).toMatchObject({ start: 3600, wait: 2600 });
  });
});

describe('runTimeline queue', () => {
  it('starts waiting jobs by priority, then arrival', () => {
    const list = jobs(
      { arrival: 0, duration: 100, priority: critical },
      { arrival: 10, duration: 10, priority: low },
      { arrival: 20, duration: 10, priority: normal },
      { arrival: 30, duration: 10, priority: critical },
      { arrival: 40, duration: 10, priority: normal },
    );
    const out = replay([node('n0', 1)], list, { preemption: false }).outcomes.map((o) => o.firstStartSeconds);
    expect(out).toEqual([0, 130, 110, 100, 120]);
  });

  it('ages waiting jobs: after 30 minutes a low job ranks with normal ones and goes by arrival', () => {
    const list = jobs(
      { arrival: 0, duration: 4000, priority: critical },
      { arrival: 10, duration: 10, priority: low },
      { arrival: 3000, duration: 10, priority: normal },
    );
    expect(replay([node('n0', 1)], list).outcomes.map((o) => o.firstStartSeconds)).toEqual([0, 4000, 4010]);
  });

  it('tries every queued job, not only the head, and the head preempts once its node frees up', () => {
    const list = jobs(
      { arrival: 0, duration: 100, priority: critical }, // holds one of the two GPUs until 100
      { arrival: 1, duration: 50, priority: critical, gpus: 2 }, // needs both: waits
      { arrival: 2, duration: 1000, priority: low }, // fits beside job 0: starts at once
    );
    const off = replay([node('n0', 2)], list, { preemption: false }).outcomes.map(summary);
    expect(off[2]).toMatchObject({ start: 2, end: 1002 });
    expect(off[1]).toMatchObject({ start: 1002, wait: 1001 });
    const on = replay([node('n0', 2)], list).outcomes.map(summary);
    expect(on[1]).toEqual({ start: 100, end: 150, wait: 99, jct: 149, preemptions: 0, lost: 0 });
    expect(on[2]).toEqual({ start: 2, end: 1150, wait: 50, jct: 1148, preemptions: 1, lost: 98 });
  });

  it('only retries the new arrivals when nothing was freed', () => {
    const list = jobs(
      { arrival: 0, duration: 1000, priority: critical },
      { arrival: 1, duration: 10, priority: critical },
      { arrival: 2, duration: 10, priority: critical },
      { arrival: 3, duration: 10, priority: critical },
    );
    const out = replay([node('n0', 1)], list);
    // Arrivals at 0..3 are arrival-only passes; each completion (1000, 1010, 1020, 1030) runs a full pass.
    expect(out.passes).toEqual({ full: 4, arrivalsOnly: 4 });
    expect(out.outcomes.map((o) => o.firstStartSeconds)).toEqual([0, 1000, 1010, 1020]);
  });

  it('leaves out jobs that fit no node even when it is empty, and runs zero-length jobs', () => {
    const list = jobs(
      { arrival: 0, duration: 10, priority: normal, gpus: 2 },
      { arrival: 5, duration: 0, priority: normal },
      { arrival: 5, duration: 10, priority: normal, gpus: 0 },
    );
    const out = replay([node('n0', 1)], list);
    expect(out.unplaceable.map((j) => j.id)).toEqual([0]);
    expect(out.outcomes.map(summary)).toEqual([
      { start: 5, end: 5, wait: 0, jct: 0, preemptions: 0, lost: 0 },
      { start: 5, end: 15, wait: 0, jct: 10, preemptions: 0, lost: 0 },
    ]);
    expect(out.makespanSeconds).toBe(15);
  });
});

describe('runTimeline preemption across nodes', () => {
  it('takes all victims from one node, preferring the fewest victims', () => {
    const list = jobs(
      { arrival: 0, duration: 5000, priority: low, milli: 500 }, // n0 (best fit packs the two halves)
      { arrival: 0, duration: 5000, priority: low, milli: 500 }, // n0
      { arrival: 0, duration: 5000, priority: low }, // n1
      { arrival: 100, duration: 10, priority: critical },
    );
    const out = replay([node('n0', 1), node('n1', 1)], list).outcomes;
    expect(out.map((o) => o.preemptions)).toEqual([0, 0, 1, 0]);
    expect(out[3]!.waitSeconds).toBe(0);
  });

  it('prefers the node with the least lost work among plans with as many victims', () => {
    const list = jobs(
      { arrival: 0, duration: 5000, priority: low }, // n0, will have run 1000 s
      { arrival: 900, duration: 5000, priority: low }, // n1, will have run 100 s
      { arrival: 1000, duration: 10, priority: critical },
    );
    const out = replay([node('n0', 1), node('n1', 1)], list).outcomes.map(summary);
    expect(out[1]).toMatchObject({ preemptions: 1, lost: 100 });
    expect(out[0]).toMatchObject({ preemptions: 0, end: 5000 });
  });

  it('prefers lower-priority victims on a node when they lose as much work', () => {
    const list = jobs(
      { arrival: 0, duration: 5000, priority: normal, milli: 500 },
      { arrival: 0, duration: 5000, priority: low, milli: 500 },
      { arrival: 100, duration: 10, priority: critical, milli: 500 },
    );
    const out = replay([node('n0', 1)], list).outcomes;
    expect(out.map((o) => o.preemptions)).toEqual([0, 1, 0]);
  });

  it('makes a job placed at the instant of a failed search a victim later, when an equal job asks again', () => {
    const list = jobs(
      { arrival: 0, duration: 4000, priority: critical }, // holds the GPU until 4000
      { arrival: 10, duration: 1000, priority: low }, // aged to normal by 4000: starts then, ahead of job 2
      { arrival: 3000, duration: 10, priority: normal }, // at 4000 may not evict job 1, placed at that instant
      { arrival: 4100, duration: 10, priority: normal }, // equal to job 2: by now job 1 is a victim
    );
    const out = replay([node('n0', 1)], list).outcomes.map(summary);
    expect(out[3]).toEqual({ start: 4100, end: 4110, wait: 0, jct: 10, preemptions: 0, lost: 0 });
    // Job 1 restarts at 4110 (aged, ahead of job 2) with its 1000 s: no checkpoint in its first 100 s.
    expect(out[1]).toEqual({ start: 4000, end: 5110, wait: 4000, jct: 5100, preemptions: 1, lost: 100 });
    expect(out[2]).toEqual({ start: 5110, end: 5120, wait: 2110, jct: 2120, preemptions: 0, lost: 0 });
  });

  it('lets a CPU-only job preempt for host CPU (no GPU-equivalents lost)', () => {
    const list = jobs(
      { arrival: 0, duration: 5000, priority: low, gpus: 0, cpu: 60_000 },
      { arrival: 100, duration: 10, priority: critical, gpus: 0, cpu: 8000 },
    );
    const out = replay([node('n0', 1)], list).outcomes.map(summary);
    expect(out[1]).toEqual({ start: 100, end: 110, wait: 0, jct: 10, preemptions: 0, lost: 0 });
    expect(out[0]).toEqual({ start: 0, end: 5110, wait: 10, jct: 5110, preemptions: 1, lost: 0 });
  });

  it('keeps JCT = wait + duration + lost run time for every job of a busy replay', () => {
    const specs: JobSpec[] = [];
    const rng = new SeededRng(7);
    const priorities = [critical, high, normal, low];
    for (let i = 0; i < 300; i++) {
      specs.push({
        arrival: i * 20,
        duration: 100 + rng.intn(3000),
        priority: priorities[rng.intn(4)]!,
        gpus: 1 + rng.intn(2),
        milli: rng.intn(2) === 0 ? 1000 : 250 * (1 + rng.intn(3)),
      });
    }
    const out = replay([node('n0', 2), node('n1', 4)], jobs(...specs), { checkpointIntervalSeconds: 600 });
    expect(out.outcomes).toHaveLength(300);
    let preemptions = 0;
    for (const o of out.outcomes) {
      const lostSeconds = o.gpuEquivalents > 0 ? o.lostWorkGpuSeconds / o.gpuEquivalents : 0;
      expect(o.endSeconds - o.job.arrivalSeconds).toBeCloseTo(o.waitSeconds + o.job.durationSeconds + lostSeconds, 6);
      expect(o.waitSeconds).toBeGreaterThanOrEqual(0);
      if (o.job.priority >= high) expect(o.preemptions).toBe(0);
      preemptions += o.preemptions;
    }
    expect(preemptions).toBeGreaterThan(0);
  });
});
