import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { SeededRng } from '../random/rng.js';
import type { ClusterNode, ClusterSnapshot } from '../model/cluster.js';
import type { GpuDevice } from '../model/gpu-device.js';
import type { JobRequest, SharingMode } from '../model/request.js';
import { findPolicy } from '../policies/registry.js';
import { ClusterState } from './cluster-state.js';

const MODELS = [
  { model: 'A10', memory: 24_576 },
  { model: 'A100-80GB', memory: 81_920 },
] as const;

function node(name: string, gpuCount: number, modelIndex: number, unhealthy: number): ClusterNode {
  const { model, memory } = MODELS[modelIndex]!;
  const gpus: GpuDevice[] = Array.from({ length: gpuCount }, (_, index) => ({
    index,
    uuid: `GPU-${name}-${index}`,
    model,
    gpuMemoryMiB: memory,
    migEnabled: false,
    schedulable: index !== unhealthy,
  }));
  return { name, hostCpuMilli: 64_000, hostMemoryMiB: 262_144, gpus };
}

function state(nodes: readonly ClusterNode[]): ClusterState {
  const snapshot: ClusterSnapshot = { nodes, active: [] };
  const policy = findPolicy('default')!;
  return new ClusterState(snapshot, {
    profile: (n) => policy.create({ nodeCount: n, learnWorkloadOnline: false }),
    rng: new SeededRng(3),
    timesliceOvercommitRatio: 1,
  });
}

const requestArb = fc.record({
  gpuCount: fc.integer({ min: 1, max: 3 }),
  gpuMilli: fc.integer({ min: 50, max: 1000 }),
  memory: fc.option(fc.integer({ min: 1024, max: 90_000 }), { nil: null }),
  mode: fc.constantFrom<SharingMode>('auto', 'mps', 'timeslice', 'exclusive'),
  tenant: fc.constantFrom('a', 'b'),
});

describe('rankNodes', () => {
  it(
    'scores exactly the nodes where a placement restricted to that node succeeds (the same with onlyNode), ' +
      'and gives every other node a reason',
    () => {
      fc.assert(
        fc.property(
          fc.array(
            fc.record({
              gpus: fc.integer({ min: 1, max: 4 }),
              model: fc.integer({ min: 0, max: 1 }),
              unhealthy: fc.integer({ min: -1, max: 3 }),
            }),
            { minLength: 1, maxLength: 5 },
          ),
          fc.array(requestArb, { minLength: 1, maxLength: 12 }),
          (specs, requests) => {
            const nodes = specs.map((s, i) => node(`n${i}`, s.gpus, s.model, s.unhealthy));
            const s = state(nodes);
            const all = nodes.map((_, i) => i);
            requests.forEach((r, k) => {
              const job: JobRequest = {
                id: k + 1,
                tenant: r.tenant,
                priority: 500,
                submittedAtMs: k,
                cpuMilli: 0,
                hostMemoryMiB: 0,
                gpu: {
                  gpuCount: r.gpuCount,
                  gpuMilli: r.mode === 'exclusive' ? 1000 : r.gpuMilli,
                  gpuMemoryMiB: r.mode === 'exclusive' ? null : r.memory,
                  mode: r.mode,
                },
              };
              const ranking = s.rankNodes(job, all);
              for (const n of all) {
                expect(ranking.scores.has(n) !== ranking.reasons.has(n)).toBe(true);
                const mark = s.mark();
                const outcome = s.tryPlace(job, null, (nodeIndex) => nodeIndex !== n);
                s.undoTo(mark);
                expect(outcome.kind === 'placed').toBe(ranking.scores.has(n));
                // Placing on that node only gives the same placement as excluding every other node.
                const onlyMark = s.mark();
                const only = s.tryPlace(job, null, null, n);
                s.undoTo(onlyMark);
                expect(only.kind === 'placed' ? only.placement : null).toEqual(
                  outcome.kind === 'placed' ? outcome.placement : null,
                );
              }
              // Hold the job on the best node, as a bind would, so later requests see a fuller cluster.
              let best = -1;
              for (const [n, score] of ranking.scores) if (best < 0 || score > ranking.scores.get(best)!) best = n;
              if (best >= 0) expect(s.tryPlace(job, null, (nodeIndex) => nodeIndex !== best).kind).toBe('placed');
            });
          },
        ),
        { numRuns: 150 },
      );
    },
  );
});
