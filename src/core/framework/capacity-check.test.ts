import { describe, expect, it } from 'vitest';
import { refusalMessage } from '../model/refusal-message.js';
import { aClusterNode, aGpuDevice, aJob } from '../testing/builders.js';
import { CapacityCheck, MAX_CAPACITY_SHAPES, nodeTooSmall } from './capacity-check.js';

const a10 = (index: number, schedulable = true) =>
  aGpuDevice(index, { model: 'A10', gpuMemoryMiB: 24_576, uuid: `GPU-a10-${index}`, schedulable });
const a100 = (index: number) => aGpuDevice(index, { uuid: `GPU-a100-${index}` });
const migA100 = (
  index: number,
  instances: { profileId: number; profileName: string; start: number; size: number; computeSlices: number }[],
) => aGpuDevice(index, { uuid: `GPU-mig-${index}`, migEnabled: true, migInstances: instances });

const twoA10Nodes = [aClusterNode('gpu-b', [a10(0), a10(1)]), aClusterNode('gpu-a', [a10(0), a10(1, false)])];
const options = { policy: 'default', migReuseOnly: true };

describe('CapacityCheck', () => {
  it('a 3-GPU request on 2-GPU nodes fits no node, and names the first of the largest', () => {
    const check = new CapacityCheck(twoA10Nodes, options);
    const verdict = check.verdict(aJob(1, { gpu: { gpuCount: 3 } }));
    expect(verdict).toEqual({
      code: 'fits-no-node',
      lasting: true,
      details: {
        nodeCount: 2,
        largestNode: {
          node: 'gpu-a',
          gpuCount: 2,
          migGpuCount: 0,
          gpuModels: ['A10'],
          largestGpuMemoryMiB: 24_576,
        },
        refusal: {
          code: 'gpu-capacity',
          lasting: false,
          details: {
            qualifyingGpus: 2,
            neededGpus: 3,
            gpuMilli: 1000,
            gpuMemoryMiB: null,
            mode: 'exclusive',
            oneTenantPerMpsGpu: false,
          },
        },
      },
    });
    expect(refusalMessage(verdict!)).toBe(
      'no node could ever hold it, even empty (2 node(s)); the largest for it, gpu-a (2 GPU(s) A10 of up to ' +
        '24576 MiB): only 2 of the 3 GPU(s) needed could hold its share (1000 milli-GPU in exclusive mode)',
    );
  });

  it('counts unhealthy GPUs and ignores what a node holds: 2 GPUs fit, as a shortage', () => {
    const check = new CapacityCheck(twoA10Nodes, options);
    expect(check.verdict(aJob(1, { gpu: { gpuCount: 2 } }))).toBeNull();
    expect(check.emptyRefusals(aJob(1, { gpu: { gpuCount: 2 } }), ['gpu-a', 'gpu-b'])).toEqual(
      new Map([
        ['gpu-a', null],
        ['gpu-b', null],
      ]),
    );
  });

  it('names the node with the most GPUs that could hold a share, then the largest GPU', () => {
    const nodes = [aClusterNode('big-a10', [a10(0), a10(1), a10(2), a10(3)]), aClusterNode('one-a100', [a100(0)])];
    const check = new CapacityCheck(nodes, options);
    // 30 GiB per GPU: only the A100 can hold a share, so it comes closest to two of them.
    const memory = check.verdict(aJob(1, { gpu: { gpuCount: 2, gpuMilli: 500, gpuMemoryMiB: 30_720, mode: 'mps' } }));
    expect((memory!.details.largestNode as { node: string }).node).toBe('one-a100');
    // 90 GiB per GPU: no GPU has it; the largest GPU wins.
    const tooMuch = check.verdict(aJob(1, { gpu: { gpuCount: 1, gpuMilli: 500, gpuMemoryMiB: 92_160, mode: 'mps' } }));
    expect((tooMuch!.details.largestNode as { node: string }).node).toBe('one-a100');
    expect(refusalMessage(tooMuch!)).toBe(
      'no node could ever hold it, even empty (2 node(s)); the largest for it, one-a100 (1 GPU(s) A100-80GB of up to ' +
        '81920 MiB): no GPU with 92160 MiB of memory (largest: 81920 MiB)',
    );
    // Five whole GPUs: the 4-GPU node comes closest.
    const five = check.verdict(aJob(1, { gpu: { gpuCount: 5 } }));
    expect((five!.details.largestNode as { node: string }).node).toBe('big-a10');
  });

  it('a MIG instance no GPU has, when instances are not created on demand', () => {
    const oneG = { profileId: 19, profileName: '1g.10gb', size: 1, computeSlices: 1 };
    const nodes = [
      aClusterNode('mig', [
        migA100(
          0,
          [0, 1, 2, 3, 4, 5, 6].map((start) => ({ ...oneG, start })),
        ),
      ]),
    ];
    const small = aJob(1, { gpu: { gpuCount: 1, gpuMilli: 100, gpuMemoryMiB: 9000, mode: 'mig' } });
    const large = aJob(2, { gpu: { gpuCount: 1, gpuMilli: 400, gpuMemoryMiB: 30_000, mode: 'mig' } });
    expect(new CapacityCheck(nodes, options).verdict(small)).toBeNull();
    const verdict = new CapacityCheck(nodes, options).verdict(large);
    expect(verdict?.code).toBe('fits-no-node');
    expect(refusalMessage(verdict!)).toBe(
      'no node could ever hold it, even empty (1 node(s)); the largest for it, mig (1 GPU(s) A100-80GB of up to ' +
        '81920 MiB, 1 in MIG mode): no MIG instance of a profile that covers the request exists (instances are ' +
        'not created on demand here)',
    );
    // Where instances are created on demand, the 3g.40gb profile holds it.
    expect(new CapacityCheck(nodes, { ...options, migReuseOnly: false }).verdict(large)).toBeNull();
  });

  it('no node at all: no verdict', () => {
    expect(new CapacityCheck([], options).verdict(aJob(1))).toBeNull();
  });

  it('node-too-small carries the empty node refusal', () => {
    const check = new CapacityCheck(twoA10Nodes, options);
    const refusal = check.emptyRefusals(aJob(1, { gpu: { gpuCount: 3 } }), ['gpu-b']).get('gpu-b')!;
    expect(refusalMessage(nodeTooSmall('gpu-b', refusal))).toBe(
      'even empty, this node could not hold it: only 2 of the 3 GPU(s) needed could hold its share (1000 ' +
        'milli-GPU in exclusive mode)',
    );
  });
});

describe('a MIG request over two GPUs when instances are not created on demand', () => {
  const oneG = (start: number) => ({ profileId: 19, profileName: '1g.10gb', start, size: 1, computeSlices: 1 });
  // GPU 1 has seven 1g.10gb instances, GPU 0 none: a 2-GPU request would need one created.
  const nodes = [aClusterNode('mig', [migA100(0, []), migA100(1, [0, 1, 2, 3, 4, 5, 6].map(oneG))])];
  const twoGpus = aJob(1, { gpu: { gpuCount: 2, gpuMilli: 100, gpuMemoryMiB: 1, mode: 'mig' } });

  it('is refused on the node (the placement costs what its dearest GPU costs) and fits no node', () => {
    const check = new CapacityCheck(nodes, options);
    expect(check.emptyRefusals(twoGpus, ['mig']).get('mig')).toEqual({
      code: 'mig-reuse-only',
      lasting: false,
      details: {},
    });
    expect(check.verdict(twoGpus)?.code).toBe('fits-no-node');
    expect(check.verdict(aJob(2, { gpu: { gpuCount: 1, gpuMilli: 100, gpuMemoryMiB: 1, mode: 'mig' } }))).toBeNull();
  });
});

describe('the memo of request shapes', () => {
  const withMemory = (id: number, gpuMemoryMiB: number) => aJob(id, { gpu: { gpuCount: 1, gpuMemoryMiB } });

  it(`holds at most ${MAX_CAPACITY_SHAPES} shapes after 10,000 distinct ones, answering a forgotten one alike`, () => {
    const check = new CapacityCheck(twoA10Nodes, options);
    const first = check.verdict(withMemory(0, 30_000));
    const kept = check.verdict(withMemory(0, 24_576));
    for (let i = 1; i <= 10_000; i++) {
      // Memory of 20,001 to 30,000 MiB: up to 24,576 MiB fits an A10, above fits no node.
      check.verdict(withMemory(i, 20_000 + i));
      // A shape asked now and then stays remembered (the least recently used is forgotten).
      if (i % 1000 === 0) expect(check.verdict(withMemory(0, 24_576))).toBe(kept);
    }
    expect(check.memoSizes()).toEqual({ verdicts: MAX_CAPACITY_SHAPES, answers: MAX_CAPACITY_SHAPES });
    expect(kept).toBeNull();
    // The first shape was forgotten: answered again, equal to what a fresh check answers.
    const again = check.verdict(withMemory(0, 30_000));
    expect(again).not.toBe(first);
    expect(again).toEqual(first);
    expect(again).toEqual(new CapacityCheck(twoA10Nodes, options).verdict(withMemory(0, 30_000)));
    expect(again?.code).toBe('fits-no-node');
    expect(check.emptyRefusals(withMemory(0, 20_001), ['gpu-a', 'gpu-b'])).toEqual(
      new Map([
        ['gpu-a', null],
        ['gpu-b', null],
      ]),
    );
    expect(check.memoSizes()).toEqual({ verdicts: MAX_CAPACITY_SHAPES, answers: MAX_CAPACITY_SHAPES });
  });
});
