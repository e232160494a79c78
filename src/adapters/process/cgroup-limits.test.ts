import { describe, expect, it } from 'vitest';
import { cpuLimitValues, memoryLimitValues } from './cgroup-limits.js';

describe('cgroup limit values', () => {
  it('cpuMilli becomes a CFS quota per 100 000 µs period (v1 and v2)', () => {
    expect(cpuLimitValues(500, 'v1')).toEqual([
      ['cpu.cfs_period_us', '100000'],
      ['cpu.cfs_quota_us', '50000'],
    ]);
    expect(cpuLimitValues(2500, 'v1')).toEqual([
      ['cpu.cfs_period_us', '100000'],
      ['cpu.cfs_quota_us', '250000'],
    ]);
    expect(cpuLimitValues(500, 'v2')).toEqual([['cpu.max', '50000 100000']]);
  });

  it('a tiny cpuMilli gets the kernel minimum quota of 1000 µs', () => {
    expect(cpuLimitValues(1, 'v2')).toEqual([['cpu.max', '1000 100000']]);
  });

  it('hostMemoryMiB becomes a byte limit (v1 and v2)', () => {
    expect(memoryLimitValues(256, 'v1')).toEqual([['memory.limit_in_bytes', '268435456']]);
    expect(memoryLimitValues(256, 'v2')).toEqual([['memory.max', '268435456']]);
  });

  it('rejects values that are not positive integers', () => {
    expect(() => cpuLimitValues(0, 'v1')).toThrow(RangeError);
    expect(() => memoryLimitValues(1.5, 'v2')).toThrow('hostMemoryMiB must be a positive integer, got 1.5');
  });
});
