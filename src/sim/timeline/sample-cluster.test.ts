import { describe, expect, it } from 'vitest';
import { SeededRng } from '../../core/index.js';
import type { TraceNode } from '../traces/trace-types.js';
import { sampleCluster } from './sample-cluster.js';

const LIST: TraceNode[] = [
  { name: 'a', cpuMilli: 96_000, hostMemoryMiB: 393_216, gpuCount: 8, gpuModel: 'G2' },
  { name: 'b', cpuMilli: 104_000, hostMemoryMiB: 524_288, gpuCount: 2, gpuModel: 'T4' },
  { name: 'c', cpuMilli: 104_000, hostMemoryMiB: 524_288, gpuCount: 2, gpuModel: 'T4' },
  { name: 'cpu', cpuMilli: 64_000, hostMemoryMiB: 262_144, gpuCount: 0, gpuModel: null },
];

const gpusOf = (nodes: readonly TraceNode[]): number => nodes.reduce((s, n) => s + n.gpuCount, 0);

describe('sampleCluster', () => {
  it('is deterministic per seed and gives exactly the GPUs asked for', () => {
    for (const seed of [1, 2, 42]) {
      const first = sampleCluster(LIST, 64, new SeededRng(seed));
      expect(sampleCluster(LIST, 64, new SeededRng(seed))).toEqual(first);
      expect(gpusOf(first)).toBe(64);
      expect(first.every((n) => n.gpuCount > 0)).toBe(true);
    }
    expect(sampleCluster(LIST, 64, new SeededRng(1))).not.toEqual(sampleCluster(LIST, 64, new SeededRng(2)));
  });

  it('names copies by draw index and original name', () => {
    const nodes = sampleCluster(LIST, 20, new SeededRng(3));
    nodes.forEach((n, i) => expect(n.name).toMatch(new RegExp(`^s${String(i).padStart(3, '0')}-(a|b|c)$`)));
  });

  it('draws shapes in proportion to the list', () => {
    const nodes = sampleCluster(LIST, 20_000, new SeededRng(5));
    const eight = nodes.filter((n) => n.gpuModel === 'G2').length;
    expect(eight / nodes.length).toBeGreaterThan(0.3);
    expect(eight / nodes.length).toBeLessThan(0.37);
  });

  it('trims the last node and scales its CPU and memory', () => {
    const nodes = sampleCluster([LIST[0]!], 12, new SeededRng(1));
    expect(nodes.map((n) => [n.gpuCount, n.cpuMilli, n.hostMemoryMiB])).toEqual([
      [8, 96_000, 393_216],
      [4, 48_000, 196_608],
    ]);
  });

  it('rejects a bad count and a list without GPU nodes', () => {
    expect(() => sampleCluster(LIST, 0, new SeededRng(1))).toThrow(RangeError);
    expect(() => sampleCluster(LIST, 1.5, new SeededRng(1))).toThrow(RangeError);
    expect(() => sampleCluster([LIST[3]!], 4, new SeededRng(1))).toThrow('no GPU node');
  });
});
