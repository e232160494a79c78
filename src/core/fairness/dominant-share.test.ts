import { describe, expect, it } from 'vitest';
import { dominantShare, dominantSharesByTenant } from './dominant-share.js';
import type { TenantUsage } from './tenant-usage.js';

const u = (gpuEquivalents: number, cpuMilli: number): TenantUsage => ({ gpuEquivalents, cpuMilli });
const CAPACITY = u(8, 64_000);

describe('dominantShare', () => {
  it.each<[string, TenantUsage, TenantUsage, number, number]>([
    ['GPU-dominant', u(2, 8_000), CAPACITY, 1, 0.25],
    ['CPU-dominant', u(1, 32_000), CAPACITY, 1, 0.5],
    ['equal shares', u(4, 32_000), CAPACITY, 1, 0.5],
    ['nothing used', u(0, 0), CAPACITY, 1, 0],
    ['weight 2 halves the share', u(4, 0), CAPACITY, 2, 0.25],
    ['weight 0.5 doubles it', u(1, 0), CAPACITY, 0.5, 0.25],
    ['no CPU capacity: GPU alone', u(2, 5_000), u(8, 0), 1, 0.25],
    ['no GPU capacity: CPU alone', u(0, 16_000), u(0, 64_000), 1, 0.25],
    ['no capacity at all', u(1, 1), u(0, 0), 1, 0],
    ['usage above capacity', u(10, 0), CAPACITY, 1, 1.25],
  ])('%s', (_name, usage, capacity, weight, expected) => {
    expect(dominantShare(usage, capacity, weight)).toBeCloseTo(expected, 12);
  });

  it('defaults the weight to 1', () => {
    expect(dominantShare(u(2, 0), CAPACITY)).toBe(0.25);
  });

  it.each<[TenantUsage, TenantUsage, number, RegExp]>([
    [u(-1, 0), CAPACITY, 1, /usage\.gpuEquivalents/],
    [u(0, Number.NaN), CAPACITY, 1, /usage\.cpuMilli/],
    [u(0, 0), u(Number.POSITIVE_INFINITY, 1), 1, /capacity\.gpuEquivalents/],
    [u(0, 0), u(1, -1), 1, /capacity\.cpuMilli/],
    [u(0, 0), CAPACITY, 0, /weight/],
    [u(0, 0), CAPACITY, -1, /weight/],
    [u(0, 0), CAPACITY, Number.NaN, /weight/],
  ])('rejects %o / %o weight %d naming the field', (usage, capacity, weight, field) => {
    expect(() => dominantShare(usage, capacity, weight)).toThrow(field);
  });
});

describe('dominantSharesByTenant', () => {
  it('maps every tenant to its weighted share', () => {
    const usage = new Map([
      ['a', u(4, 0)],
      ['b', u(0, 16_000)],
    ]);
    expect(dominantSharesByTenant(usage, CAPACITY)).toEqual(
      new Map([
        ['a', 0.5],
        ['b', 0.25],
      ]),
    );
    expect(dominantSharesByTenant(usage, CAPACITY, (t) => (t === 'a' ? 4 : 1))).toEqual(
      new Map([
        ['a', 0.125],
        ['b', 0.25],
      ]),
    );
  });
});
