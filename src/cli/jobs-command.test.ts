/**
 * `gpushare jobs` in process against a fake server that pages like the real one (`limit`, `after`,
 * `nextAfter`): one request for a listing of up to 5,000 jobs; across pages every job printed once
 * and in order, the first page printed before the next is asked for, aligned tables across pages,
 * one JSON array; and the flags as query parameters.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { sampleJob } from '../adapters/http-client/testing/api-fixtures.js';
import {
  startFakeApiServer,
  type FakeApiServer,
  type RecordedRequest,
} from '../adapters/http-client/testing/fake-api-server.js';
import { jobListingAnswer } from '../adapters/http-client/testing/job-listing-answer.js';
import type { JobView } from '../contract/api.js';
import { runClientCli } from './testing/run-client-cli.js';

let server: FakeApiServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

/** A fake server holding `jobs`, answering pages as `GET /api/v1/jobs` does; `onPage` sees each request first. */
async function pagingServer(
  jobs: readonly JobView[],
  onPage: (request: RecordedRequest) => void = () => undefined,
): Promise<{ env: Record<string, string>; server: FakeApiServer }> {
  server = await startFakeApiServer((request) => {
    onPage(request);
    return jobListingAnswer(jobs, request);
  });
  return { server, env: { GPUSHARE_URL: server.url, GPUSHARE_TOKEN: 'gs_test', XDG_CONFIG_HOME: '/nonexistent' } };
}

const manyJobs = (count: number): JobView[] =>
  Array.from({ length: count }, (_, i) =>
    sampleJob({ id: i + 1, name: `job-${i + 1}`, state: 'pending', placement: null, reason: null }),
  );

describe('gpushare jobs: one request', () => {
  it('asks once for a listing of up to 5,000 jobs (1,200 here), laid out as one table', async () => {
    const jobs = manyJobs(1200);
    const { env, server } = await pagingServer(jobs);
    const run = await runClientCli(['jobs'], { env });
    expect(run.code).toBe(0);
    expect(server.requests).toHaveLength(1);
    // The table's rows as the server writes them: no job fields asked for.
    expect(Object.fromEntries(server.requests[0]!.query)).toEqual({ all: 'false', limit: '5000', view: 'table' });
    const lines = run.stdout.trimEnd().split('\n');
    expect(lines).toHaveLength(1201);
    expect(lines.slice(1).map((l) => Number(l.split(' ')[0]))).toEqual(jobs.map((j) => j.id));
    // One page: each column as wide as its widest cell (no minimum widths of a paged listing).
    expect(lines[0]).toBe('ID    NAME      TENANT  STATE    GPU      MODE  AGE/REASON');
    expect(lines[1]).toBe('1     job-1     team-a  pending  0.5 × 1  auto  5m');
  });

  it('asks for no more than --limit, and past 5,000 jobs in pages of 5,000', async () => {
    const { env, server } = await pagingServer(manyJobs(5003));
    const run = await runClientCli(['jobs', '--limit', '700', '-o', 'json', '--fields', 'name'], { env });
    expect((JSON.parse(run.stdout) as unknown[]).length).toBe(700);
    expect(server.requests.map((r) => r.query.get('limit'))).toEqual(['700']);
    const all = await runClientCli(['jobs', '-o', 'json', '--fields', 'name'], { env });
    expect((JSON.parse(all.stdout) as { id: number }[]).map((j) => j.id)).toEqual(
      Array.from({ length: 5003 }, (_, i) => i + 1),
    );
    expect(server.requests.slice(1).map((r) => [r.query.get('limit'), r.query.get('after')])).toEqual([
      ['5000', null],
      ['5000', '5000'],
    ]);
  });
});

describe('gpushare jobs: --page-size', () => {
  it('prints every job once, in order, across pages; the header once; columns aligned by the first page', async () => {
    const jobs = manyJobs(11);
    jobs[9] = { ...jobs[9]!, name: 'a-much-longer-name-than-the-first-page-had' };
    const { env, server } = await pagingServer(jobs);
    const run = await runClientCli(['jobs', '--page-size', '4'], { env });
    expect(run.code).toBe(0);
    const lines = run.stdout.trimEnd().split('\n');
    expect(lines[0]).toBe('ID       NAME              TENANT    STATE      GPU      MODE       AGE/REASON');
    expect(lines.slice(1).map((l) => Number(l.split(' ')[0]))).toEqual(jobs.map((j) => j.id));
    expect(lines[1]).toBe('1        job-1             team-a    pending    0.5 × 1  auto       5m');
    expect(lines[10]).toBe('10       a-much-longer-n…  team-a    pending    0.5 × 1  auto       5m');
    expect(server.requests.map((r) => [r.query.get('limit'), r.query.get('after')])).toEqual([
      ['4', null],
      ['4', '4'],
      ['4', '8'],
    ]);
  });

  it('prints the first page before it asks for the next one (and so before the last)', async () => {
    let printed = '';
    const printedAtRequest: string[] = [];
    const { env } = await pagingServer(manyJobs(5), () => printedAtRequest.push(printed));
    const run = await runClientCli(['jobs', '--page-size', '2'], {
      env,
      onStdout: (text) => {
        printed += text;
      },
    });
    expect(run.code).toBe(0);
    expect(printedAtRequest).toHaveLength(3);
    expect(printedAtRequest[0]).toBe('');
    const printedIds = (text: string): number[] =>
      text
        .trimEnd()
        .split('\n')
        .slice(1)
        .map((l) => Number(l.split(' ')[0]));
    expect(printedIds(printedAtRequest[1]!)).toEqual([1, 2]);
    // Later pages are asked for while the one before is printed: the first page is out by then.
    expect(printedIds(printedAtRequest[2]!).slice(0, 2)).toEqual([1, 2]);
    expect(printedIds(printed)).toEqual([1, 2, 3, 4, 5]);
  });

  it('-o json prints one JSON array of every job, the same text as the whole array at once', async () => {
    const jobs = manyJobs(7);
    const { env } = await pagingServer(jobs);
    const run = await runClientCli(['jobs', '-o', 'json', '--page-size', '3'], { env });
    expect(run.code).toBe(0);
    expect(run.stdout).toBe(`${JSON.stringify(jobs, null, 2)}\n`);
    const none = await runClientCli(['jobs', '-o', 'json', '--state', 'failed'], {
      env: { ...env, GPUSHARE_URL: (await pagingServer([])).env.GPUSHARE_URL! },
    });
    expect(none.stdout).toBe('[]\n');
  });

  it('--limit stops after N jobs, asking for no more than it prints', async () => {
    const { env, server } = await pagingServer(manyJobs(20));
    const run = await runClientCli(['jobs', '--limit', '7', '--page-size', '3', '-o', 'json'], { env });
    expect((JSON.parse(run.stdout) as JobView[]).map((j) => j.id)).toEqual([1, 2, 3, 4, 5, 6, 7]);
    expect(server.requests.map((r) => r.query.get('limit'))).toEqual(['3', '3', '1']);
  });
});

describe('gpushare jobs: a server older than view=table', () => {
  it('lists the same table from the jobs fields when the server refuses view=table', async () => {
    const jobs = manyJobs(3);
    const { env: newEnv } = await pagingServer(jobs);
    const expected = await runClientCli(['jobs'], { env: newEnv });
    await server?.close();
    // What a server whose strict query does not know `view` answers (its error handler's words).
    server = await startFakeApiServer((request) =>
      request.query.has('view')
        ? {
            status: 400,
            body: {
              error: {
                code: 'GPUSHARE_INVALID_FIELD',
                message: "querystring: Unrecognized key(s) in object: 'view'",
              },
            },
          }
        : jobListingAnswer(jobs, request),
    );
    const env = { GPUSHARE_URL: server.url, GPUSHARE_TOKEN: 'gs_test', XDG_CONFIG_HOME: '/nonexistent' };
    const run = await runClientCli(['jobs'], { env });
    expect(run).toEqual({ code: 0, stdout: expected.stdout, stderr: '' });
    expect(run.stdout.split('\n')[1]).toBe('1   job-1  team-a  pending  0.5 × 1  auto  5m');
    expect(server.requests.map((r) => r.query.get('view') ?? r.query.get('fields'))).toEqual([
      'table',
      'id,name,tenant,state,gpu,placement,submittedAt,reason,reasonCode,attempt',
    ]);
  });

  it('falls back only before anything is printed: a refusal of a later page fails the listing', async () => {
    const jobs = manyJobs(5);
    let tables = 0;
    const refusal = {
      status: 400,
      body: {
        error: { code: 'GPUSHARE_INVALID_FIELD', message: "querystring: Unrecognized key(s) in object: 'view'" },
      },
    };
    server = await startFakeApiServer((request) =>
      request.query.has('view') && ++tables > 1 ? refusal : jobListingAnswer(jobs, request),
    );
    const env = { GPUSHARE_URL: server.url, GPUSHARE_TOKEN: 'gs_test', XDG_CONFIG_HOME: '/nonexistent' };
    const run = await runClientCli(['jobs', '--page-size', '2'], { env });
    expect(run.code).toBe(1);
    expect(run.stdout.split('\n').filter((line) => line.startsWith('ID '))).toHaveLength(1);
    expect(run.stdout.trimEnd().split('\n')).toHaveLength(3);
    expect(server.requests.every((r) => r.query.get('view') === 'table')).toBe(true);
  });

  it("escapes control characters in the server's column titles as in its cells", async () => {
    server = await startFakeApiServer(() => ({
      status: 200,
      body: { columns: ['ID\u001b[31m', 'X'], rows: [['1', 'a\u0007']], nextAfter: null },
    }));
    const env = { GPUSHARE_URL: server.url, GPUSHARE_TOKEN: 'gs_test', XDG_CONFIG_HOME: '/nonexistent' };
    const run = await runClientCli(['jobs'], { env });
    expect(run).toEqual({ code: 0, stdout: 'ID\\x1b[31m  X\n1           a\\x07\n', stderr: '' });
  });

  it('passes on any other refusal as it is', async () => {
    server = await startFakeApiServer(() => ({
      status: 400,
      body: { error: { code: 'GPUSHARE_INVALID_FIELD', message: 'name: a pattern of 1-200 characters' } },
    }));
    const env = { GPUSHARE_URL: server.url, GPUSHARE_TOKEN: 'gs_test', XDG_CONFIG_HOME: '/nonexistent' };
    const run = await runClientCli(['jobs'], { env });
    expect([run.code, run.stderr, server.requests.length]).toEqual([
      1,
      'error: name: a pattern of 1-200 characters\n',
      1,
    ]);
  });
});

describe('gpushare jobs: selectors and fields', () => {
  it(
    'passes --state, --tenant, --name, --since (a duration back from now) and --fields as query ' + 'parameters',
    async () => {
      const { env, server } = await pagingServer([]);
      const run = await runClientCli(
        [
          'jobs',
          '--state',
          'pending,running',
          '--tenant',
          'team-a',
          '--name',
          'train-*',
          '--since',
          '1h',
          '--fields',
          'state,name',
        ],
        { env },
      );
      expect(run).toEqual({ code: 0, stdout: 'no jobs\n', stderr: '' });
      expect(Object.fromEntries(server.requests[0]!.query)).toEqual({
        all: 'true',
        state: 'pending,running',
        tenant: 'team-a',
        name: 'train-*',
        since: '2024-12-31T23:05:00.000Z',
        fields: 'id,name,state',
        limit: '5000',
      });
    },
  );

  it('--fields prints a column per field, id first', async () => {
    const { env } = await pagingServer([sampleJob({ id: 3, name: 'x', command: ['a', 'b'], placement: null })]);
    const run = await runClientCli(['jobs', '--fields', 'command,placement,name'], { env });
    expect(run.stdout).toBe('id  name  command  placement\n3   x     a b      -\n');
  });

  it.each([
    [
      ['--state', 'pending,bogus'],
      '--state takes one or more of pending, scheduled, running, preempted, succeeded, failed, ' +
        "cancelled, comma-separated; got 'bogus'",
    ],
    [['--fields', 'name,secret'], '--fields takes one or more of id, name'],
    [['--page-size', '0'], '--page-size takes a whole number from 1 to 5000'],
    [['--limit', 'ten'], '--limit takes a whole number from 1'],
    [['--since', 'yesterday'], "'yesterday' is neither an ISO 8601 time"],
  ])('refuses %j with exit 2 naming the flag', async (args, message) => {
    const { env, server } = await pagingServer([]);
    const run = await runClientCli(['jobs', ...args], { env });
    expect(run.code).toBe(2);
    expect(run.stderr).toContain(message);
    expect(server.requests).toEqual([]);
  });
});
