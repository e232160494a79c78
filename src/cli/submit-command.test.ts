/**
 * `gpushare submit` run in-process (through commander) against a fake server built with node:http.
 */
import { afterEach, describe, expect, it } from 'vitest';
import type { JobView } from '../contract/api.js';
import { sampleJob, sampleJobDetail } from '../adapters/http-client/testing/api-fixtures.js';
import {
  startFakeApiServer,
  type FakeApiServer,
  type FakeResponse,
  type RecordedRequest,
} from '../adapters/http-client/testing/fake-api-server.js';
import { runClientCli } from './testing/run-client-cli.js';

let server: FakeApiServer | undefined;

afterEach(async () => {
  await server?.close();
  server = undefined;
});

async function serve(
  handler: (r: RecordedRequest) => FakeResponse | Promise<FakeResponse>,
): Promise<{ env: Record<string, string>; server: FakeApiServer }> {
  server = await startFakeApiServer(handler);
  return { server, env: { GPUSHARE_URL: server.url, GPUSHARE_TOKEN: 'gs_test', XDG_CONFIG_HOME: '/nonexistent' } };
}

describe('gpushare submit', () => {
  it(
    'sends --gpu 0.6 --gpu-count 2 --gpu-memory 20GiB as 600 milli on each of two GPUs, and prints ' + 'the id last',
    async () => {
      const { env, server } = await serve((r) => ({
        status: 201,
        body: sampleJob({
          id: 42,
          state: 'pending',
          placement: null,
          gpu: { isolation: 'standard', ...(r.body as { gpu: Partial<JobView['gpu']> }).gpu } as JobView['gpu'],
        }),
      }));
      const run = await runClientCli(
        [
          'submit',
          '--gpu',
          '0.6',
          '--gpu-count',
          '2',
          '--gpu-memory',
          '20GiB',
          '--env',
          'SEED=1',
          '--env',
          'X=a=b',
          '--priority',
          'high',
          '--time-limit',
          '1h30m',
          '--cpu',
          '500m',
          '--host-memory',
          '1GiB',
          '--retries',
          '2',
          '--name',
          'tr',
          '--tenant',
          'team-a',
          '--',
          'python',
          'train.py',
          '--lr',
          '3e-4',
        ],
        { env, cwd: '/home/u/proj' },
      );
      expect(run.stderr).toBe('');
      expect(run.code).toBe(0);
      expect(server.requests).toHaveLength(1);
      expect(server.requests[0]?.path).toBe('/api/v1/jobs');
      expect(server.requests[0]?.headers.authorization).toBe('Bearer gs_test');
      expect(server.requests[0]?.body).toEqual({
        command: ['python', 'train.py', '--lr', '3e-4'],
        workingDirectory: '/home/u/proj',
        // The current folder, not one named: a sandboxed server may run the job in a private one.
        workingDirectoryFallback: 'private',
        environment: { SEED: '1', X: 'a=b' },
        tenant: 'team-a',
        name: 'tr',
        priority: 'high',
        timeLimitSeconds: 5400,
        retries: 2,
        cpuMilli: 500,
        hostMemoryMiB: 1024,
        gpu: { gpuCount: 2, gpuMilli: 600, gpuMemoryMiB: 20480, mode: 'auto' },
      });
      expect(run.stdout).toBe('submitted job 42 (gpu 0.6 × 2, mode auto)\n42\n');
    },
  );

  it('sends only the --env pairs, a whole GPU by default and the working folder resolved against cwd', async () => {
    const { env, server } = await serve(() => ({
      status: 201,
      body: sampleJob({
        id: 5,
        gpu: { gpuCount: 1, gpuMilli: 1000, gpuMemoryMiB: null, mode: 'exclusive', isolation: 'standard' },
      }),
    }));
    const run = await runClientCli(['submit', '--workdir', 'sub', '--mode', 'exclusive', '--', 'nvidia-smi'], {
      env: { ...env, SECRET: 'x' },
      cwd: '/home/u',
    });
    expect(run.code).toBe(0);
    expect(server.requests[0]?.body).toEqual({
      command: ['nvidia-smi'],
      workingDirectory: '/home/u/sub',
      environment: {},
      gpu: { gpuCount: 1, gpuMilli: 1000, mode: 'exclusive' },
    });
    expect(run.stdout.split('\n').filter(Boolean).at(-1)).toBe('5');
  });

  it(
    '--private-workdir sends no working folder (the job gets its own on the server) and makes a ' +
      'relative program absolute; with --workdir it is a usage error',
    async () => {
      const { env, server } = await serve(() => ({ status: 201, body: sampleJob({ id: 6 }) }));
      const run = await runClientCli(['submit', '--private-workdir', '--', './train.sh', '--fast'], {
        env,
        cwd: '/home/u/proj',
      });
      expect(run.code).toBe(0);
      expect(server.requests[0]?.body).toEqual({
        command: ['/home/u/proj/train.sh', '--fast'],
        environment: {},
        gpu: { gpuCount: 1, gpuMilli: 1000, mode: 'auto' },
      });
      const both = await runClientCli(['submit', '--private-workdir', '--workdir', 'x', '--', 'true'], {
        env,
        cwd: '/home/u',
      });
      expect([both.code, both.stderr.trim()]).toEqual([
        2,
        'error: --private-workdir and --workdir exclude each other: choose one working folder',
      ]);
      expect(server.requests).toHaveLength(1);
    },
  );

  it.each([
    [
      ['--gpu', '1.5'],
      "option '--gpu <share>' argument '1.5' is invalid. --gpu: '1.5' is not valid; expected a fraction " +
        'of one GPU in (0,1] with at most 3 decimals (e.g. 0.5), or a whole number of GPUs 1..64 (e.g. 2)',
    ],
    [
      ['--gpu', '2', '--gpu-count', '3'],
      "error: --gpu-count: '3' is not valid; expected no --gpu-count, or the same number as --gpu 2 (whole GPUs)",
    ],
    [
      ['--gpu-memory', '20GB'],
      "--gpu-memory: '20GB' is not valid; expected a whole number of MiB, or a size with unit MiB or GiB",
    ],
    [['--time-limit', '1.5h'], "--time-limit: '1.5h' is not valid"],
    [
      ['--mode', 'shared'],
      "option '--mode <mode>' argument 'shared' is invalid. Allowed choices are auto, exclusive, mig, mps, timeslice.",
    ],
    [['--env', 'NOEQUALS'], "--env: 'NOEQUALS' is not valid; expected KEY=VALUE"],
  ])('rejects %j with exit 2 and a message naming the flag, before calling the server', async (flags, message) => {
    const { env, server } = await serve(() => ({ status: 201, body: sampleJob() }));
    const run = await runClientCli(['submit', ...flags, '--', 'true'], { env });
    expect(run.code).toBe(2);
    expect(run.stderr).toContain(message);
    expect(server.requests).toHaveLength(0);
  });

  it.each([
    [['--preemptible'], true],
    [['--no-preemptible'], false],
    [['--priority', 'high', '--preemptible'], true],
    [[], undefined],
  ] as const)(
    '%j sends preemptible %j (omitted: not sent, the server decides by priority)',
    async (flags, preemptible) => {
      const { env, server } = await serve(() => ({ status: 201, body: sampleJob({ id: 8 }) }));
      const run = await runClientCli(['submit', ...flags, '--gpu', '0.5', '--', 'train'], { env });
      expect(run.code).toBe(0);
      const body = server.requests[0]?.body as Record<string, unknown>;
      expect(body.preemptible).toBe(preemptible);
      expect('preemptible' in body).toBe(preemptible !== undefined);
    },
  );

  it('--wait does not repeat the server\'s "attempt N started (pid …)" and names a resumed attempt', async () => {
    const polls = [
      { state: 'running', attempt: 1, reason: 'attempt 1 started (pid 100)', reasonCode: 'attempt-started' },
      { state: 'preempted', attempt: 1, reason: 'preempted by job 3 (priority 1000, tenant default)', placement: null },
      { state: 'running', attempt: 2, reason: 'attempt 2 started (pid 200)', reasonCode: 'attempt-started' },
      { state: 'succeeded', attempt: 2, exitCode: 0, reason: 'exit code 0' },
    ] as const;
    let poll = 0;
    const { env } = await serve((r) => {
      if (r.method === 'POST') return { status: 201, body: sampleJob({ id: 9, state: 'pending', placement: null }) };
      const at = polls[Math.min(poll, polls.length - 1)]!;
      poll += 1;
      return { status: 200, body: sampleJobDetail({ id: 9, ...at }) };
    });
    const run = await runClientCli(['submit', '--wait', '--', 'train'], { env });
    expect(run.code).toBe(0);
    expect(run.stderr).toBe(
      [
        'job 9: running on GPU 0',
        'job 9: preempted (preempted by job 3 (priority 1000, tenant default))',
        'job 9: running (attempt 2) on GPU 0',
        'job 9 succeeded (exit code 0)',
        '',
      ].join('\n'),
    );
  });

  it("passes the job's own options through, and rejects a mistyped gpushare flag before the program", async () => {
    const { env, server } = await serve(() => ({ status: 201, body: sampleJob() }));
    const ok = await runClientCli(['submit', '--gpu', '0.5', 'python', '-c', 'print(1)', '--', '-x'], { env });
    expect(ok.code).toBe(0);
    expect((server.requests[0]?.body as { command: string[] }).command).toEqual([
      'python',
      '-c',
      'print(1)',
      '--',
      '-x',
    ]);
    const typo = await runClientCli(['submit', '--gpuu', '0.5', '--', 'python'], { env });
    expect(typo.code).toBe(2);
    expect(typo.stderr).toBe(
      "error: unknown option '--gpuu' (see `gpushare submit --help`; put the job's command after --: " +
        'gpushare submit [options] -- CMD ARGS...)\n',
    );
    expect(server.requests).toHaveLength(1);
  });

  it('needs a command', async () => {
    const { env } = await serve(() => ({ status: 201, body: sampleJob() }));
    const run = await runClientCli(['submit', '--gpu', '0.5'], { env });
    expect(run.code).toBe(2);
    expect(run.stderr).toContain("missing required argument 'command'");
  });

  it.each([
    ['succeeded', { state: 'succeeded', exitCode: 0 }, 0],
    ['failed with exit code 3', { state: 'failed', exitCode: 3 }, 3],
    ['failed without exit code', { state: 'failed', exitCode: null, reason: 'launch failed' }, 1],
    ['killed by SIGKILL', { state: 'failed', exitCode: null, signal: 'SIGKILL', reason: 'time limit' }, 137],
    ['cancelled', { state: 'cancelled', exitCode: null, signal: 'SIGTERM' }, 130],
  ] as const)('--wait follows the job and exits with its status: %s', async (_label, end, status) => {
    let polls = 0;
    const { env } = await serve((r) => {
      if (r.method === 'POST') return { status: 201, body: sampleJob({ id: 9, state: 'pending', placement: null }) };
      polls += 1;
      return {
        status: 200,
        body:
          polls < 3
            ? sampleJobDetail({ id: 9, state: polls === 1 ? 'pending' : 'running' })
            : sampleJobDetail({ id: 9, ...end }),
      };
    });
    const run = await runClientCli(['submit', '--wait', '--gpu', '0.5', '--', 'train'], { env });
    expect(run.code).toBe(status);
    expect(run.stdout).toBe('submitted job 9 (gpu 0.5 × 1, mode auto)\n9\n');
    expect(run.stderr).toContain('job 9: pending\njob 9: running on GPU 0\njob 9 ');
    expect(polls).toBe(3);
  });

  it(
    '--wait prints a line when a retry starts, even when the poll missed the pending state between ' + 'attempts',
    async () => {
      const polls = [
        { state: 'running', attempt: 1 },
        { state: 'running', attempt: 1 },
        { state: 'running', attempt: 2 },
        { state: 'running', attempt: 2 },
        { state: 'succeeded', attempt: 2, exitCode: 0 },
      ] as const;
      let poll = 0;
      const { env } = await serve((r) => {
        if (r.method === 'POST')
          return { status: 201, body: sampleJob({ id: 9, state: 'pending', placement: null, retries: 1 }) };
        const at = polls[Math.min(poll, polls.length - 1)]!;
        poll += 1;
        return { status: 200, body: sampleJobDetail({ id: 9, ...at }) };
      });
      const run = await runClientCli(['submit', '--wait', '--retries', '1', '--', 'train'], { env });
      expect(run.code).toBe(0);
      expect(run.stderr).toBe(
        'job 9: running on GPU 0\njob 9: running (attempt 2) on GPU 0\njob 9 succeeded (exit code 0)\n',
      );
    },
  );

  it('--help says an admin\'s job goes to tenant "default" without --tenant', async () => {
    const run = await runClientCli(['submit', '--help'], { env: {} });
    expect(run.code).toBe(0);
    const help = run.stdout.replace(/\s+/g, ' ');
    expect(help).toContain(
      '--tenant <tenant> owner tenant (default: the token\'s tenant; for an admin token, tenant "default")',
    );
    expect(help).not.toContain('admins must give it');
    expect(help).toContain('--preemptible may be preempted');
    expect(help).toContain('--no-preemptible not preempted');
  });
});

describe('gpushare submit --isolation and memory-only requests', () => {
  it('sends isolation, and leaves gpuMilli to the server when only --gpu-memory is given', async () => {
    const { env, server } = await serve((r) => ({
      status: 201,
      body: sampleJob({
        id: 9,
        state: 'pending',
        placement: null,
        gpu: {
          gpuMilli: 188,
          isolation: 'strict',
          ...(r.body as { gpu: Partial<JobView['gpu']> }).gpu,
        } as JobView['gpu'],
      }),
    }));
    const run = await runClientCli(['submit', '--gpu-memory', '15GiB', '--isolation', 'strict', '--', 'true'], {
      env,
      cwd: '/tmp',
    });
    expect(run.code).toBe(0);
    expect((server.requests[0]!.body as { gpu: unknown }).gpu).toEqual({
      gpuCount: 1,
      gpuMemoryMiB: 15360,
      mode: 'auto',
      isolation: 'strict',
    });
  });
});
