import { describe, it, expect } from 'vitest';
import { allocate, FIT_REFUSALS, gpuRefusal, hostRefusal, release } from './allocation.js';
import type { Status } from '../model/status.js';
import { InvariantViolation } from '../model/errors.js';
import { NodeState, type NodeSpec } from './node-state.js';
import type { ResourceDemand } from './resource-demand.js';
import { aCpuPod, aNode, aPod } from '../testing/builders.js';

/** A copy of everything `allocate`/`release` may change. */
function snapshot(node: NodeState) {
  return {
    freeCpuMilli: node.freeCpuMilli,
    freeHostMemoryMiB: node.freeHostMemoryMiB,
    gpuFreeMilli: Array.from(node.gpuFreeMilli),
    gpuFreeMemoryMiB: Array.from(node.gpuFreeMemoryMiB),
    podCount: node.podCount,
  };
}

const stateOf = (spec: NodeSpec): NodeState => new NodeState(0, spec);

/** The two filters' tests in the cycle's order (node-resources-fit, then gpu-fit): what `allocate` checks. */
const refusal = (node: NodeState, pod: ResourceDemand): Status | null =>
  hostRefusal(node, pod) ?? gpuRefusal(node, pod);

describe('hostRefusal, then gpuRefusal', () => {
  const spec = aNode({ cpuMilli: 8000, hostMemoryMiB: 16384, gpuCount: 2, gpuModel: 'V100M32', gpuMemoryMiB: 32768 });

  it.each<[string, NodeSpec, ResourceDemand, Status | null]>([
    ['fits', spec, aPod({ cpuMilli: 8000, hostMemoryMiB: 16384, gpuCount: 2 }), null],
    ['CPU-only pod on a GPU-less node', aNode({ gpuCount: 0 }), aCpuPod(), null],
    ['allowed model listed', spec, aPod({ allowedGpuModels: ['T4', 'V100M32'] }), null],
    ['GPU memory that fits', spec, aPod({ gpuMilli: 500, gpuMemoryMiB: 32768 }), null],
    ['too much CPU', spec, aPod({ cpuMilli: 8001 }), FIT_REFUSALS.insufficientCpu],
    ['too much host memory', spec, aPod({ hostMemoryMiB: 16385 }), FIT_REFUSALS.insufficientHostMemory],
    [
      'CPU checked before host memory',
      spec,
      aPod({ cpuMilli: 9000, hostMemoryMiB: 20000 }),
      FIT_REFUSALS.insufficientCpu,
    ],
    ['GPU pod on a GPU-less node', aNode({ gpuCount: 0 }), aPod(), FIT_REFUSALS.noGpu],
    ['model not allowed', spec, aPod({ allowedGpuModels: ['T4'] }), FIT_REFUSALS.gpuModelNotAllowed],
    ['more GPUs than the node has', spec, aPod({ gpuCount: 4 }), FIT_REFUSALS.insufficientGpu],
    [
      'more GPU memory than one GPU has',
      spec,
      aPod({ gpuMilli: 100, gpuMemoryMiB: 32769 }),
      FIT_REFUSALS.insufficientGpu,
    ],
    [
      'GPU memory on a model of unknown memory',
      aNode({ gpuModel: 'G2', gpuMemoryMiB: null }),
      aPod({ gpuMilli: 100, gpuMemoryMiB: 1 }),
      FIT_REFUSALS.insufficientGpu,
    ],
  ])('%s', (_label, nodeSpec, pod, expected) => {
    expect(refusal(stateOf(nodeSpec), pod)).toBe(expected);
  });

  it('counts only GPUs with enough free milli, each at most once', () => {
    const node = stateOf(spec);
    allocate(node, aPod({ cpuMilli: 0, hostMemoryMiB: 0, gpuMilli: 600 }), [0]);
    expect(refusal(node, aPod({ gpuMilli: 400, gpuCount: 2 }))).toBeNull();
    expect(refusal(node, aPod({ gpuMilli: 401, gpuCount: 2 }))).toBe(FIT_REFUSALS.insufficientGpu);
    // Two slices of 200 would fit on GPU 0 alone, but a multi-GPU request needs distinct GPUs.
    allocate(node, aPod({ cpuMilli: 0, hostMemoryMiB: 0, gpuMilli: 1000 }), [1]);
    expect(refusal(node, aPod({ gpuMilli: 200, gpuCount: 2 }))).toBe(FIT_REFUSALS.insufficientGpu);
  });
});

describe('allocate / release', () => {
  it('round trip restores the exact state and bumps the version each time', () => {
    const node = stateOf(aNode({ cpuMilli: 16000, hostMemoryMiB: 65536, gpuCount: 4 }));
    allocate(node, aPod({ cpuMilli: 2000, gpuMilli: 250, gpuMemoryMiB: 1000 }), [2]);
    const before = snapshot(node);
    const v0 = node.version;
    const pod = aPod({ cpuMilli: 3000, hostMemoryMiB: 4096, gpuCount: 2, gpuMilli: 700, gpuMemoryMiB: 8192 });

    allocate(node, pod, [3, 0]);
    expect(node.version).toBe(v0 + 1);
    expect(snapshot(node)).toEqual({
      freeCpuMilli: 16000 - 2000 - 3000,
      freeHostMemoryMiB: 65536 - 1024 - 4096,
      gpuFreeMilli: [300, 1000, 750, 300],
      gpuFreeMemoryMiB: [32768 - 8192, 32768, 32768 - 1000, 32768 - 8192],
      podCount: 2,
    });

    release(node, pod, [3, 0]);
    expect(node.version).toBe(v0 + 2);
    expect(snapshot(node)).toEqual(before);
  });

  it('leaves untracked GPU memory (-1) alone for requests without GPU memory', () => {
    const node = stateOf(aNode({ gpuModel: 'G2', gpuMemoryMiB: null }));
    const pod = aPod({ gpuMilli: 500 });
    allocate(node, pod, [1]);
    expect(Array.from(node.gpuFreeMemoryMiB)).toEqual([-1, -1]);
    release(node, pod, [1]);
    expect(snapshot(node)).toEqual(snapshot(stateOf(node.spec)));
  });

  it('a CPU-only pod takes an empty GPU list', () => {
    const node = stateOf(aNode());
    allocate(node, aCpuPod(4000), []);
    expect(node.freeCpuMilli).toBe(60000);
    expect(Array.from(node.gpuFreeMilli)).toEqual([1000, 1000]);
  });

  describe('allocate throws InvariantViolation and changes nothing on', () => {
    const cases: [string, ResourceDemand, number[]][] = [
      ['CPU over-commit', aPod({ cpuMilli: 7001 }), [0]],
      ['host-memory over-commit', aPod({ hostMemoryMiB: 15361 }), [0]],
      ['GPU-milli over-commit of the chosen GPU', aPod({ gpuMilli: 600 }), [0]],
      ['GPU-memory over-commit of the chosen GPU', aPod({ gpuMilli: 100, gpuMemoryMiB: 30000 }), [0]],
      ['a GPU listed twice', aPod({ gpuCount: 2, gpuMilli: 100 }), [1, 1]],
      ['too many GPUs for gpuCount', aPod({ gpuCount: 1, gpuMilli: 100 }), [0, 1]],
      ['too few GPUs for gpuCount', aPod({ gpuCount: 2, gpuMilli: 100 }), [1]],
      ['no GPUs for a GPU pod', aPod({ gpuMilli: 100 }), []],
      ['a GPU for a CPU-only pod', aCpuPod(), [1]],
      ['a GPU index out of range', aPod({ gpuMilli: 100 }), [2]],
      ['a non-integer GPU index', aPod({ gpuMilli: 100 }), [0.5]],
    ];
    it.each(cases)('%s', (_label, pod, gpus) => {
      const node = stateOf(aNode({ cpuMilli: 8000, hostMemoryMiB: 16384 }));
      // GPU 0: 500 milli and 4096 MiB left; GPU 1: untouched. The whole node: 7000 CPU and 15360 MiB left.
      allocate(node, aPod({ cpuMilli: 1000, hostMemoryMiB: 1024, gpuMilli: 500, gpuMemoryMiB: 32768 - 4096 }), [0]);
      const before = snapshot(node);
      const version = node.version;
      expect(() => allocate(node, pod, gpus)).toThrow(InvariantViolation);
      expect(snapshot(node)).toEqual(before);
      expect(node.version).toBe(version);
    });
  });

  describe('release throws InvariantViolation past capacity', () => {
    it('on a node with nothing allocated', () => {
      const node = stateOf(aNode());
      expect(() => release(node, aPod(), [0])).toThrow(InvariantViolation);
      expect(() => release(node, aCpuPod(), [])).toThrow(InvariantViolation);
    });

    it('on a double release', () => {
      const node = stateOf(aNode());
      const pod = aPod({ gpuMilli: 300 });
      allocate(node, pod, [0]);
      release(node, pod, [0]);
      expect(() => release(node, pod, [0])).toThrow(InvariantViolation);
      expect(snapshot(node)).toEqual(snapshot(stateOf(node.spec)));
    });

    it('when a GPU would exceed 1000 milli', () => {
      const node = stateOf(aNode());
      const pod = aPod({ gpuMilli: 500 });
      allocate(node, pod, [0]);
      const before = snapshot(node);
      // CPU and memory would still be within capacity; GPU 1 was never used.
      expect(() => release(node, pod, [1])).toThrow(InvariantViolation);
      expect(snapshot(node)).toEqual(before);
    });

    it('when CPU or host memory would exceed capacity', () => {
      const node = stateOf(aNode());
      allocate(node, aPod({ cpuMilli: 1000, hostMemoryMiB: 1024 }), [0]);
      expect(() => release(node, aPod({ cpuMilli: 1001, hostMemoryMiB: 1024 }), [0])).toThrow(InvariantViolation);
      expect(() => release(node, aPod({ cpuMilli: 1000, hostMemoryMiB: 1025 }), [0])).toThrow(InvariantViolation);
    });

    it('on a malformed GPU list', () => {
      const node = stateOf(aNode());
      const pod = aPod({ gpuCount: 2 });
      allocate(node, pod, [0, 1]);
      expect(() => release(node, pod, [0, 0])).toThrow(InvariantViolation);
      expect(() => release(node, pod, [0])).toThrow(InvariantViolation);
    });
  });
});
