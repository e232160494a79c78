import { describe, expect, it } from 'vitest';
import { enforcedHostLimits, hostLimitReason, hostMemoryOf, type JobHostLimitSettings } from './job-host-limits.js';

const settings: JobHostLimitSettings = {
  pidsMax: 4096,
  defaultHostMemoryMiB: 1024,
  tenantDefaultHostMemoryMiB: { big: 8192 },
  cpuWeight: 100,
};
const everything = { cpuMilli: true, hostMemoryMiB: true, pidsMax: true, cpuWeight: true };

describe('the default host limits of a job', () => {
  it("takes the job's own host memory, else its tenant's default, else the server's", () => {
    expect(hostMemoryOf({ tenant: 'a', hostMemoryMiB: 300 }, settings)).toEqual({
      hostMemoryMiB: 300,
      source: 'request',
    });
    expect(hostMemoryOf({ tenant: 'big', hostMemoryMiB: 0 }, settings)).toEqual({
      hostMemoryMiB: 8192,
      source: 'tenant-default',
    });
    expect(hostMemoryOf({ tenant: 'a', hostMemoryMiB: 0 }, settings)).toEqual({
      hostMemoryMiB: 1024,
      source: 'server-default',
    });
    expect(hostMemoryOf({ tenant: 'a', hostMemoryMiB: 0 }, { ...settings, defaultHostMemoryMiB: 0 })).toEqual({
      hostMemoryMiB: 0,
      source: 'none',
    });
    // A tenant named like an Object property has no default of its own.
    expect(hostMemoryOf({ tenant: 'constructor', hostMemoryMiB: 0 }, settings).source).toBe('server-default');
  });

  it('says exactly what this host enforces: null where a controller is missing or a limit is off', () => {
    const job = { tenant: 'a', hostMemoryMiB: 0, cpuMilli: 500 };
    expect(enforcedHostLimits(job, settings, everything)).toEqual({
      pidsMax: 4096,
      hostMemoryMiB: 1024,
      hostMemorySource: 'server-default',
      cpuWeight: 100,
      cpuQuotaMilli: 500,
    });
    expect(enforcedHostLimits(job, settings, { cpuMilli: false, hostMemoryMiB: false })).toEqual({
      pidsMax: null,
      hostMemoryMiB: null,
      hostMemorySource: 'none',
      cpuWeight: null,
      cpuQuotaMilli: null,
    });
    expect(enforcedHostLimits({ ...job, cpuMilli: 0 }, { ...settings, pidsMax: 0 }, everything)).toMatchObject({
      pidsMax: null,
      cpuQuotaMilli: null,
    });
  });

  it('ends a job for a refused fork first, then for an OOM kill; CPU throttling never ends one', () => {
    const limits = enforcedHostLimits({ tenant: 'a', hostMemoryMiB: 0, cpuMilli: 0 }, settings, everything);
    expect(hostLimitReason({ pidsMaxHits: 3, oomKills: 1, cpuThrottledPeriods: 0 }, limits)).toEqual({
      code: 'process-limit',
      lasting: false,
      details: { pidsMax: 4096, forksRefused: 3 },
    });
    expect(hostLimitReason({ pidsMaxHits: 0, oomKills: 2, cpuThrottledPeriods: 0 }, limits)).toEqual({
      code: 'host-memory-limit',
      lasting: false,
      details: { hostMemoryMiB: 1024, oomKills: 2 },
    });
    expect(hostLimitReason({ pidsMaxHits: 0, oomKills: 0, cpuThrottledPeriods: 90 }, limits)).toBeNull();
    expect(hostLimitReason(null, limits)).toBeNull();
  });
});
