import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { defaultDataDir, parseServerConfigFile, resolveServerConfig, ServerConfigFileSchema } from './server-config.js';

const host = { cpuMilli: 8000, hostMemoryMiB: 32768, env: { HOME: '/home/u' }, hostName: 'gpu-host-1' };

describe('server config', () => {
  it('fills every default with units in the names', () => {
    expect(resolveServerConfig({}, {}, host)).toEqual({
      port: 7070,
      host: '127.0.0.1',
      dataDir: '/home/u/.local/share/gpushare',
      simulateGpus: null,
      timesliceOvercommitRatio: 1,
      timeslicePeriodMs: 1000,
      monitorIntervalMs: 200,
      scheduleIntervalMs: 1000,
      launchConcurrency: 32,
      policy: 'default',
      stopGraceMs: 10_000,
      logRetentionMs: 7 * 86_400_000,
      healthPollIntervalMs: 10_000,
      hostCpuMilli: 8000,
      hostMemoryMiB: 32768,
      freezer: 'auto',
      preemptionSignal: 'SIGUSR1',
      preemptionGraceMs: 30_000,
      preemptionMinRunMs: 0,
      maxPreemptionsPerJob: 5,
      usageHistoryIntervalMs: 5000,
      nodeName: 'gpu-host-1',
      usagePollIntervalMs: 5000,
      metricsOpen: false,
      apiLimits: {
        requestsPerSecond: 20,
        requestBurst: 40,
        eventStreamsPerToken: 4,
        adminEventStreamsPerToken: 16,
        eventStreamsTotal: 64,
      },
      qosViolationSeconds: 60,
      qosProtection: 'isolate',
      tls: { kind: 'local' },
      singleTenant: false,
      sandboxUidRange: { first: 200000, count: 65536 },
      tenantUids: {},
      deviceRoot: null,
      jobLogCapBytes: 67_108_864,
      minFreeDiskMiB: 256,
      auditAnchorCommand: null,
      jobHostLimits: { pidsMax: 4096, defaultHostMemoryMiB: 1024, tenantDefaultHostMemoryMiB: {}, cpuWeight: 100 },
    });
  });

  it('takes the host limits of jobs from the file and flags; a default above the memory offered is refused', () => {
    const file = parseServerConfigFile(
      'jobPidsMax: 256\ndefaultHostMemoryMiB: 2048\ntenantDefaultHostMemoryMiB:\n  team-a: 8192\njobCpuWeight: 0\n',
      'c.yaml',
    );
    expect(resolveServerConfig(file, { jobPidsMax: 0 }, host).jobHostLimits).toEqual({
      pidsMax: 0,
      defaultHostMemoryMiB: 2048,
      tenantDefaultHostMemoryMiB: { 'team-a': 8192 },
      cpuWeight: 0,
    });
    // A machine with less memory than the default: every job could still run.
    expect(resolveServerConfig({}, {}, { ...host, hostMemoryMiB: 512 }).jobHostLimits.defaultHostMemoryMiB).toBe(512);
    expect(() => resolveServerConfig({ defaultHostMemoryMiB: 40_000 }, {}, host)).toThrow(
      'defaultHostMemoryMiB (--default-host-memory-mib) must be between 0 and hostMemoryMiB (32768), got 40000',
    );
    expect(() => resolveServerConfig({ tenantDefaultHostMemoryMiB: { b: 40_000 } }, {}, host)).toThrow(
      'tenantDefaultHostMemoryMiB.b must be between 1 and hostMemoryMiB (32768), got 40000',
    );
    expect(() => parseServerConfigFile('jobCpuWeight: 20000\n', 'c.yaml')).toThrow(
      'c.yaml: jobCpuWeight: must be a whole number between 0 and 10000, got 20000',
    );
  });

  it('serves HTTPS with the local CA by default, the given files, or plain HTTP only when asked', () => {
    expect(resolveServerConfig({}, {}, host).tls).toEqual({ kind: 'local' });
    const file = parseServerConfigFile('tlsCert: /etc/gs/server.crt\ntlsKey: /etc/gs/server.key\n', 'c.yaml');
    expect(resolveServerConfig(file, {}, host).tls).toEqual({
      kind: 'files',
      certFile: '/etc/gs/server.crt',
      keyFile: '/etc/gs/server.key',
      caFile: null,
    });
    expect(resolveServerConfig(file, { tlsCa: '/etc/gs/ca.crt' }, host).tls).toEqual({
      kind: 'files',
      certFile: '/etc/gs/server.crt',
      keyFile: '/etc/gs/server.key',
      caFile: '/etc/gs/ca.crt',
    });
    expect(resolveServerConfig(parseServerConfigFile('insecureHttp: true\n', 'c.yaml'), {}, host).tls).toEqual({
      kind: 'off',
    });
    expect(() => resolveServerConfig({}, { tlsCert: '/c.pem' }, host)).toThrow(
      /^tlsCert and tlsKey \(--tls-cert, --tls-key\) must be given together$/,
    );
    expect(() => resolveServerConfig({}, { tlsCa: '/ca.pem' }, host)).toThrow(
      /^tlsCa \(--tls-ca\) needs tlsCert and tlsKey/,
    );
    expect(() => resolveServerConfig(file, { insecureHttp: true }, host)).toThrow(
      /^insecureHttp \(--insecure-http\) cannot be combined with tlsCert, tlsKey/,
    );
    expect(() => parseServerConfigFile('insecureHttp: "yes"\n', 'c.yaml')).toThrow(/^c\.yaml: insecureHttp: /);
  });

  it('lets flags win over the file and the file over defaults', () => {
    const file = parseServerConfigFile('port: 8080\nstopGraceSeconds: 2.5\nfreezer: signals\n', 'c.yaml');
    const config = resolveServerConfig(file, { port: 0, host: undefined }, host);
    expect([config.port, config.stopGraceMs, config.freezer, config.host]).toEqual([0, 2500, 'signals', '127.0.0.1']);
  });

  it('reads the QoS keys and rejects bad values naming the key', () => {
    const config = resolveServerConfig(
      parseServerConfigFile('qosViolationSeconds: 1.5\nqosProtection: none\n', 'c.yaml'),
      {},
      host,
    );
    expect([config.qosViolationSeconds, config.qosProtection]).toEqual([1.5, 'none']);
    expect(() => parseServerConfigFile('qosViolationSeconds: 0\n', 'q.yaml')).toThrow(/q\.yaml: qosViolationSeconds: /);
    expect(() => parseServerConfigFile('qosProtection: evict\n', 'q.yaml')).toThrow(
      /q\.yaml: qosProtection: .*'isolate' \| 'none'/,
    );
  });

  it('reads the metrics keys and rejects bad values naming the key', () => {
    const config = resolveServerConfig(
      parseServerConfigFile('nodeName: rack-7\nusagePollIntervalSeconds: 0.5\nmetricsRequireToken: true\n', 'c.yaml'),
      {},
      host,
    );
    expect([config.nodeName, config.usagePollIntervalMs, config.metricsOpen]).toEqual(['rack-7', 500, false]);
    // /metrics needs an admin token unless configured open; metricsRequireToken: false is the old spelling of open.
    expect(resolveServerConfig({}, {}, host).metricsOpen).toBe(false);
    expect(resolveServerConfig({}, { metricsOpen: true }, host).metricsOpen).toBe(true);
    expect(resolveServerConfig({ metricsRequireToken: false }, {}, host).metricsOpen).toBe(true);
    expect(() => resolveServerConfig({ metricsOpen: true }, { metricsRequireToken: true }, host)).toThrow(
      /metricsOpen \(--metrics-open\) and metricsRequireToken \(--metrics-require-token\) contradict/,
    );
    expect(() => parseServerConfigFile('usagePollIntervalSeconds: 0\n', 'm.yaml')).toThrow(
      /m\.yaml: usagePollIntervalSeconds: /,
    );
    expect(() => parseServerConfigFile('metricsRequireToken: yes please\n', 'm.yaml')).toThrow(
      /m\.yaml: metricsRequireToken: /,
    );
  });

  it('reads jobLogCapBytes and rejects one out of range, naming the range', () => {
    expect(
      resolveServerConfig(parseServerConfigFile('jobLogCapBytes: 65536\n', 'c.yaml'), {}, host).jobLogCapBytes,
    ).toBe(65_536);
    expect(resolveServerConfig({ jobLogCapBytes: 65_536 }, { jobLogCapBytes: 8192 }, host).jobLogCapBytes).toBe(8192);
    expect(() => parseServerConfigFile('jobLogCapBytes: 100\n', 'c.yaml')).toThrow(
      /^c\.yaml: jobLogCapBytes: must be a whole number between 4096 and 1099511627776, got 100$/,
    );
  });

  it(
    'reads the per-token limits, with defaults 20/s burst 40, 4 streams per token, 16 per admin token, 64 ' + 'in all',
    () => {
      expect(resolveServerConfig({}, {}, host).apiLimits).toEqual({
        requestsPerSecond: 20,
        requestBurst: 40,
        eventStreamsPerToken: 4,
        adminEventStreamsPerToken: 16,
        eventStreamsTotal: 64,
      });
      const config = resolveServerConfig(
        parseServerConfigFile(
          'requestsPerSecond: 2.5\nrequestBurst: 5\neventStreamsPerToken: 1\nadminEventStreamsPerToken: ' +
            '2\neventStreamsTotal: 3\n',
          'c.yaml',
        ),
        { requestBurst: 7 },
        host,
      );
      expect(config.apiLimits).toEqual({
        requestsPerSecond: 2.5,
        requestBurst: 7,
        eventStreamsPerToken: 1,
        adminEventStreamsPerToken: 2,
        eventStreamsTotal: 3,
      });
      expect(() => parseServerConfigFile('requestsPerSecond: 0\n', 'r.yaml')).toThrow(
        /^r\.yaml: requestsPerSecond: must be greater than 0 and at most 100000, got 0$/,
      );
      expect(() => parseServerConfigFile('requestBurst: 1.5\n', 'r.yaml')).toThrow(
        /^r\.yaml: requestBurst: must be a whole number between 1 and 100000, got 1.5$/,
      );
    },
  );

  it('names the whole allowed range and the value given for a number out of range', () => {
    expect(() => parseServerConfigFile('usagePollIntervalSeconds: 0\n', 'm.yaml')).toThrow(
      /^m\.yaml: usagePollIntervalSeconds: must be between 0\.05 and 3600, got 0$/,
    );
    expect(() => parseServerConfigFile('usagePollIntervalSeconds: 4000\n', 'm.yaml')).toThrow(
      /^m\.yaml: usagePollIntervalSeconds: must be between 0\.05 and 3600, got 4000$/,
    );
    expect(() => parseServerConfigFile('qosViolationSeconds: -1\n', 'q.yaml')).toThrow(
      /^q\.yaml: qosViolationSeconds: must be greater than 0 and at most 86400, got -1$/,
    );
    expect(() => parseServerConfigFile('qosViolationSeconds: 0\n', 'q.yaml')).toThrow(
      /^q\.yaml: qosViolationSeconds: must be greater than 0 and at most 86400, got 0$/,
    );
    expect(() => parseServerConfigFile('port: 70000\n', 'c.yaml')).toThrow(
      /^c\.yaml: port: must be a whole number between 0 and 65535, got 70000$/,
    );
    expect(() => parseServerConfigFile('port: 1.5\n', 'c.yaml')).toThrow(
      /^c\.yaml: port: must be a whole number between 0 and 65535, got 1\.5$/,
    );
    expect(() => parseServerConfigFile('port: -1.5\n', 'c.yaml')).toThrow(
      /^c\.yaml: port: must be a whole number between 0 and 65535, got -1\.5$/,
    );
    expect(() => parseServerConfigFile('preemptionMinRunSeconds: -2\n', 'c.yaml')).toThrow(
      /^c\.yaml: preemptionMinRunSeconds: must be at least 0, got -2$/,
    );
    expect(() => parseServerConfigFile('hostCpuMilli: -1\n', 'c.yaml')).toThrow(
      /^c\.yaml: hostCpuMilli: must be a whole number, at least 0, got -1$/,
    );
    expect(() => parseServerConfigFile('timesliceOvercommitRatio: 17\nstopGraceSeconds: -1\n', 'c.yaml')).toThrow(
      new RegExp(
        /^c\.yaml: timesliceOvercommitRatio: must be between 1 and 16, /.source +
          /got 17; stopGraceSeconds: must be between 0 and 3600, got -1$/.source,
      ),
    );
  });

  it('reads the placement policy and names the allowed ones for an unknown name', () => {
    expect(resolveServerConfig(parseServerConfigFile('policy: best-fit\n', 'c.yaml'), {}, host).policy).toBe(
      'best-fit',
    );
    expect(() => parseServerConfigFile('policy: first-fit\n', 'c.yaml')).toThrow(
      'c.yaml: policy: must be one of random, dot-product, gpu-clustering, gpu-packing, best-fit, fgd, default',
    );
  });

  it('reads the sandbox settings and names sandboxUidRange when it is not a range above the system accounts', () => {
    const config = resolveServerConfig(
      parseServerConfigFile('sandboxUidRange: 300000-300009\ntenantUids:\n  team-a: 5001\n', 'c.yaml'),
      { singleTenant: true },
      host,
    );
    expect([config.sandboxUidRange, config.tenantUids, config.singleTenant]).toEqual([
      { first: 300000, count: 10 },
      { 'team-a': 5001 },
      true,
    ]);
    expect(() => resolveServerConfig({ sandboxUidRange: '10-20' }, {}, host)).toThrow(
      'sandboxUidRange must be FIRST-LAST with 1000 <= FIRST <= LAST < 2147483648, got "10-20"',
    );
    expect(() => parseServerConfigFile('sandboxUidRange: lots\n', 'c.yaml')).toThrow(
      'c.yaml: sandboxUidRange: must be FIRST-LAST, e.g. 200000-265535',
    );
    expect(() => parseServerConfigFile('tenantUids:\n  a: 0\n', 'c.yaml')).toThrow(/^c\.yaml: tenantUids\.a: /);
  });

  it('trims nodeName and rejects a blank one', () => {
    expect(resolveServerConfig(parseServerConfigFile('nodeName: "  rack-7 "\n', 'c.yaml'), {}, host).nodeName).toBe(
      'rack-7',
    );
    expect(() => parseServerConfigFile('nodeName: "   "\n', 'c.yaml')).toThrow(
      /^c\.yaml: nodeName: must not be blank$/,
    );
    expect(() => parseServerConfigFile('nodeName: ""\n', 'c.yaml')).toThrow(/^c\.yaml: nodeName: must not be blank$/);
  });

  it('uses XDG_DATA_HOME when set', () => {
    expect(defaultDataDir({ XDG_DATA_HOME: '/data', HOME: '/home/u' })).toBe('/data/gpushare');
  });

  it('names the file and the bad key', () => {
    expect(() => parseServerConfigFile('prot: 1\n', 'my.yaml')).toThrow(/my\.yaml: .*prot/);
    expect(() => parseServerConfigFile('freezer: ice\n', 'my.yaml')).toThrow(
      /my\.yaml: freezer: .*'auto' \| 'cgroup-v2' \| 'cgroup-v1' \| 'signals'/,
    );
    expect(() => parseServerConfigFile('port: [', 'my.yaml')).toThrow(/my\.yaml: not valid YAML/);
  });

  it('docs/server.md lists every key with its range, as the error messages word it', () => {
    const doc = readFileSync(new URL('../../docs/server.md', import.meta.url), 'utf8');
    for (const [key, field] of Object.entries(ServerConfigFileSchema.shape)) {
      const row = doc.split('\n').find((line) => line.startsWith(`| \`${key}\` |`));
      expect(row?.startsWith(`| \`${key}\` |`), key).toBe(true);
      const inner = field.unwrap();
      if (inner instanceof z.ZodNumber) {
        for (const bound of [inner.minValue, inner.maxValue])
          if (bound !== null) expect(row, key).toContain(String(bound));
      }
    }
  });

  it('accepts the shipped example file', () => {
    const text = readFileSync(new URL('../../deploy/config/config.example.yaml', import.meta.url), 'utf8');
    expect(parseServerConfigFile(text, 'example').dataDir).toBe('/var/lib/gpushare');
  });
});
