import { describe, it, expect } from 'vitest';
import fc from 'fast-check';
import { Scheduler } from './scheduler.js';
import { gpuRefusal, hostRefusal } from './allocation.js';
import { GPU_MILLI_PER_GPU } from '../model/quantity.js';
import type { NodeSpec } from './node-state.js';
import type { ResourceDemand } from './resource-demand.js';
import { buildTargetWorkload } from '../fragmentation/target-workload.js';
import { POLICIES } from '../policies/registry.js';
import { randomPermutation, SeededRng, shuffleInPlace } from '../random/rng.js';
import { aCluster } from '../testing/builders.js';

/** Models with unknown (G2), 16 GiB (T4) and 32 GiB (V100M32) GPU memory. */
const MODELS: readonly { name: string; memory: number | null }[] = [
  { name: 'G2', memory: null },
  { name: 'T4', memory: 16384 },
  { name: 'V100M32', memory: 32768 },
];

const nodeArb: fc.Arbitrary<NodeSpec> = fc
  .record({
    gpuCount: fc.constantFrom(0, 1, 2, 4, 8),
    cpuMilli: fc.integer({ min: 1000, max: 64000 }),
    hostMemoryMiB: fc.integer({ min: 1024, max: 262144 }),
    model: fc.constantFrom(...MODELS),
  })
  .map(({ gpuCount, cpuMilli, hostMemoryMiB, model }) => ({
    name: '',
    cpuMilli,
    hostMemoryMiB,
    gpuCount,
    gpuModel: gpuCount === 0 ? null : model.name,
    gpuMemoryMiB: gpuCount === 0 ? null : model.memory,
  }));

const allowedArb = fc.oneof(
  { arbitrary: fc.constant<string[]>([]), weight: 3 },
  {
    arbitrary: fc.subarray(
      MODELS.map((m) => m.name),
      { minLength: 1 },
    ),
    weight: 1,
  },
);
const gpuMemoryArb = fc.oneof(
  { arbitrary: fc.constant(0), weight: 3 },
  { arbitrary: fc.integer({ min: 1, max: 20000 }), weight: 1 },
);
const cpuArb = fc.oneof(fc.integer({ min: 0, max: 8000 }), fc.integer({ min: 0, max: 32000 }));
const hostMemoryArb = fc.oneof(fc.integer({ min: 0, max: 16384 }), fc.integer({ min: 0, max: 131072 }));

const podArb: fc.Arbitrary<ResourceDemand> = fc.oneof(
  fc
    .record({ cpuMilli: cpuArb, hostMemoryMiB: hostMemoryArb })
    .map((p) => ({ ...p, gpuCount: 0, gpuMilli: 0, gpuMemoryMiB: 0, allowedGpuModels: [] })),
  fc
    .record({
      cpuMilli: cpuArb,
      hostMemoryMiB: hostMemoryArb,
      gpuMilli: fc.integer({ min: 1, max: 999 }),
      gpuMemoryMiB: gpuMemoryArb,
      allowedGpuModels: allowedArb,
    })
    .map((p) => ({ ...p, gpuCount: 1 })),
  fc
    .record({
      cpuMilli: cpuArb,
      hostMemoryMiB: hostMemoryArb,
      gpuCount: fc.constantFrom(1, 2, 4, 8),
      gpuMemoryMiB: gpuMemoryArb,
      allowedGpuModels: allowedArb,
    })
    .map((p) => ({ ...p, gpuMilli: GPU_MILLI_PER_GPU })),
);

const scenarioArb = fc.record({
  specs: fc
    .array(nodeArb, { minLength: 1, maxLength: 6 })
    .map((specs) => specs.map((s, i) => ({ ...s, name: `n${i}` }))),
  pods: fc.array(podArb, { maxLength: 60, size: 'max' }),
  rankSeed: fc.integer(),
  rngSeed: fc.integer(),
  releaseSeed: fc.integer(),
});

interface Placement {
  readonly pod: ResourceDemand;
  readonly nodeIndex: number;
  readonly gpuIndices: readonly number[];
}

/** Fails the property with `message` unless `condition` holds (cheaper than `expect` in the hot loop). */
function check(condition: boolean, message: () => string): void {
  if (!condition) throw new Error(message());
}

describe.each(POLICIES.map((p) => [p.name, p] as const))('scheduler invariants: %s', (_name, policy) => {
  it('never over-commits, places only where the pod fits, and release restores full capacity', () => {
    fc.assert(
      fc.property(scenarioArb, ({ specs, pods, rankSeed, rngSeed, releaseSeed }) => {
        const cluster = aCluster(specs, Array.from(randomPermutation(specs.length, new SeededRng(rankSeed))));
        const profile = policy.create({ nodeCount: specs.length, targetWorkload: buildTargetWorkload(pods) });
        const scheduler = new Scheduler(cluster, profile, new SeededRng(rngSeed));
        // Our own ledger of what each GPU carries.
        const usedMilli = specs.map((s) => new Array<number>(s.gpuCount).fill(0));
        const usedMemory = specs.map((s) => new Array<number>(s.gpuCount).fill(0));
        const placements: Placement[] = [];

        for (const [i, pod] of pods.entries()) {
          const at = (): string => `pod #${i} ${JSON.stringify(pod)}`;
          const decision = scheduler.schedule(pod);
          if (decision.kind === 'unschedulable') {
            for (const node of cluster.nodes) {
              check(
                (hostRefusal(node, pod) ?? gpuRefusal(node, pod)) !== null,
                () => `${at()}: reported unschedulable but fits node ${node.index}`,
              );
            }
            const counted = Object.values(decision.reasons).reduce((a, b) => a + (b ?? 0), 0);
            check(
              counted === cluster.nodes.length,
              () => `${at()}: reasons ${JSON.stringify(decision.reasons)} do not cover every node`,
            );
            continue;
          }
          const { nodeIndex, gpuIndices } = decision;
          const node = cluster.nodes[nodeIndex]!;
          check(
            (hostRefusal(node, pod) ?? gpuRefusal(node, pod)) === null,
            () => `${at()}: placed on node ${nodeIndex} where it does not fit`,
          );
          check(gpuIndices.length === pod.gpuCount, () => `${at()}: got GPUs ${gpuIndices.join(',')}`);
          check(
            new Set(gpuIndices).size === gpuIndices.length,
            () => `${at()}: GPUs not distinct: ${gpuIndices.join(',')}`,
          );
          for (const j of gpuIndices) {
            check(
              Number.isInteger(j) && j >= 0 && j < node.spec.gpuCount,
              () => `${at()}: no GPU ${j} on node ${nodeIndex}`,
            );
            check(
              node.gpuFreeMilli[j]! >= pod.gpuMilli,
              () => `${at()}: GPU ${j} has only ${node.gpuFreeMilli[j]} milli free`,
            );
          }
          if (pod.gpuCount > 0 && pod.allowedGpuModels.length > 0) {
            check(
              pod.allowedGpuModels.includes(node.spec.gpuModel ?? ''),
              () => `${at()}: model ${node.spec.gpuModel} not allowed`,
            );
          }

          scheduler.commit(pod, nodeIndex, gpuIndices);
          placements.push({ pod, nodeIndex, gpuIndices });
          for (const j of gpuIndices) {
            usedMilli[nodeIndex]![j]! += pod.gpuMilli;
            usedMemory[nodeIndex]![j]! += pod.gpuMemoryMiB;
          }

          for (const n of cluster.nodes) {
            check(
              n.freeCpuMilli >= 0 && n.freeHostMemoryMiB >= 0,
              () => `${at()}: node ${n.index} CPU ${n.freeCpuMilli}, host memory ${n.freeHostMemoryMiB}`,
            );
            for (let j = 0; j < n.spec.gpuCount; j++) {
              const free = n.gpuFreeMilli[j]!;
              const used = usedMilli[n.index]![j]!;
              check(free >= 0 && free <= GPU_MILLI_PER_GPU, () => `${at()}: node ${n.index} GPU ${j} free ${free}`);
              check(
                used <= GPU_MILLI_PER_GPU && free === GPU_MILLI_PER_GPU - used,
                () => `${at()}: node ${n.index} GPU ${j} carries ${used}, free ${free}`,
              );
              const freeMemory = n.gpuFreeMemoryMiB[j]!;
              const expectedMemory = n.spec.gpuMemoryMiB === null ? -1 : n.spec.gpuMemoryMiB - usedMemory[n.index]![j]!;
              check(
                freeMemory === expectedMemory && (n.spec.gpuMemoryMiB === null || freeMemory >= 0),
                () => `${at()}: node ${n.index} GPU ${j} memory ${freeMemory}, expected ${expectedMemory}`,
              );
            }
          }
        }

        shuffleInPlace(placements, new SeededRng(releaseSeed));
        for (const p of placements) scheduler.uncommit(p.pod, p.nodeIndex, p.gpuIndices);
        for (const n of cluster.nodes) {
          expect(n.freeCpuMilli).toBe(n.spec.cpuMilli);
          expect(n.freeHostMemoryMiB).toBe(n.spec.hostMemoryMiB);
          expect(Array.from(n.gpuFreeMilli)).toEqual(new Array<number>(n.spec.gpuCount).fill(GPU_MILLI_PER_GPU));
          expect(Array.from(n.gpuFreeMemoryMiB)).toEqual(
            new Array<number>(n.spec.gpuCount).fill(n.spec.gpuMemoryMiB ?? -1),
          );
          expect(n.podCount).toBe(0);
          expect(n.version).toBe(2 * placements.filter((p) => p.nodeIndex === n.index).length);
        }
      }),
      { numRuns: 100 },
    );
  });
});
