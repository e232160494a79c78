/**
 * The capacity check against placement itself: a node it calls too small refuses the job when it is
 * empty and healthy (`ClusterQuery.bind`, another path than the ranking the check uses), a node it
 * lets through takes it; a request it calls unresolvable is placed on no empty node, one it lets
 * through on some empty node.
 */
import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import type { ClusterNode } from '../model/cluster.js';
import type { GpuDevice, MigInstance } from '../model/gpu-device.js';
import type { IsolationLevel, JobRequest, SharingMode } from '../model/request.js';
import { CapacityCheck } from './capacity-check.js';
import { ClusterQuery } from './cluster-query.js';

const SHARED_MODELS: Record<string, number> = { A10: 24_576, T4: 16_384, 'A100-80GB': 81_920, 'H100-80GB': 81_559 };
const one = (profileId: number, profileName: string, size: number, computeSlices: number, start: number) => ({
  profileId,
  profileName,
  start,
  size,
  computeSlices,
});
/** Valid A100-80GB layouts (mig-profiles.ts): none, seven 1g.10gb, two 3g.40gb, one 7g.80gb. */
const MIG_LAYOUTS: readonly (readonly MigInstance[])[] = [
  [],
  [0, 1, 2, 3, 4, 5, 6].map((start) => one(19, '1g.10gb', 1, 1, start)),
  [one(9, '3g.40gb', 4, 3, 0), one(9, '3g.40gb', 4, 3, 4)],
  [one(0, '7g.80gb', 8, 7, 0)],
];

const gpuArb = fc.oneof(
  {
    arbitrary: fc.record({ model: fc.constantFrom(...Object.keys(SHARED_MODELS)), layout: fc.constant(-1) }),
    weight: 3,
  },
  {
    arbitrary: fc.record({ model: fc.constant('A100-80GB'), layout: fc.nat({ max: MIG_LAYOUTS.length - 1 }) }),
    weight: 1,
  },
);

const nodesArb: fc.Arbitrary<ClusterNode[]> = fc
  .array(fc.record({ gpus: fc.array(gpuArb, { minLength: 1, maxLength: 4 }), schedulable: fc.boolean() }), {
    minLength: 1,
    maxLength: 3,
  })
  .map((nodes) =>
    nodes.map(({ gpus, schedulable }, n) => ({
      name: `node-${n}`,
      hostCpuMilli: 2 ** 40,
      hostMemoryMiB: 2 ** 40,
      gpus: gpus.map(({ model, layout }, index): GpuDevice => {
        const mig = layout >= 0;
        return {
          index,
          uuid: `GPU-${n}-${index}`,
          model,
          gpuMemoryMiB: SHARED_MODELS[model]!,
          migEnabled: mig,
          schedulable: schedulable || index > 0,
          ...(mig ? { migInstances: MIG_LAYOUTS[layout]! } : {}),
        };
      }),
    })),
  );

const jobArb: fc.Arbitrary<JobRequest> = fc
  .record({
    gpuCount: fc.integer({ min: 1, max: 5 }),
    gpuMilli: fc.constantFrom(100, 250, 500, 1000),
    gpuMemoryMiB: fc.oneof(fc.constant(null), fc.integer({ min: 1, max: 100_000 })),
    mode: fc.constantFrom<SharingMode>('auto', 'exclusive', 'mps', 'timeslice', 'mig'),
    isolation: fc.constantFrom<IsolationLevel>('strict', 'standard', 'none'),
  })
  .map((gpu) => ({
    id: 1,
    tenant: 'team',
    priority: 0,
    submittedAtMs: 0,
    cpuMilli: 0,
    hostMemoryMiB: 0,
    gpu,
  }));

/**
 * Whether `node`, empty and healthy, takes `job` by a bind. With reuse only, a bind that would
 * create a MIG instance means no existing one covers the job (an empty node reuses first): the job
 * may then only go to the node's GPUs outside MIG mode (strict isolation's fallback).
 */
function emptyNodeTakes(node: ClusterNode, job: JobRequest, migReuseOnly: boolean): boolean {
  const healthy = { ...node, gpus: node.gpus.map((g) => ({ ...g, schedulable: true })) };
  const bind = (n: ClusterNode) =>
    new ClusterQuery({ nodes: [n], active: [] }, { policy: 'default', learnWorkloadOnline: false, migReuseOnly }).bind(
      job,
      n.name,
    );
  const outcome = bind(healthy);
  if ('refusal' in outcome) return false;
  if (!migReuseOnly) return true;
  const reuses = outcome.placement.gpus.every(
    (g) =>
      (g.migChanges?.create.length ?? 0) === 0 &&
      (g.mig === null ||
        (healthy.gpus.find((d) => d.index === g.index)?.migInstances ?? []).some((m) => m.start === g.mig!.start)),
  );
  if (reuses) return true;
  const withoutMig = { ...healthy, gpus: healthy.gpus.filter((g) => !g.migEnabled) };
  return withoutMig.gpus.length > 0 && !('refusal' in bind(withoutMig));
}

describe('CapacityCheck against placement on empty nodes', () => {
  it('a node it calls too small refuses the job empty, one it lets through takes it; the verdict follows', () => {
    const seen = { resolvable: 0, unresolvable: 0 };
    fc.assert(
      fc.property(nodesArb, jobArb, fc.boolean(), (nodes, job, migReuseOnly) => {
        const check = new CapacityCheck(nodes, { policy: 'default', migReuseOnly });
        const refusals = check.emptyRefusals(
          job,
          nodes.map((n) => n.name),
        );
        const takes = nodes.map((n) => emptyNodeTakes(n, job, migReuseOnly));
        expect(nodes.map((n) => refusals.get(n.name) === null)).toEqual(takes);
        const verdict = check.verdict(job);
        expect(verdict === null).toBe(takes.some((t) => t));
        seen[verdict === null ? 'resolvable' : 'unresolvable']++;
        if (verdict !== null) {
          expect(verdict.code).toBe('fits-no-node');
          expect(verdict.lasting).toBe(true);
          expect(nodes.map((n) => n.name)).toContain((verdict.details.largestNode as { node: string }).node);
        }
      }),
      { numRuns: 300 },
    );
    // Both answers are drawn often (fast-check shrinks none away): the property is not vacuous.
    expect(Math.min(seen.resolvable, seen.unresolvable)).toBeGreaterThan(30);
  });
});
