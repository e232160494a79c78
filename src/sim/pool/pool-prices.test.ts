import { describe, expect, it } from 'vitest';
import { GPU_PER_HOUR, MEMORY_GIB_PER_HOUR, nodePricePerHour, VCPU_PER_HOUR } from './pool-prices.js';

describe('node prices from the Google Cloud list (us-central1, on-demand, 2025-03-06)', () => {
  it('prices GPUs only by default: a G2 node of 8 GPUs at the V100 price', () => {
    expect(nodePricePerHour('G2', 8, 96_000, 393_216, false)).toBeCloseTo(19.84, 10);
    expect(nodePricePerHour('T4', 2, 104_000, 524_288, false)).toBeCloseTo(0.7, 10);
  });

  it('adds vCPUs and GiB of host memory with host prices', () => {
    // 2 × 1.46 + 16 × 0.031611 + 120 GiB × 0.004237
    expect(nodePricePerHour('P100', 2, 16_000, 122_880, true)).toBeCloseTo(2.92 + 0.505776 + 0.50844, 10);
    expect(VCPU_PER_HOUR).toBe(0.031611);
    expect(MEMORY_GIB_PER_HOUR).toBe(0.004237);
  });

  it('derives the A100 80GB price from an a2-ultragpu-1g', () => {
    const vm = 12 * VCPU_PER_HOUR + 170 * MEMORY_GIB_PER_HOUR + (375 * 0.08) / 730;
    expect(5.0687978904 - vm).toBeCloseTo(GPU_PER_HOUR['A100-80GB']!, 4);
  });

  it('refuses a model the list does not price, and charges a CPU-only node its host only', () => {
    expect(() => nodePricePerHour('A10', 1, 1000, 1024, false)).toThrow(/no price for GPU model A10/);
    expect(nodePricePerHour('A10', 0, 2000, 0, true)).toBeCloseTo(0.063222, 10);
  });
});
