import { describe, expect, it } from 'vitest';
import { cgroupMounts, jobCgroupParent, parseCgroupLayout, parseProcCgroup } from './cgroup-layout.js';

const HYBRID = `proc /proc proc rw 0 0
tmpfs /sys/fs/cgroup tmpfs rw,relatime,mode=755 0 0
cgroup /sys/fs/cgroup/cpu,cpuacct cgroup rw,relatime,cpu,cpuacct 0 0
cgroup /sys/fs/cgroup/memory cgroup rw,relatime,memory 0 0
cgroup /sys/fs/cgroup/freezer cgroup rw,relatime,freezer 0 0
cgroup /sys/fs/cgroup/systemd cgroup rw,relatime,name=systemd 0 0
cgroup2 /sys/fs/cgroup/unified cgroup2 rw,relatime 0 0
cgroup2 /elsewhere cgroup2 rw 0 0
`;

describe('parseCgroupLayout', () => {
  it('finds the v2 mount, its controllers and each v1 controller (a hybrid host)', () => {
    const layout = parseCgroupLayout(HYBRID, '/sys/fs/cgroup', (m) =>
      m === '/sys/fs/cgroup/unified' ? 'hugetlb\n' : '',
    );
    expect(layout).toEqual({
      v2Mount: '/sys/fs/cgroup/unified',
      v2Controllers: ['hugetlb'],
      v1Mounts: {
        cpu: '/sys/fs/cgroup/cpu,cpuacct',
        cpuacct: '/sys/fs/cgroup/cpu,cpuacct',
        memory: '/sys/fs/cgroup/memory',
        freezer: '/sys/fs/cgroup/freezer',
      },
    });
  });

  it('reads a pure v2 host and unescapes octal escapes in mount points', () => {
    const layout = parseCgroupLayout(
      'cgroup2 /sys/fs/cgroup/my\\040root cgroup2 rw 0 0\n',
      '/sys/fs/cgroup',
      () => 'cpu memory pids',
    );
    expect(layout).toEqual({
      v2Mount: '/sys/fs/cgroup/my root',
      v2Controllers: ['cpu', 'memory', 'pids'],
      v1Mounts: {},
    });
  });

  it('ignores mounts outside the cgroup root', () => {
    expect(parseCgroupLayout(HYBRID, '/nowhere', () => 'cpu')).toEqual({
      v2Mount: null,
      v2Controllers: [],
      v1Mounts: {},
    });
  });
});

describe('parseProcCgroup', () => {
  it('reads the v2 path and the path of each v1 controller', () => {
    expect(parseProcCgroup('12:cpu,cpuacct:/a\n4:memory:/b/c\n1:name=systemd:/s\n0::/u\n')).toEqual({
      v2: '/u',
      v1: { cpu: '/a', cpuacct: '/a', memory: '/b/c', 'name=systemd': '/s' },
    });
  });
});

describe('cgroupMounts', () => {
  it('lists the v2 mount and each v1 mount once (cpu and cpuacct share one)', () => {
    const layout = {
      v2Mount: '/sys/fs/cgroup/unified',
      v2Controllers: [],
      v1Mounts: {
        cpu: '/sys/fs/cgroup/cpu,cpuacct',
        cpuacct: '/sys/fs/cgroup/cpu,cpuacct',
        pids: '/sys/fs/cgroup/pids',
      },
    };
    expect(cgroupMounts(layout)).toEqual([
      '/sys/fs/cgroup/unified',
      '/sys/fs/cgroup/cpu,cpuacct',
      '/sys/fs/cgroup/pids',
    ]);
    expect(cgroupMounts({ v2Mount: null, v2Controllers: [], v1Mounts: {} })).toEqual([]);
  });
});

describe('jobCgroupParent', () => {
  it('names a data dir by the first 12 hex digits of its SHA-256', () => {
    expect(jobCgroupParent('/var/lib/gpushare')).toBe('gpushare-550aa5b7e8e2');
    expect(jobCgroupParent('/var/lib/gpushare2')).not.toBe(jobCgroupParent('/var/lib/gpushare'));
  });
});
