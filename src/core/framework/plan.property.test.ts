/**
 * A Plan is plain data: the plans of random clusters (whole GPUs, shares, MIG instances made on
 * demand, quotas, backfill, preemption, a queue the pass stops early in) survive
 * `JSON.parse(JSON.stringify(plan))` unchanged: no Map, no Set, no closure, no getter, no
 * undefined field.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { ActiveJob } from '../model/cluster.js';
import type { JobRequest } from '../model/request.js';
import { QueueIndex } from '../queue/queue-index.js';
import { SeededRng } from '../random/rng.js';
import { SchedulingSession } from '../schedule.js';
import { aClusterNode, aGpuDevice, aJob, anExclusiveJob } from '../testing/builders.js';

const jobShape = fc.record({
  tenant: fc.constantFrom('a', 'b', 'c'),
  priority: fc.constantFrom(100, 500, 900, 1000),
  mode: fc.constantFrom('exclusive', 'mps', 'timeslice', 'mig', 'auto') as fc.Arbitrary<
    'exclusive' | 'mps' | 'timeslice' | 'mig' | 'auto'
  >,
  gpuMilli: fc.constantFrom(100, 300, 500, 1000),
  gpuCount: fc.constantFrom(1, 1, 2),
  timeLimitSeconds: fc.option(fc.constantFrom(60, 7200)),
  cpuMilli: fc.constantFrom(1000, 8000, 70_000),
});

describe('Plan', () => {
  it('survives a JSON round trip unchanged', () => {
    let stoppedEarly = 0;
    let preempted = 0;
    fc.assert(
      fc.property(
        fc.array(fc.boolean(), { minLength: 1, maxLength: 3 }),
        fc.array(fc.integer({ min: 0, max: 4 }), { minLength: 1, maxLength: 3 }),
        fc.array(jobShape, { minLength: 1, maxLength: 12 }),
        fc.option(fc.constantFrom(0.5, 1, 3)),
        fc.nat(),
        (migNodes, held, shapes, limit, seed) => {
          const nodes = migNodes.map((mig, n) =>
            aClusterNode(
              `n${n}`,
              [0, 1, 2, 3].map((i) => aGpuDevice(i, { migEnabled: mig && i < 2 })),
            ),
          );
          const active: ActiveJob[] = [];
          nodes.forEach((node, n) => {
            const count = Math.min(held[n % held.length]!, 2);
            for (let i = 0; i < count; i++) {
              const index = 2 + i; // never a MIG GPU
              const request = aJob(1000 + n * 10 + i, { tenant: 'c', priority: 100 });
              active.push(anExclusiveJob(request, node.name, [index], { startedAtMs: 0 }));
            }
          });
          const pending: JobRequest[] = shapes.map((s, i) =>
            aJob(i + 1, {
              tenant: s.tenant,
              priority: s.priority,
              cpuMilli: s.cpuMilli,
              ...(s.timeLimitSeconds === null ? {} : { timeLimitSeconds: s.timeLimitSeconds }),
              gpu: {
                gpuCount: s.mode === 'mig' ? 1 : s.gpuCount,
                gpuMilli: s.gpuMilli,
                mode: s.mode,
                gpuMemoryMiB: s.mode === 'exclusive' ? null : 10_240,
              },
            }),
          );
          const index = new QueueIndex();
          for (const job of pending) index.add(job);
          const session = new SchedulingSession({ nodes, active }, new SeededRng(seed));
          const plan = session.schedule(index, {
            nowMs: 7_200_000,
            active,
            rules: {
              tenants: ['a', 'b', 'c'].map((tenant) => ({
                tenant,
                guaranteedGpuEquivalents: 0,
                limitGpuEquivalents: limit,
              })),
              preemption: seed % 2 === 0 ? { minRunSeconds: 60, maxPreemptionsPerJob: 2 } : null,
            },
          });
          if (plan.unvisited !== null) stoppedEarly++;
          if (plan.preemption !== null) preempted++;
          expect(JSON.parse(JSON.stringify(plan))).toStrictEqual(plan);
        },
      ),
      { numRuns: 300 },
    );
    // The cases that matter most happened: passes that stopped early, and preemptions.
    expect([stoppedEarly > 0, preempted > 0]).toEqual([true, true]);
  });
});
