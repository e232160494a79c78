import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { defaultDataDir, parseServerConfigFile, resolveServerConfig } from './server-config.js';

const host = { cpuMilli: 8000, hostMemoryMiB: 32768, env: { HOME: '/home/u' } };

describe('server config', () => {
  it('fills every default with units in the names', () => {
    expect(resolveServerConfig({}, {}, host)).toEqual({
      port: 7070, host: '127.0.0.1', dataDir: '/home/u/.local/share/gpushare', simulateGpus: null,
      timesliceOvercommitRatio: 1, timeslicePeriodMs: 1000, monitorIntervalMs: 200, scheduleIntervalMs: 1000,
      stopGraceMs: 10_000, logRetentionMs: 7 * 86_400_000, healthPollIntervalMs: 10_000, hostCpuMilli: 8000, hostMemoryMiB: 32768, freezer: 'auto',
      preemptionSignal: 'SIGUSR1', preemptionGraceMs: 30_000, preemptionMinRunMs: 0, maxPreemptionsPerJob: 5,
    });
  });

  it('lets flags win over the file and the file over defaults', () => {
    const file = parseServerConfigFile('port: 8080\nstopGraceSeconds: 2.5\nfreezer: signals\n', 'c.yaml');
    const config = resolveServerConfig(file, { port: 0, host: undefined }, host);
    expect([config.port, config.stopGraceMs, config.freezer, config.host]).toEqual([0, 2500, 'signals', '127.0.0.1']);
  });

  it('uses XDG_DATA_HOME when set', () => {
    expect(defaultDataDir({ XDG_DATA_HOME: '/data', HOME: '/home/u' })).toBe('/data/gpushare');
  });

  it('names the file and the bad key', () => {
    expect(() => parseServerConfigFile('prot: 1\n', 'my.yaml')).toThrow(/my\.yaml: .*prot/);
    expect(() => parseServerConfigFile('freezer: ice\n', 'my.yaml')).toThrow(/my\.yaml: freezer: .*'auto' \| 'cgroup-v2' \| 'cgroup-v1' \| 'signals'/);
    expect(() => parseServerConfigFile('port: [', 'my.yaml')).toThrow(/my\.yaml: not valid YAML/);
  });

  it('accepts the shipped example file', () => {
    const text = readFileSync(new URL('../../deploy/config/config.example.yaml', import.meta.url), 'utf8');
    expect(parseServerConfigFile(text, 'example').dataDir).toBe('/var/lib/gpushare');
  });
});
