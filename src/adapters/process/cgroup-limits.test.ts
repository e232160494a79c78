import { existsSync, mkdirSync, readFileSync, rmdirSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import {
  allJobsPidsLimitValues,
  capAllJobsPids,
  cpuLimitValues,
  cpuWeightValues,
  memoryLimitValues,
  pidsLimitValues,
} from './cgroup-limits.js';
import { keyedCount } from './cgroup-limit-events.js';

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

  it('cpuWeight becomes cpu.weight (v2) or cpu.shares = weight × 1024 / 100 (v1); pidsMax becomes pids.max', () => {
    expect(cpuWeightValues(100, 'v2')).toEqual([['cpu.weight', '100']]);
    expect(cpuWeightValues(100, 'v1')).toEqual([['cpu.shares', '1024']]);
    expect(cpuWeightValues(1, 'v1')).toEqual([['cpu.shares', '10']]);
    expect(cpuWeightValues(10_000, 'v1')).toEqual([['cpu.shares', '102400']]);
    expect(() => cpuWeightValues(0, 'v2')).toThrow('cpuWeight must be an integer between 1 and 10000, got 0');
    expect(pidsLimitValues(4096)).toEqual([['pids.max', '4096']]);
    expect(() => pidsLimitValues(0)).toThrow('pidsMax must be a positive integer, got 0');
  });

  it('reads the counters of flat-keyed control files (pids.events, memory.oom_control, cpu.stat)', () => {
    expect(keyedCount('max 17\n', 'max')).toBe(17);
    expect(keyedCount('oom_kill_disable 0\nunder_oom 0\noom_kill 2\n', 'oom_kill')).toBe(2);
    expect(keyedCount('nr_periods 40\nnr_throttled 12\nthrottled_time 5\n', 'nr_throttled')).toBe(12);
    expect(keyedCount('oom_kill_disable 0\nunder_oom 0\n', 'oom_kill')).toBe(0);
  });

  it('rejects values that are not positive integers', () => {
    expect(() => cpuLimitValues(0, 'v1')).toThrow(RangeError);
    expect(() => memoryLimitValues(1.5, 'v2')).toThrow('hostMemoryMiB must be a positive integer, got 1.5');
  });

  it("all of a server's jobs together may hold three quarters of pid_max", () => {
    expect(allJobsPidsLimitValues(32_768)).toEqual([['pids.max', '24576']]);
    expect(allJobsPidsLimitValues(4_194_304)).toEqual([['pids.max', '3145728']]);
    expect(() => allJobsPidsLimitValues(0)).toThrow('pidMax must be a positive integer, got 0');
  });

  const pidsMount = '/sys/fs/cgroup/pids';
  const canWritePids = process.getuid?.() === 0 && existsSync(join(pidsMount, 'cgroup.procs'));
  it.skipIf(!canWritePids)('caps a real parent cgroup at three quarters of the kernel pid_max', () => {
    const dir = join(pidsMount, `gpushare-cap-test-${process.pid}`);
    mkdirSync(dir);
    try {
      const refusals: string[] = [];
      capAllJobsPids(dir, (message) => refusals.push(message));
      const pidMax = Number(readFileSync('/proc/sys/kernel/pid_max', 'utf8').trim());
      expect(refusals).toEqual([]);
      expect(readFileSync(join(dir, 'pids.max'), 'utf8').trim()).toBe(String(Math.floor(pidMax * 0.75)));
    } finally {
      rmdirSync(dir);
    }
  });

  it('a parent cgroup that cannot take the cap is reported, not thrown', () => {
    const refusals: string[] = [];
    capAllJobsPids('/nonexistent/gpushare-cap', (message) => refusals.push(message));
    expect(refusals).toHaveLength(1);
    expect(refusals[0]).toMatch(
      /^all jobs together are not capped below pid_max: cannot set \/nonexistent\/gpushare-cap\/pids.max/,
    );
  });
});
