import { describe, expect, it } from 'vitest';
import type { NodeTemplate } from '../../core/index.js';
import { fixedPoolNodes, smallestMeeting } from './fixed-pool.js';

function template(name: string, gpuModel: string, gpuCount: number, pricePerHour: number): NodeTemplate {
  return {
    name,
    gpuModel,
    gpuCount,
    migCapable: false,
    hostCpuMilli: 16_000 * gpuCount,
    hostMemoryMiB: 65_536 * gpuCount,
    pricePerHour,
    minCount: 0,
    maxCount: 10,
    bootSeconds: 0,
  };
}

const G2 = template('G2x8', 'G2', 8, 19.84);
const T4 = template('T4x2', 'T4', 2, 0.7);

describe('fixedPoolNodes', () => {
  it('starts with one node of each template, then follows the GPU shares, trimming the last node', () => {
    // Shares 3:1. After G2 + T4 (8 + 2 GPUs), T4 is furthest below its share (2/1 < 8/3): one more
    // T4 (4 GPUs), then G2 (8/3 < 4/1) trimmed to the 3 GPUs missing.
    const nodes = fixedPoolNodes([G2, T4], [3, 1], 15, false);
    expect(nodes.map((n) => [n.template.name, n.gpuCount, n.cpuMilli, n.hostMemoryMiB])).toEqual([
      ['G2x8', 8, 128_000, 524_288],
      ['T4x2', 2, 32_000, 131_072],
      ['T4x2', 2, 32_000, 131_072],
      ['G2x8', 3, 48_000, 196_608],
    ]);
    expect(nodes[3]!.pricePerHour).toBeCloseTo(3 * 2.48, 10);
    expect(nodes.reduce((s, n) => s + n.gpuCount, 0)).toBe(15);
  });

  it('refuses a pool smaller than one node of each template, or shares that do not fit', () => {
    expect(() => fixedPoolNodes([G2, T4], [3, 1], 9, false)).toThrow(/at least 10 GPUs/);
    expect(() => fixedPoolNodes([G2, T4], [3], 12, false)).toThrow(/one share > 0 per template/);
  });
});

describe('smallestMeeting', () => {
  it('finds the first size that meets by bisection, each size evaluated once', () => {
    const result = smallestMeeting(10, 100, (n) => n >= 37);
    expect(result.n).toBe(37);
    expect(result.evaluated.map((e) => e.n)).toEqual([100, 55, 32, 44, 38, 35, 37, 36]);
  });

  it('is null when the largest size does not meet', () => {
    expect(smallestMeeting(1, 8, () => false)).toEqual({ n: null, evaluated: [{ n: 8, meets: false }] });
  });
});
