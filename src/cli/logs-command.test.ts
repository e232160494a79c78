/**
 * `gpushare logs` of jobs with several attempts (retried, or preempted and resumed), run in-process
 * against a fake server that keeps each attempt's output.
 */
import { afterEach, describe, expect, it } from 'vitest';
import type { JobDetailView } from '../contract/api.js';
import { sampleJobDetail } from '../adapters/http-client/testing/api-fixtures.js';
import { startFakeApiServer, type FakeApiServer } from '../adapters/http-client/testing/fake-api-server.js';
import { attemptHeader } from './logs-command.js';
import { runClientCli } from './testing/run-client-cli.js';

let server: FakeApiServer | undefined;

afterEach(async () => {
  await server?.close();
  server = undefined;
});

/** One attempt of the fake job: its stdout and stderr so far, and how it ended (null: running). */
interface FakeAttempt {
  stdout: string;
  stderr: string;
  end: { reason: string; exitCode: number | null } | null;
}

/** Job 12 with `attempts`; `onLogsRead` may change them (and the state) before each log read is answered. */
interface FakeJob {
  state: JobDetailView['state'];
  attempts: FakeAttempt[];
  onLogsRead?: (read: number) => void;
}

async function serveJob(job: FakeJob): Promise<{ env: Record<string, string>; server: FakeApiServer }> {
  let reads = 0;
  server = await startFakeApiServer((r) => {
    if (r.path === '/api/v1/jobs/12') {
      return {
        status: 200,
        body: sampleJobDetail({
          state: job.state,
          attempt: job.attempts.length,
          attempts: job.attempts.map((a, i) => ({
            attempt: i + 1,
            startedAt: '2025-01-01T00:00:01.000Z',
            endedAt: a.end === null ? null : '2025-01-01T00:01:00.000Z',
            exitCode: a.end?.exitCode ?? null,
            signal: null,
            endReason: a.end?.reason ?? null,
          })),
        }),
      };
    }
    if (r.path !== '/api/v1/jobs/12/logs')
      return { status: 404, body: { error: { code: 'NOPE', message: `no route ${r.path}` } } };
    reads += 1;
    job.onLogsRead?.(reads);
    const latest = job.attempts.length;
    const attempt = r.query.get('attempt') === null ? latest : Number(r.query.get('attempt'));
    const record = job.attempts[attempt - 1];
    if (record === undefined)
      return {
        status: 422,
        body: {
          error: {
            code: 'GPUSHARE_INVALID_FIELD',
            message: `attempt: job 12 has attempts 1..${latest}, got ${attempt}`,
          },
        },
      };
    const text = r.query.get('stream') === 'stderr' ? record.stderr : record.stdout;
    const offset = Number(r.query.get('offset'));
    const ended = record.end !== null || ['succeeded', 'failed', 'cancelled'].includes(job.state);
    return {
      status: 200,
      body: { attempt, text: text.slice(offset), nextOffset: text.length, ended: ended && offset >= text.length },
    };
  });
  return { server, env: { GPUSHARE_URL: server.url, GPUSHARE_TOKEN: 'gs_test', XDG_CONFIG_HOME: '/nonexistent' } };
}

const preemptedThenDone = (): FakeJob => ({
  state: 'succeeded',
  attempts: [
    {
      stdout: 'starting from step 0\ncheckpointed at step 42\n',
      stderr: 'warn 1\n',
      end: { reason: 'preempted', exitCode: 75 },
    },
    { stdout: 'resumed at step 42\ndone\n', stderr: '', end: { reason: 'exited', exitCode: 0 } },
  ],
});

describe('gpushare logs with several attempts', () => {
  it('prints every attempt in order, each after a header saying why it ended', async () => {
    const { env, server } = await serveJob(preemptedThenDone());
    const run = await runClientCli(['logs', '12'], { env });
    expect(run).toEqual({
      code: 0,
      stdout: [
        '==> attempt 1 of 2 (preempted) <==',
        'starting from step 0',
        'checkpointed at step 42',
        '==> attempt 2 of 2 (exited, exit code 0) <==',
        'resumed at step 42',
        'done',
        '',
      ].join('\n'),
      stderr: '',
    });
    expect(server.requests.map((r) => `${r.path} ${r.query.toString()}`)).toEqual([
      '/api/v1/jobs/12/logs stream=stdout&offset=0',
      '/api/v1/jobs/12 ',
      '/api/v1/jobs/12/logs stream=stdout&attempt=1&offset=0',
      '/api/v1/jobs/12/logs stream=stdout&attempt=1&offset=45',
      '/api/v1/jobs/12/logs stream=stdout&offset=24',
    ]);
  });

  it('--stderr does the same with standard error; an empty attempt has just its header', async () => {
    const { env } = await serveJob(preemptedThenDone());
    const run = await runClientCli(['logs', '12', '--stderr'], { env });
    expect(run.stdout).toBe(
      '==> attempt 1 of 2 (preempted) <==\nwarn 1\n==> attempt 2 of 2 (exited, exit code 0) <==\n',
    );
  });

  it('--attempt N prints only that attempt, without a header', async () => {
    const { env } = await serveJob(preemptedThenDone());
    expect(await runClientCli(['logs', '12', '--attempt', '1'], { env })).toEqual({
      code: 0,
      stdout: 'starting from step 0\ncheckpointed at step 42\n',
      stderr: '',
    });
    expect(await runClientCli(['logs', '12', '--attempt', '2'], { env })).toEqual({
      code: 0,
      stdout: 'resumed at step 42\ndone\n',
      stderr: '',
    });
  });

  it('a job with one attempt gets just its text, no header', async () => {
    const { env } = await serveJob({
      state: 'succeeded',
      attempts: [{ stdout: 'only\n', stderr: '', end: { reason: 'exited', exitCode: 0 } }],
    });
    expect(await runClientCli(['logs', '12'], { env })).toEqual({ code: 0, stdout: 'only\n', stderr: '' });
  });

  it('a preempted job waiting to resume: its latest attempt is marked preempted', async () => {
    const { env } = await serveJob({
      state: 'preempted',
      attempts: [
        { stdout: 'one\n', stderr: '', end: { reason: 'preempted', exitCode: 75 } },
        { stdout: 'two\n', stderr: '', end: { reason: 'preempted', exitCode: 75 } },
      ],
    });
    const run = await runClientCli(['logs', '12'], { env });
    expect(run.stdout).toBe('==> attempt 1 of 2 (preempted) <==\none\n==> attempt 2 of 2 (preempted) <==\ntwo\n');
  });

  it(
    '-f prints the earlier attempts, follows the latest, and marks an attempt that starts meanwhile ' + 'with a header',
    async () => {
      // Attempt 2 runs when `logs -f` starts; it writes more, is preempted, and attempt 3 runs to the end.
      const job: FakeJob = {
        state: 'running',
        attempts: [
          { stdout: 'a1\n', stderr: '', end: { reason: 'time-limit', exitCode: null } },
          { stdout: 'a2 start\n', stderr: '', end: null },
        ],
        onLogsRead: (read) => {
          const [, second] = job.attempts;
          if (read === 5) second!.stdout += 'a2 more\n';
          if (read === 7) {
            second!.end = { reason: 'preempted', exitCode: 75 };
            job.state = 'preempted';
          }
          if (read === 9) {
            job.attempts.push({ stdout: 'a3\n', stderr: '', end: null });
            job.state = 'running';
          }
          if (read === 11) {
            job.attempts[2]!.end = { reason: 'exited', exitCode: 0 };
            job.state = 'succeeded';
          }
        },
      };
      const { env } = await serveJob(job);
      const run = await runClientCli(['logs', '12', '-f'], { env });
      expect(run).toEqual({
        code: 0,
        stdout: [
          '==> attempt 1 of 2 (time-limit) <==',
          'a1',
          '==> attempt 2 of 2 (running) <==',
          'a2 start',
          'a2 more',
          '==> attempt 3 of 3 (running) <==',
          'a3',
          '',
        ].join('\n'),
        stderr: '',
      });
    },
  );
});

describe('gpushare logs -f when attempts come and go between two polls', () => {
  const jumpingJob = (first: number): FakeJob => {
    const done = (text: string, reason: string): FakeAttempt => ({
      stdout: text,
      stderr: '',
      end: { reason, exitCode: 75 },
    });
    const job: FakeJob = {
      state: 'running',
      attempts: [
        ...Array.from({ length: first - 1 }, (_, i) => done(`a${i + 1}\n`, 'preempted')),
        { stdout: `a${first}\n`, stderr: '', end: null },
      ],
      onLogsRead: (read) => {
        if (read !== 4) return;
        // Before the 4th read: the running attempt was preempted, the next one too, and one more runs to the end.
        job.attempts[first - 1] = done(`a${first}\nmore\n`, 'preempted');
        job.attempts.push(done(`a${first + 1}\n`, 'preempted'), {
          stdout: `a${first + 2}\n`,
          stderr: '',
          end: { reason: 'exited', exitCode: 0 },
        });
        job.state = 'succeeded';
      },
    };
    return job;
  };

  it('with headers: each missed attempt gets its header and text', async () => {
    const { env } = await serveJob(jumpingJob(2));
    const run = await runClientCli(['logs', '12', '-f'], { env });
    expect(run).toEqual({
      code: 0,
      stdout: [
        '==> attempt 1 of 2 (preempted) <==',
        'a1',
        '==> attempt 2 of 2 (running) <==',
        'a2',
        'more',
        '==> attempt 3 of 4 (preempted) <==',
        'a3',
        '==> attempt 4 of 4 (exited, exit code 0) <==',
        'a4',
        '',
      ].join('\n'),
      stderr: '',
    });
  });

  it('without headers (one attempt when it started): a note on stderr for each new attempt', async () => {
    const { env } = await serveJob(jumpingJob(1));
    const run = await runClientCli(['logs', '12', '-f'], { env });
    expect(run).toEqual({
      code: 0,
      stdout: 'a1\nmore\na2\na3\n',
      stderr: '--- job 12: attempt 2 ---\n--- job 12: attempt 3 ---\n',
    });
  });
});

describe('attemptHeader', () => {
  const attempts = (endReason: string | null, endedAt: string | null, exitCode: number | null = null) => ({
    attempts: [{ attempt: 1, startedAt: '2025-01-01T00:00:01.000Z', endedAt, exitCode, signal: null, endReason }],
  });

  it.each([
    ['preempted', attempts('preempted', '2025-01-01T00:01:00.000Z', 75), '==> attempt 1 of 2 (preempted) <==\n'],
    [
      'exited with a code',
      attempts('exited', '2025-01-01T00:01:00.000Z', 3),
      '==> attempt 1 of 2 (exited, exit code 3) <==\n',
    ],
    ['lost', attempts('lost', '2025-01-01T00:01:00.000Z'), '==> attempt 1 of 2 (lost) <==\n'],
    ['running', attempts(null, null), '==> attempt 1 of 2 (running) <==\n'],
    ['ended without a reason', attempts(null, '2025-01-01T00:01:00.000Z'), '==> attempt 1 of 2 (ended) <==\n'],
    ['unknown to the job yet', { attempts: [] }, '==> attempt 1 of 2 (running) <==\n'],
  ])('%s', (_label, job, header) => {
    expect(attemptHeader(1, 2, job)).toBe(header);
  });

  it('never says "of" less than the attempt itself', () => {
    expect(attemptHeader(3, 2, { attempts: [] })).toBe('==> attempt 3 of 3 (running) <==\n');
  });
});
