import { describe, expect, it } from 'vitest';
import { placeByUse, type PodToPlace } from './place-by-use.js';
import { podLoadOf } from './pod-load.js';
import { podSeries } from './testing/genai-fixtures.js';

const GPU = { name: 'A100-80GB', gpuMemoryMiB: 100 };
const FIT = { start: 0, end: 4 };

/** A pod with a duty cycle per instant (memory 1 MiB throughout) and its request. */
function pod(name: string, duty: number[], gpuMemoryMiB: number, gpuMilli = 10): PodToPlace {
  const load = podLoadOf(podSeries(name, { duty, memoryMiB: duty.map(() => 1) }), 0);
  return { load, request: { gpuMemoryMiB, gpuMilli } };
}

describe('placeByUse', () => {
  it('places the largest first, each on the GPU left with the least free memory (best fit decreasing)', () => {
    const pods = [
      pod('a', [0, 0, 0, 0], 30),
      pod('b', [0, 0, 0, 0], 60),
      pod('c', [0, 0, 0, 0], 45),
      pod('d', [0, 0, 0, 0], 40),
    ];
    // b (60) opens GPU 0, c (45) opens GPU 1, d (40) fits b's GPU exactly (100), a (30) goes with c (75).
    expect(placeByUse(pods, GPU, FIT, 1).gpus).toEqual([
      [1, 3],
      [2, 0],
    ]);
  });

  it('keeps a pod off a GPU where the co-located duty cycles would exceed 100% too often', () => {
    const busy = [pod('a', [90, 90, 10, 10], 40), pod('b', [20, 0, 0, 0], 30), pod('c', [0, 0, 95, 0], 20)];
    // b with a: 110% in 1 of 4 minutes (25% > 1%); c with a: 105% once; b with c: never over 100%.
    expect(placeByUse(busy, GPU, FIT, 1).gpus).toEqual([[0], [1, 2]]);
    // A bound of 25% lets b join a; c would make a second overloaded minute (50%).
    expect(placeByUse(busy, GPU, FIT, 25).gpus).toEqual([[0, 1], [2]]);
  });

  it('counts milli-GPU too, and gives a request over the GPU its own GPU', () => {
    const pods = [pod('a', [0, 0, 0, 0], 10, 600), pod('b', [0, 0, 0, 0], 10, 500), pod('c', [0, 0, 0, 0], 150, 1)];
    expect(placeByUse(pods, GPU, FIT, 1).gpus).toEqual([[2], [0], [1]]);
  });
});
