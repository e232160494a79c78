import { describe, expect, it } from 'vitest';
import { planAttemptCgroups } from './attempt-cgroups.js';
import type { CgroupLayout } from './cgroup-layout.js';

const V1: CgroupLayout = {
  v2Mount: '/sys/fs/cgroup/unified',
  v2Controllers: [],
  v1Mounts: { cpu: '/sys/fs/cgroup/cpu', memory: '/sys/fs/cgroup/memory', pids: '/sys/fs/cgroup/pids' },
};
const under = (mount: string) => ({ version: 'v1' as const, parentDir: `${mount}/gpushare-x` });

describe('the cgroups of an attempt', () => {
  it('puts the CPU weight and quota in one cpu cgroup, processes and memory in theirs, beside the freezer', () => {
    const plan = planAttemptCgroups(
      V1,
      { cpu: under('/sys/fs/cgroup/cpu'), memory: under('/sys/fs/cgroup/memory'), pids: under('/sys/fs/cgroup/pids') },
      { parentDir: '/sys/fs/cgroup/freezer/gpushare-x', version: 'v1' },
      { cpuMilli: 500, cpuWeight: 100, hostMemoryMiB: 1024, pidsMax: 4096 },
      'job-7-1',
    );
    expect(plan.notEnforced).toEqual([]);
    expect(plan.cgroups).toEqual([
      { dir: '/sys/fs/cgroup/freezer/gpushare-x/job-7-1', mount: '', controller: 'freezer', limits: [] },
      {
        dir: '/sys/fs/cgroup/cpu/gpushare-x/job-7-1',
        mount: '/sys/fs/cgroup/cpu',
        controller: 'cpu',
        limits: [
          ['cpu.shares', '1024'],
          ['cpu.cfs_period_us', '100000'],
          ['cpu.cfs_quota_us', '50000'],
        ],
      },
      {
        dir: '/sys/fs/cgroup/pids/gpushare-x/job-7-1',
        mount: '/sys/fs/cgroup/pids',
        controller: 'pids',
        limits: [['pids.max', '4096']],
      },
      {
        dir: '/sys/fs/cgroup/memory/gpushare-x/job-7-1',
        mount: '/sys/fs/cgroup/memory',
        controller: 'memory',
        limits: [['memory.limit_in_bytes', '1073741824']],
      },
    ]);
  });

  it('names the limits asked for that this host has no controller for, and makes no cgroup for them', () => {
    const plan = planAttemptCgroups(
      V1,
      { cpu: null, memory: null, pids: null },
      null,
      { cpuMilli: 500, hostMemoryMiB: 1024, pidsMax: 64 },
      'job-8-1',
    );
    expect(plan).toEqual({ cgroups: [], notEnforced: ['cpuMilli', 'hostMemoryMiB', 'pidsMax'] });
  });
});
