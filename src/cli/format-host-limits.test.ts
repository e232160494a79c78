import { describe, expect, it } from 'vitest';
import { formatHostLimitLine, formatJobHostLimits } from './format-host-limits.js';

const defaults = { pidsMax: 4096, defaultHostMemoryMiB: 1024, tenantDefaultHostMemoryMiB: {}, cpuWeight: 100 };

describe('host limits in words', () => {
  it('status: what every job gets, `not enforced` where this host cannot', () => {
    expect(formatHostLimitLine({ cpuMilli: true, hostMemoryMiB: true, jobDefaults: defaults })).toBe(
      'host limits: per job processes 4096 (pids.max), memory --host-memory, else 1024 MiB, cpu weight 100, ' +
        '--cpu a CFS quota',
    );
    expect(
      formatHostLimitLine({
        cpuMilli: true,
        hostMemoryMiB: true,
        jobDefaults: { ...defaults, defaultHostMemoryMiB: null, tenantDefaultHostMemoryMiB: { big: 8192 } },
      }),
    ).toBe(
      'host limits: per job processes 4096 (pids.max), memory only with --host-memory, cpu weight 100, ' +
        '--cpu a CFS quota',
    );
    expect(
      formatHostLimitLine({
        cpuMilli: true,
        hostMemoryMiB: true,
        jobDefaults: { ...defaults, tenantDefaultHostMemoryMiB: { big: 8192 } },
      }),
    ).toContain("memory --host-memory, else 1024 MiB (tenants' own: big 8192 MiB)");
    // A host without the controllers: never `enforced`.
    expect(
      formatHostLimitLine({
        cpuMilli: false,
        hostMemoryMiB: false,
        jobDefaults: { pidsMax: null, defaultHostMemoryMiB: null, tenantDefaultHostMemoryMiB: {}, cpuWeight: null },
      }),
    ).toBe(
      'host limits: per job processes not enforced, memory not enforced, cpu weight not enforced, --cpu not enforced',
    );
    // A server of before the defaults.
    expect(formatHostLimitLine({ cpuMilli: true, hostMemoryMiB: false })).toBe(
      'host limits: cpu enforced, memory not enforced (cgroup controllers of this host)',
    );
  });

  it('show: what one job runs under, and while it runs what the kernel counted', () => {
    expect(
      formatJobHostLimits({
        pidsMax: 64,
        hostMemoryMiB: 2048,
        hostMemorySource: 'request',
        cpuWeight: 100,
        cpuQuotaMilli: 500,
        events: { pidsMaxHits: 0, oomKills: 1, cpuThrottledPeriods: 37 },
      }),
    ).toEqual([
      'host limits: processes 64, memory 2048 MiB (its --host-memory), cpu weight 100, cpu quota 500 milli',
      'limit hits:  0 fork(s) refused, 1 OOM kill(s), 37 period(s) held at the CPU quota',
    ]);
    expect(
      formatJobHostLimits({
        pidsMax: null,
        hostMemoryMiB: null,
        hostMemorySource: 'none',
        cpuWeight: null,
        cpuQuotaMilli: null,
        events: null,
      }),
    ).toEqual(['host limits: processes not enforced, memory not enforced, cpu weight not enforced, cpu quota none']);
    expect(formatJobHostLimits(undefined)).toEqual([]);
  });
});
