import { describe, expect, it } from 'vitest';
import type { ServerConfig } from '../config/server-config.js';
import { createServeCommand, type StartServer } from './serve-command.js';
import { throwOnExit } from './option-parsers.js';

/** Parses `serve` flags with a start that records the resolved config and stops at once. */
async function configOf(args: string[]): Promise<ServerConfig> {
  let seen: ServerConfig | null = null;
  const start: StartServer = async (config) => {
    seen = config;
    return {
      url: 'https://127.0.0.1:1',
      gpuSource: 'simulated',
      adminTokenPath: '/x',
      cliConfigPath: null,
      caCertPath: null,
      closed: Promise.resolve(),
    };
  };
  const command = throwOnExit(createServeCommand('0.0.0', start, () => undefined)).configureOutput({
    writeOut: () => undefined,
    writeErr: () => undefined,
  });
  const write = process.stdout.write;
  process.stdout.write = (() => true) as typeof process.stdout.write;
  try {
    await command.parseAsync(['--data-dir', '/tmp/gpushare-serve-flags', ...args], { from: 'user' });
  } finally {
    process.stdout.write = write;
  }
  if (seen === null) throw new Error('serve did not start');
  return seen;
}

describe('gpushare serve: limit and /metrics flags', () => {
  it(
    'takes the per-token limits and --metrics-open; /metrics needs a token by default and with ' +
      '--metrics-require-token',
    async () => {
      const defaults = await configOf([]);
      expect([defaults.metricsOpen, defaults.apiLimits]).toEqual([
        false,
        {
          requestsPerSecond: 20,
          requestBurst: 40,
          eventStreamsPerToken: 4,
          adminEventStreamsPerToken: 16,
          eventStreamsTotal: 64,
        },
      ]);
      const set = await configOf([
        '--requests-per-second',
        '2.5',
        '--request-burst',
        '5',
        '--event-streams-per-token',
        '1',
        '--event-streams-total',
        '8',
        '--metrics-open',
      ]);
      expect([set.metricsOpen, set.apiLimits]).toEqual([
        true,
        {
          requestsPerSecond: 2.5,
          requestBurst: 5,
          eventStreamsPerToken: 1,
          adminEventStreamsPerToken: 16,
          eventStreamsTotal: 8,
        },
      ]);
      expect((await configOf(['--metrics-require-token'])).metricsOpen).toBe(false);
    },
  );

  it('refuses a bad value naming the flag and its range, and contradictory /metrics flags', async () => {
    await expect(configOf(['--request-burst', '1.5'])).rejects.toThrow(
      '--request-burst must be a whole number from 1 to 100000, got "1.5"',
    );
    await expect(configOf(['--requests-per-second', '0'])).rejects.toThrow(
      '--requests-per-second must be a number greater than 0 and at most 100000, got "0"',
    );
    await expect(configOf(['--metrics-open', '--metrics-require-token'])).rejects.toThrow(/contradict each other/);
  });

  it('takes the host limits of jobs from --job-pids-max, --default-host-memory-mib, --job-cpu-weight', async () => {
    expect((await configOf([])).jobHostLimits).toMatchObject({ pidsMax: 4096, cpuWeight: 100 });
    expect(
      (await configOf(['--job-pids-max', '256', '--default-host-memory-mib', '0', '--job-cpu-weight', '50']))
        .jobHostLimits,
    ).toEqual({ pidsMax: 256, defaultHostMemoryMiB: 0, tenantDefaultHostMemoryMiB: {}, cpuWeight: 50 });
    await expect(configOf(['--job-pids-max', '-1'])).rejects.toThrow(
      '--job-pids-max must be a whole number from 0 to 4194304, got "-1"',
    );
    await expect(configOf(['--job-cpu-weight', '10001'])).rejects.toThrow(
      '--job-cpu-weight must be a whole number from 0 to 10000, got "10001"',
    );
    await expect(configOf(['--default-host-memory-mib', '1.5'])).rejects.toThrow(
      '--default-host-memory-mib must be a whole number from 0 to 16777216, got "1.5"',
    );
  });
});

describe('gpushare serve: audit flags', () => {
  it('takes --audit-anchor-command, refuses a blank one naming the flag, passes --accept-audit-problems', async () => {
    expect((await configOf([])).auditAnchorCommand).toBeNull();
    expect((await configOf(['--audit-anchor-command', 'logger -t gpushare-audit'])).auditAnchorCommand).toBe(
      'logger -t gpushare-audit',
    );
    await expect(configOf(['--audit-anchor-command', '  '])).rejects.toThrow(
      '--audit-anchor-command must not be blank: give a shell command, e.g. "logger -t gpushare"',
    );
    const accepted: boolean[] = [];
    const start: StartServer = async (_config, options) => {
      accepted.push(options.acceptAuditProblems);
      return {
        url: 'https://127.0.0.1:1',
        gpuSource: 'simulated',
        adminTokenPath: '/x',
        cliConfigPath: null,
        caCertPath: null,
        closed: Promise.resolve(),
      };
    };
    const write = process.stdout.write;
    process.stdout.write = (() => true) as typeof process.stdout.write;
    try {
      for (const args of [[], ['--accept-audit-problems']])
        await throwOnExit(createServeCommand('0.0.0', start, () => undefined)).parseAsync(
          ['--data-dir', '/tmp/gpushare-serve-flags', ...args],
          { from: 'user' },
        );
    } finally {
      process.stdout.write = write;
    }
    expect(accepted).toEqual([false, true]);
  });
});
