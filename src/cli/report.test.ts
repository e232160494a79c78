import { describe, expect, it } from 'vitest';
import { buildSubmitBody } from './submit-command.js';
import {
  formatQosStatus,
  formatUsagePeak,
  parseGpuMemoryUsed,
  parseQosSeconds,
  parseUtilizationPct,
  resolveReportTarget,
} from './report.js';
import { startFakeApiServer } from '../adapters/http-client/testing/fake-api-server.js';
import { runClientCli } from './testing/run-client-cli.js';

describe('gpushare report', () => {
  it('parses seconds: positive, at most one day; a number out of range is named as such', () => {
    expect([
      parseQosSeconds('--step-seconds', '0.62'),
      parseQosSeconds('--step-seconds', '12'),
      parseQosSeconds('--step-seconds', '.5'),
      parseQosSeconds('--step-seconds', '86400'),
    ]).toEqual([0.62, 12, 0.5, 86400]);
    for (const bad of ['abc', 'NaN', 'Infinity', '', '1.2.3', '0x10']) {
      expect(() => parseQosSeconds('--step-seconds', bad)).toThrow(
        `--step-seconds: '${bad}' is not a number of seconds; expected a positive number up to 86400 (e.g. 0.5)`,
      );
    }
    for (const low of ['0', '-1', '-0.5', '1e-400'])
      expect(() => parseQosSeconds('--step-seconds', low)).toThrow(
        `--step-seconds: must be greater than 0 and at most 86400, got '${low}'`,
      );
    for (const high of ['86401', '1e9', '1e308', '1e999'])
      expect(() => parseQosSeconds('--step-seconds', high)).toThrow(
        `--step-seconds: must be greater than 0 and at most 86400, got '${high}'`,
      );
  });

  it(
    'exits 2 naming the range for --step-seconds, --qos-step-seconds and --qos-latency-seconds out ' + 'of range',
    async () => {
      const env = {
        GPUSHARE_URL: 'http://127.0.0.1:1',
        GPUSHARE_JOB_ID: '7',
        GPUSHARE_JOB_TOKEN: 'gs_x',
        GPUSHARE_TOKEN: 'gs_x',
        XDG_CONFIG_HOME: '/nonexistent',
      };
      const cases: [string[], string][] = [
        [
          ['report', '--step-seconds', '0'],
          "error: option '--step-seconds <s>' argument '0' is invalid. --step-seconds: must be greater " +
            "than 0 and at most 86400, got '0'\n",
        ],
        [
          ['report', '--step-seconds', '86401'],
          "error: option '--step-seconds <s>' argument '86401' is invalid. --step-seconds: must be greater " +
            "than 0 and at most 86400, got '86401'\n",
        ],
        [
          ['report', '--step-seconds', 'abc'],
          "error: option '--step-seconds <s>' argument 'abc' is invalid. --step-seconds: 'abc' is not a " +
            'number of seconds; expected a positive number up to 86400 (e.g. 0.5)\n',
        ],
        [
          ['submit', '--qos-step-seconds', '-1', '--', 'true'],
          "error: option '--qos-step-seconds <s>' argument '-1' is invalid. --qos-step-seconds: must be " +
            "greater than 0 and at most 86400, got '-1'\n",
        ],
        [
          ['submit', '--qos-latency-seconds', '1e308', '--', 'true'],
          "error: option '--qos-latency-seconds <s>' argument '1e308' is invalid. --qos-latency-seconds: " +
            "must be greater than 0 and at most 86400, got '1e308'\n",
        ],
      ];
      for (const [args, stderr] of cases) {
        const run = await runClientCli(args, { env });
        expect([run.code, run.stderr]).toEqual([2, stderr]);
      }
    },
  );

  it('on a refused token (401) points at --token and GPUSHARE_JOB_TOKEN, not the CLI config file', async () => {
    const unknown = "unknown token (a job's GPUSHARE_JOB_TOKEN stops working when its attempt ends)";
    let message = unknown;
    const server = await startFakeApiServer(() => ({
      status: 401,
      body: { error: { code: 'GPUSHARE_UNAUTHENTICATED', message } },
    }));
    try {
      const env = {
        GPUSHARE_URL: server.url,
        GPUSHARE_JOB_ID: '7',
        GPUSHARE_JOB_TOKEN: 'gs_old',
        XDG_CONFIG_HOME: '/nonexistent',
      };
      const run = await runClientCli(['report', '--step-seconds', '0.5'], { env });
      expect([run.code, run.stderr]).toEqual([1, `error: ${unknown} (check --token or GPUSHARE_JOB_TOKEN)\n`]);
      expect(server.requests[0]?.headers.authorization).toBe('Bearer gs_old');
      message = 'missing bearer token';
      const other = await runClientCli(['report', '--step-seconds', '0.5'], { env });
      expect([other.code, other.stderr]).toEqual([
        1,
        "error: missing bearer token (check --token or GPUSHARE_JOB_TOKEN; a job's token stops working " +
          'when its attempt ends)\n',
      ]);
    } finally {
      await server.close();
    }
  });

  it('takes server, job and token from the job environment; flags win; a missing variable is named', () => {
    const env = { GPUSHARE_URL: 'http://127.0.0.1:7070/', GPUSHARE_JOB_ID: '7', GPUSHARE_JOB_TOKEN: 'gs_x' };
    expect(resolveReportTarget({}, env)).toEqual({ url: 'http://127.0.0.1:7070', jobId: 7, token: 'gs_x', ca: null });
    expect(resolveReportTarget({ job: 9, token: 'gs_admin', url: 'http://h:1' }, env)).toEqual({
      url: 'http://h:1',
      jobId: 9,
      token: 'gs_admin',
      ca: null,
    });
    // an https server's CA comes from GPUSHARE_CA_CERT, which gpushare sets for every job
    const pem = '-----BEGIN CERTIFICATE-----\nMIIB\n-----END CERTIFICATE-----\n';
    expect(resolveReportTarget({}, { ...env, GPUSHARE_URL: 'https://127.0.0.1:7070', GPUSHARE_CA_CERT: pem })).toEqual({
      url: 'https://127.0.0.1:7070',
      jobId: 7,
      token: 'gs_x',
      ca: { pem, source: 'GPUSHARE_CA_CERT' },
    });
    expect(() => resolveReportTarget({}, { ...env, GPUSHARE_JOB_TOKEN: undefined })).toThrow(
      'GPUSHARE_JOB_TOKEN is not set: gpushare sets it for every job; outside a job pass --token',
    );
    expect(() => resolveReportTarget({}, { ...env, GPUSHARE_URL: '' })).toThrow('GPUSHARE_URL is not set');
    expect(() => resolveReportTarget({}, { ...env, GPUSHARE_JOB_ID: 'x' })).toThrow(
      "GPUSHARE_JOB_ID: 'x' is not a job id",
    );
  });

  it('prints one line per target', () => {
    expect(
      formatQosStatus(7, [
        {
          kind: 'step',
          targetSeconds: 0.5,
          lastObservedSeconds: 0.62,
          lastReportAt: '2025-01-01T00:00:01.000Z',
          reports: 3,
          violating: true,
          missingSince: '2025-01-01T00:00:00.000Z',
          violations: 1,
        },
        {
          kind: 'latency',
          targetSeconds: 0.2,
          lastObservedSeconds: 0.3,
          lastReportAt: '2025-01-01T00:00:01.000Z',
          reports: 1,
          violating: false,
          missingSince: '2025-01-01T00:00:01.000Z',
          violations: 0,
        },
      ]),
    ).toBe(
      'job 7 step: latest 0.62 s, target 0.5 s, violating (1 violation so far)\njob 7 latency: latest ' +
        '0.3 s, target 0.2 s, missing since 2025-01-01T00:00:01.000Z (0 violations so far)\n',
    );
  });

  it('submit puts the QoS flags into the body', () => {
    expect(buildSubmitBody(['sleep', '1'], { qosStepSeconds: 0.5 }, '/tmp').qos).toEqual({ stepSeconds: 0.5 });
    expect(buildSubmitBody(['sleep', '1'], { qosStepSeconds: 0.5, qosLatencySeconds: 0.2 }, '/tmp').qos).toEqual({
      stepSeconds: 0.5,
      latencySeconds: 0.2,
    });
    expect(buildSubmitBody(['sleep', '1'], {}, '/tmp').qos).toBeUndefined();
  });

  it('parses --gpu-util (0-100) and --gpu-memory-used (MiB or GiB, at most 1 TiB)', () => {
    expect(['0', '72.5', '100', '35%', ' 7 '].map(parseUtilizationPct)).toEqual([0, 72.5, 100, 35, 7]);
    for (const bad of ['100.1', '-1', 'abc', '', '1e2'])
      expect(() => parseUtilizationPct(bad)).toThrow(
        `--gpu-util: expected a percentage from 0 to 100 (e.g. 72.5), got '${bad}'`,
      );
    expect(['0', '10240', '10GiB', '1.5GiB', '1048576'].map(parseGpuMemoryUsed)).toEqual([
      0, 10240, 10240, 1536, 1048576,
    ]);
    expect(() => parseGpuMemoryUsed('1048577')).toThrow(
      "--gpu-memory-used: at most 1048576 MiB (1 TiB), got '1048577'",
    );
    expect(() => parseGpuMemoryUsed('10GB')).toThrow('--gpu-memory-used');
  });

  it('prints the usage peak after a usage report', () => {
    const peak = { gpuMemoryMiB: 10240, gpuUtilizationPct: 72.5, updatedAt: '2025-01-01T00:00:01.000Z' };
    expect(formatUsagePeak({ jobId: 7, status: [], usagePeak: peak, peakRaised: true })).toBe(
      'job 7 usage peak: 10240 MiB GPU memory, 72.5% utilization (raised by this report)\n',
    );
    expect(
      formatUsagePeak({ jobId: 7, status: [], usagePeak: { ...peak, gpuUtilizationPct: null }, peakRaised: false }),
    ).toBe('job 7 usage peak: 10240 MiB GPU memory, - utilization (unchanged)\n');
  });

  it('sends usage values without QoS targets and prints the peak the server answers', async () => {
    const usagePeak = { gpuMemoryMiB: 20480, gpuUtilizationPct: 64, updatedAt: '2025-01-01T00:00:01.000Z' };
    const server = await startFakeApiServer(() => ({
      status: 200,
      body: { jobId: 7, status: [], usagePeak, peakRaised: true },
    }));
    try {
      const env = { GPUSHARE_URL: server.url, GPUSHARE_JOB_ID: '7', GPUSHARE_JOB_TOKEN: 'gs_job' };
      const run = await runClientCli(['report', '--gpu-memory-used', '20GiB', '--gpu-util', '64'], { env });
      expect([run.code, run.stdout, run.stderr]).toEqual([
        0,
        'job 7 usage peak: 20480 MiB GPU memory, 64% utilization (raised by this report)\n',
        '',
      ]);
      expect(server.requests.map((r) => [r.method, r.path, r.body])).toEqual([
        ['POST', '/api/v1/jobs/7/qos-reports', { gpuMemoryUsedMiB: 20480, gpuUtilizationPct: 64 }],
      ]);
      const none = await runClientCli(['report'], { env });
      expect([none.code, none.stderr]).toEqual([
        2,
        'error: report needs --step-seconds, --latency-seconds, --gpu-memory-used or --gpu-util\n',
      ]);
    } finally {
      await server.close();
    }
  });
});
