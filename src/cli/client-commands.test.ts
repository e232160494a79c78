/**
 * The client commands run in-process (through commander, as `gpushare ...` would) against a fake
 * server built with node:http.
 */
import { afterEach, describe, expect, it } from 'vitest';
import {
  sampleGpu,
  sampleJob,
  sampleJobDetail,
  sampleStatus,
  sampleTenant,
  sampleToken,
} from '../adapters/http-client/testing/api-fixtures.js';
import {
  startFakeApiServer,
  unusedLocalUrl,
  type FakeApiServer,
  type FakeResponse,
  type RecordedRequest,
} from '../adapters/http-client/testing/fake-api-server.js';
import { jobListingAnswer } from '../adapters/http-client/testing/job-listing-answer.js';
import { main } from '../main/cli.js';
import type { JobDetailView } from '../contract/api.js';
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

const notFound = (message: string): FakeResponse => ({
  status: 404,
  body: { error: { code: 'GPUSHARE_JOB_NOT_FOUND', message } },
});

describe('gpushare jobs', () => {
  it('-o json prints exactly a JSON array of jobs', async () => {
    const jobs = [sampleJob({ id: 1 }), sampleJob({ id: 2, state: 'succeeded', exitCode: 0 })];
    const { env, server } = await serve(() => ({ status: 200, body: { jobs, nextAfter: null } }));
    const run = await runClientCli(['jobs', '--all', '-o', 'json'], { env });
    expect(run.code).toBe(0);
    const parsed = JSON.parse(run.stdout) as { id: number; state: string }[];
    expect(Array.isArray(parsed)).toBe(true);
    expect(parsed.map((j) => [j.id, j.state])).toEqual([
      [1, 'running'],
      [2, 'succeeded'],
    ]);
    expect(server.requests[0]?.query.toString()).toBe('all=true&limit=5000');
  });

  it('prints a table with age and reason', async () => {
    const { env, server } = await serve((request) =>
      jobListingAnswer(
        [
          sampleJob({
            id: 3,
            name: 'big',
            state: 'pending',
            reason: 'no GPU has 800 milli free',
            placement: null,
            gpu: { gpuCount: 2, gpuMilli: 800, gpuMemoryMiB: null, mode: 'mps', isolation: 'standard' },
          }),
          sampleJob(),
        ],
        request,
      ),
    );
    const run = await runClientCli(['jobs'], { env });
    expect(run.code).toBe(0);
    expect(run.stdout).toBe(
      [
        'ID  NAME   TENANT  STATE    GPU      MODE  AGE/REASON',
        '3   big    team-a  pending  0.8 × 2  mps   5m  no GPU has 800 milli free',
        '12  train  team-a  running  0.5 × 1  mps   5m  on GPU 0',
        '',
      ].join('\n'),
    );
    expect(server.requests[0]?.query.toString()).toBe('all=false&limit=5000&view=table');
  });

  it(
    'shows preempted jobs with their reason, and GPUs instead of "attempt N started (pid …)" for ' + 'running ones',
    async () => {
      const twoGpus = {
        ...sampleJob().placement!,
        gpus: [0, 1].map((index) => ({ ...sampleJob().placement!.gpus[0]!, index })),
      };
      const { env } = await serve((request) =>
        jobListingAnswer(
          [
            sampleJob({
              id: 1,
              name: 'low',
              state: 'preempted',
              reason: 'preempted by job 2 (priority 1000, tenant team-b)',
              placement: null,
              attempt: 1,
            }),
            sampleJob({ id: 2, name: 'crit', reason: 'attempt 1 started (pid 4242)', reasonCode: 'attempt-started' }),
            sampleJob({
              id: 3,
              name: 'resumed',
              reason: 'attempt 2 started (pid 4343)',
              reasonCode: 'attempt-started',
              attempt: 2,
              placement: twoGpus,
            }),
            sampleJob({
              id: 4,
              name: 'old',
              reason: 'attempt 1 had started before the restart',
              reasonCode: 'attempt-recovered',
            }),
            sampleJob({ id: 5, name: 'stopping', reason: 'cancel requested by admin' }),
          ],
          request,
        ),
      );
      const run = await runClientCli(['jobs'], { env });
      expect(run.code).toBe(0);
      expect(run.stdout).toBe(
        [
          'ID  NAME      TENANT  STATE      GPU      MODE  AGE/REASON',
          '1   low       team-a  preempted  0.5 × 1  auto  5m  preempted by job 2 (priority 1000, tenant team-b)',
          '2   crit      team-a  running    0.5 × 1  mps   5m  on GPU 0',
          '3   resumed   team-a  running    0.5 × 1  mps   5m  on GPU 0, 1, attempt 2',
          '4   old       team-a  running    0.5 × 1  mps   5m  on GPU 0',
          '5   stopping  team-a  running    0.5 × 1  mps   5m  on GPU 0; cancel requested by admin',
          '',
        ].join('\n'),
      );
      expect(run.stdout).not.toContain('pid');
    },
  );

  it('--state preempted asks the server for preempted jobs', async () => {
    const { env, server } = await serve((request) => jobListingAnswer([], request));
    const run = await runClientCli(['jobs', '--state', 'preempted'], { env });
    expect(run).toEqual({ code: 0, stdout: 'no jobs\n', stderr: '' });
    expect(server.requests[0]?.query.get('all')).toBe('true');
    expect(server.requests[0]?.query.get('state')).toBe('preempted');
  });
});

describe('gpushare show', () => {
  it("404 exits 1 with the server's message", async () => {
    const { env } = await serve(() => notFound('job 77 not found'));
    const run = await runClientCli(['show', '77'], { env });
    expect(run.code).toBe(1);
    expect(run.stderr).toBe('error: job 77 not found\n');
    expect(run.stdout).toBe('');
  });

  it('shows request, placement, events and attempts; -o json is the JobDetail', async () => {
    const detail = sampleJobDetail({
      gpu: { gpuCount: 1, gpuMilli: 500, gpuMemoryMiB: 40960, mode: 'auto', isolation: 'standard' },
    });
    const { env } = await serve(() => ({ status: 200, body: detail }));
    const text = await runClientCli(['show', '12'], { env });
    expect(text.code).toBe(0);
    expect(text.stdout).toContain('request:     gpu 0.5 × 1 (40960 MiB each), mode auto, priority 500 (normal)');
    expect(text.stdout).toContain(
      'placement:   mode mps  [simulated]\nenforced:    memory per process (MPS), compute per process (MPS)\n',
    );
    expect(text.stdout).toMatch(/ {2}0 {4}GPU-sim-0 {2}500 milli \(0\.5\) {2}40960 MiB {2}-/);
    expect(text.stdout).toContain('2025-01-01T00:00:00.500Z  pending    scheduled  placed on GPU 0');
    expect(text.stdout).toContain('environment:\n  SEED=1\n');
    expect(text.stdout).toContain('\npeak use:    none measured\n');
    const json = await runClientCli(['show', '12', '-o', 'json'], { env });
    expect(JSON.parse(json.stdout)).toEqual(detail);
  });

  it("shows the job's measured peak GPU use, '-' for a value never measured", async () => {
    const peaks = [
      { gpuMemoryMiB: 10240, gpuUtilizationPct: 72.5, updatedAt: '2025-01-01T00:00:09.000Z' },
      { gpuMemoryMiB: 512, gpuUtilizationPct: null, updatedAt: '2025-01-01T00:00:09.000Z' },
    ];
    const { env } = await serve((r) => ({
      status: 200,
      body: sampleJobDetail({ usagePeak: peaks[r.path === '/api/v1/jobs/12' ? 0 : 1]! }),
    }));
    const full = await runClientCli(['show', '12'], { env });
    expect(full.stdout).toContain('\npeak use:    10240 MiB GPU memory (on one GPU), 72.5% utilization\n');
    const partial = await runClientCli(['show', '13'], { env });
    expect(partial.stdout).toContain('\npeak use:    512 MiB GPU memory (on one GPU), - utilization\n');
  });

  it("says which default host memory is reserved for a job that asked for none (server's, tenant's)", async () => {
    const limits = (source: 'server-default' | 'tenant-default', mib: number): JobDetailView['hostLimits'] => ({
      pidsMax: 4096,
      hostMemoryMiB: mib,
      hostMemorySource: source,
      cpuWeight: 100,
      cpuQuotaMilli: null,
      events: null,
    });
    const { env } = await serve((r) => ({
      status: 200,
      body: sampleJobDetail({
        hostLimits: r.path === '/api/v1/jobs/12' ? limits('server-default', 1024) : limits('tenant-default', 256),
      }),
    }));
    const server = await runClientCli(['show', '12'], { env });
    expect(server.stdout).toContain("host memory none asked: the server's default 1024 MiB reserved,");
    const tenant = await runClientCli(['show', '13'], { env });
    expect(tenant.stdout).toContain("host memory none asked: its tenant's default 256 MiB reserved,");
  });

  it('says whether the job is preemptible, and lists attempts with why each ended (preempted, running)', async () => {
    const detail = sampleJobDetail({
      attempt: 2,
      preemptible: false,
      priority: 100,
      priorityClass: 'low',
      reason: 'attempt 2 started (pid 4343)',
      reasonCode: 'attempt-started',
      attempts: [
        {
          attempt: 1,
          startedAt: '2025-01-01T00:00:01.000Z',
          endedAt: '2025-01-01T00:01:00.000Z',
          exitCode: 75,
          signal: null,
          endReason: 'preempted',
        },
        {
          attempt: 2,
          startedAt: '2025-01-01T00:02:00.000Z',
          endedAt: null,
          exitCode: null,
          signal: null,
          endReason: null,
        },
      ],
    });
    const { env } = await serve((r) => ({
      status: 200,
      body: r.path === '/api/v1/jobs/12' ? detail : sampleJobDetail({ id: 13 }),
    }));
    const run = await runClientCli(['show', '12'], { env });
    expect(run.code).toBe(0);
    expect(run.stdout).toContain(
      'request:     gpu 0.5 × 1 (memory in proportion), mode auto, priority 100 (low), not preemptible, ' +
        'cpu none reserved,',
    );
    expect(run.stdout).toContain('cpu none reserved, host memory none reserved,');
    expect(run.stdout).toContain('attempt:     2 (1 preempted, not counted against retries 0)\n');
    expect(run.stdout).toContain(
      [
        'attempts:',
        '  #  STARTED                   ENDED                     EXIT  REASON',
        '  1  2025-01-01T00:00:01.000Z  2025-01-01T00:01:00.000Z  75    preempted',
        '  2  2025-01-01T00:02:00.000Z  -                         -     running',
      ].join('\n'),
    );
    const preemptible = await runClientCli(['show', '13'], { env });
    expect(preemptible.stdout).toContain('priority 500 (normal), preemptible, cpu');
    expect(preemptible.stdout).toContain('attempt:     1 of at most 1\n');
  });

  it.each([
    ['show', ''],
    ['cancel', ''],
    ['logs', ' '],
    ['show', '01'],
    ['cancel', '0x1'],
  ])(
    '%s %j: a job id that is not decimal digits is a usage error (exit 2), before calling the server',
    async (command, id) => {
      const { env, server } = await serve(() => ({ status: 200, body: sampleJob() }));
      const run = await runClientCli([command, id], { env });
      expect([run.code, run.stdout]).toEqual([2, '']);
      expect(run.stderr).toContain(
        `error: command-argument value '${id}' is invalid for argument 'id'. '${id}' is not a job id; ` +
          `expected a whole number >= 1 in decimal digits (see \`gpushare jobs\`)`,
      );
      expect(server.requests).toHaveLength(0);
    },
  );

  it('rejects a job id that is not a number with exit 2', async () => {
    const run = await runClientCli(['show', 'abc'], {
      env: { GPUSHARE_URL: 'http://127.0.0.1:1', GPUSHARE_TOKEN: 't' },
    });
    expect(run.code).toBe(2);
    expect(run.stderr).toContain("'abc' is not a job id");
  });
});

describe('connection problems', () => {
  it('exits 3 naming the URL when the server is unreachable', async () => {
    const url = await unusedLocalUrl();
    const run = await runClientCli(['jobs'], { env: { GPUSHARE_URL: url, GPUSHARE_TOKEN: 't' } });
    expect(run.code).toBe(3);
    expect(run.stderr).toBe(
      `error: cannot reach the gpushare server at ${url}: connection refused (is \`gpushare serve\` running?)\n`,
    );
  });

  it('main() has the client commands registered and returns 3 for an unreachable server', async () => {
    const url = await unusedLocalUrl();
    const write = process.stderr.write;
    let stderr = '';
    process.stderr.write = ((text: string) => {
      stderr += text;
      return true;
    }) as typeof process.stderr.write;
    try {
      expect(await main(['node', 'gpushare', 'jobs', '--url', url, '--token', 't'])).toBe(3);
    } finally {
      process.stderr.write = write;
    }
    expect(stderr).toContain(`cannot reach the gpushare server at ${url}`);
  });

  it('exits 2 telling the user to start `gpushare serve` when nothing is configured', async () => {
    const run = await runClientCli(['status'], { env: { XDG_CONFIG_HOME: '/nonexistent-gpushare-test' } });
    expect(run.code).toBe(2);
    expect(run.stderr).toMatch(/^error: no gpushare server configured: start one with `gpushare serve`/);
  });

  it('--url and --token override the environment', async () => {
    const { server } = await serve(() => ({ status: 200, body: { gpus: [] } }));
    const run = await runClientCli(['gpus', '--url', server.url, '--token', 'flagtok'], {
      env: { GPUSHARE_URL: 'http://127.0.0.1:1', GPUSHARE_TOKEN: 'envtok' },
    });
    expect(run.code).toBe(0);
    expect(run.stdout).toBe('no GPUs\n');
    expect(server.requests[0]?.headers.authorization).toBe('Bearer flagtok');
  });

  it('a 401 adds a hint about the token', async () => {
    const { env } = await serve(() => ({
      status: 401,
      body: { error: { code: 'GPUSHARE_UNAUTHENTICATED', message: 'unknown token' } },
    }));
    const run = await runClientCli(['jobs'], { env });
    expect(run.code).toBe(1);
    expect(run.stderr).toBe(
      'error: unknown token (check --token, GPUSHARE_TOKEN or the token in the CLI config file)\n',
    );
  });
});

describe('gpushare logs', () => {
  it('prints what is there without -f', async () => {
    const { env, server } = await serve((r) => {
      const offset = Number(r.query.get('offset'));
      return {
        status: 200,
        body:
          offset === 0
            ? { attempt: 1, text: 'a\n', nextOffset: 2, ended: false }
            : { attempt: 1, text: '', nextOffset: offset, ended: false },
      };
    });
    const run = await runClientCli(['logs', '12', '--stderr'], { env });
    expect(run.code).toBe(0);
    expect(run.stdout).toBe('a\n');
    expect(server.requests.map((r) => r.query.toString())).toEqual([
      'stream=stderr&offset=0',
      'stream=stderr&offset=2',
    ]);
  });

  it('says on stderr that a job has not started yet, prints nothing on stdout and exits 0', async () => {
    const { env, server } = await serve((r) => {
      if (r.path === '/api/v1/jobs/12')
        return {
          status: 200,
          body: sampleJobDetail({ state: 'pending', attempt: 0, placement: null, startedAt: null, attempts: [] }),
        };
      return { status: 200, body: { attempt: 1, text: '', nextOffset: 0, ended: false } };
    });
    const run = await runClientCli(['logs', '12'], { env });
    expect(run.code).toBe(0);
    expect(run.stdout).toBe('');
    expect(run.stderr).toBe('job 12 has not started yet (state pending)\n');
    expect(server.requests.map((r) => r.path)).toEqual(['/api/v1/jobs/12/logs', '/api/v1/jobs/12']);
  });

  it('-f on a job that has not started says it waits; a job cancelled before it started never started', async () => {
    // Job 12 is pending for the first two log reads, then has run and written "done\n".
    let reads = 0;
    const { env } = await serve((r) => {
      const started = reads > 2;
      if (r.path === '/api/v1/jobs/12')
        return {
          status: 200,
          body: sampleJobDetail({
            state: started ? 'succeeded' : 'pending',
            attempt: started ? 1 : 0,
            placement: null,
            attempts: [],
          }),
        };
      if (r.path === '/api/v1/jobs/13')
        return {
          status: 200,
          body: sampleJobDetail({
            id: 13,
            state: 'cancelled',
            attempt: 0,
            placement: null,
            startedAt: null,
            attempts: [],
          }),
        };
      if (r.path === '/api/v1/jobs/13/logs')
        return { status: 200, body: { attempt: 1, text: '', nextOffset: 0, ended: true } };
      reads += 1;
      const offset = Number(r.query.get('offset'));
      const log = reads > 2 ? 'done\n' : '';
      return { status: 200, body: { attempt: 1, text: log.slice(offset), nextOffset: log.length, ended: reads > 2 } };
    });
    const follow = await runClientCli(['logs', '12', '-f'], { env });
    expect(follow).toEqual({
      code: 0,
      stdout: 'done\n',
      stderr: 'job 12 has not started yet (state pending); waiting for it to start\n',
    });
    const cancelled = await runClientCli(['logs', '13'], { env });
    expect(cancelled).toEqual({ code: 0, stdout: '', stderr: 'job 13 never started (state cancelled)\n' });
  });

  it('says nothing more for a started job whose log is still empty', async () => {
    const { env } = await serve((r) => {
      if (r.path === '/api/v1/jobs/12') return { status: 200, body: sampleJobDetail() };
      return { status: 200, body: { attempt: 1, text: '', nextOffset: 0, ended: false } };
    });
    const run = await runClientCli(['logs', '12'], { env });
    expect(run).toEqual({ code: 0, stdout: '', stderr: '' });
  });

  it("a 422 (an attempt the job does not have) exits 1 with the server's message", async () => {
    const { env } = await serve(() => ({
      status: 422,
      body: { error: { code: 'GPUSHARE_INVALID_FIELD', message: 'attempt: job 12 has 1 attempt(s), not 5' } },
    }));
    const run = await runClientCli(['logs', '12', '--attempt', '5'], { env });
    expect(run.code).toBe(1);
    expect(run.stdout).toBe('');
    expect(run.stderr).toBe('error: attempt: job 12 has 1 attempt(s), not 5\n');
  });

  it('-f follows until the job has ended, across a retry', async () => {
    // attempt 1 writes "one\n" then fails; a retry (attempt 2) writes "two\n" and the job ends.
    let step = 0;
    const { env } = await serve((r) => {
      if (r.path === '/api/v1/jobs/12')
        return { status: 200, body: sampleJobDetail({ state: step < 4 ? 'pending' : 'succeeded' }) };
      const offset = Number(r.query.get('offset'));
      const attempt = r.query.get('attempt');
      step += 1;
      if (attempt === '1' || (attempt === null && step <= 3)) {
        const log = 'one\n';
        return { status: 200, body: { attempt: 1, text: log.slice(offset), nextOffset: log.length, ended: step >= 2 } };
      }
      const log = 'two\n';
      return { status: 200, body: { attempt: 2, text: log.slice(offset), nextOffset: log.length, ended: step >= 6 } };
    });
    const run = await runClientCli(['logs', '12', '-f'], { env });
    expect(run.code).toBe(0);
    expect(run.stdout).toBe('one\ntwo\n');
    expect(run.stderr).toBe('--- job 12: attempt 2 ---\n');
  });
});

describe('gpushare gpus, gpu, tenant, token, cancel, backup, status, drain', () => {
  it('gpus prints one block per GPU with bars and jobs; -o json is an array', async () => {
    const { env } = await serve(() => ({
      status: 200,
      body: {
        gpus: [
          sampleGpu(),
          sampleGpu({
            index: 1,
            uuid: 'GPU-sim-1',
            cordoned: true,
            schedulable: false,
            jobs: [],
            allocatedGpuMilli: 0,
            freeGpuMilli: 1000,
            allocatedGpuMemoryMiB: 0,
            freeGpuMemoryMiB: 81920,
            enforcement: null,
          }),
        ],
      },
    }));
    const run = await runClientCli(['gpus'], { env });
    expect(run.stdout).toBe(
      [
        'GPU 0  NVIDIA A100-SXM4-80GB (A100-SXM4-80GB)  GPU-sim-0  [simulated]',
        '  mode mps, healthy, schedulable',
        '  enforced: memory not enforced, compute not enforced',
        '  compute [##########..........] 500 / 1000 milli used, 500 free',
        '  memory  [##########..........] 40960 / 81920 MiB allocated, 40960 free',
        '  JOB  NAME   TENANT  STATE    SHARE            MEMORY     MIG',
        '  12   train  team-a  running  0.5 (500 milli)  40960 MiB  -',
        '',
        'GPU 1  NVIDIA A100-SXM4-80GB (A100-SXM4-80GB)  GPU-sim-1  [simulated]',
        '  mode mps, healthy, CORDONED, not schedulable',
        '  compute [....................] 0 / 1000 milli used, 1000 free',
        '  memory  [....................] 0 / 81920 MiB allocated, 81920 free',
        '  no jobs',
        '',
      ].join('\n'),
    );
    const json = await runClientCli(['gpus', '-o', 'json'], { env });
    expect((JSON.parse(json.stdout) as unknown[]).length).toBe(2);
  });

  it('gpu cordon / uncordon, cancel, tenant create / list, token create, backup, status', async () => {
    const { env, server } = await serve((r) => {
      switch (`${r.method} ${r.path}`) {
        case 'POST /api/v1/gpus/1/cordon':
          return { status: 200, body: sampleGpu({ index: 1, cordoned: true }) };
        case 'POST /api/v1/gpus/1/uncordon':
          return { status: 200, body: sampleGpu({ index: 1, jobs: [] }) };
        case 'POST /api/v1/jobs/12/cancel':
          return { status: 200, body: sampleJob({ state: 'cancelled' }) };
        case 'POST /api/v1/tenants':
          return { status: 201, body: sampleTenant({ name: 'team-b' }) };
        case 'GET /api/v1/tenants':
          return {
            status: 200,
            body: {
              tenants: [
                sampleTenant({ name: 'team-b' }),
                sampleTenant({
                  name: 'team-c',
                  guaranteedGpuEquivalents: 1.5,
                  limitGpuEquivalents: 2,
                  unixUid: null,
                  maxPriorityClass: 'high',
                }),
              ],
            },
          };
        case 'POST /api/v1/tokens':
          return { status: 201, body: { ...sampleToken({ id: 4 }), token: 'gs_secret' } };
        case 'PUT /api/v1/tenants/team-b/limits':
          return { status: 200, body: sampleTenant({ name: 'team-b', ...(r.body as object) }) };
        case 'POST /api/v1/backup':
          return { status: 200, body: { path: (r.body as { path: string }).path, bytes: 8192 } };
        case 'GET /api/v1/status':
          return { status: 200, body: sampleStatus() };
        default:
          return notFound(`no route ${r.method} ${r.path}`);
      }
    });
    const out = async (...args: string[]) => {
      const run = await runClientCli(args, { env, cwd: '/srv' });
      expect(run.stderr).toBe('');
      expect(run.code).toBe(0);
      return run.stdout;
    };
    expect(await out('gpu', 'cordon', '1')).toBe('GPU 1 cordoned (1 job(s) on it keep running)\n');
    expect(await out('gpu', 'uncordon', '1')).toBe('GPU 1 uncordoned\n');
    expect(await out('cancel', '12')).toBe('cancelled job 12\n');
    expect(await out('tenant', 'create', 'team-b')).toBe('created tenant team-b (its jobs run as uid 200000)\n');
    expect(await out('tenant', 'list')).toBe(
      [
        'NAME    GUARANTEED  LIMIT  MAX PRIORITY  UID     CREATED',
        'team-b  0           none   normal        200000  2025-01-01T00:00:00.000Z',
        'team-c  1.5         2      high          -       2025-01-01T00:00:00.000Z',
        '',
      ].join('\n'),
    );
    expect(
      await out(
        'tenant',
        'set-limits',
        'team-b',
        '--max-priority',
        'critical',
        '--requests-per-second',
        '5',
        '--event-streams',
        'default',
      ),
    ).toBe(
      'limits of tenant team-b: max priority critical, requests/s per token 5 (burst default), event ' +
        'streams per token default\n',
    );
    const noFlags = await runClientCli(['tenant', 'set-limits', 'team-b'], { env });
    expect([noFlags.code, noFlags.stderr]).toEqual([2, expect.stringContaining('give at least one of --max-priority')]);
    const badRate = await runClientCli(['tenant', 'set-limits', 'team-b', '--request-burst', '1.5'], { env });
    expect([badRate.code, badRate.stderr]).toEqual([
      2,
      expect.stringContaining(
        "--request-burst must be a whole number from 1 to 100000, or default (the server's), got '1.5'",
      ),
    ]);
    const token = await out('token', 'create', '--tenant', 'team-b', '--label', 'ci');
    expect(token.trimEnd().split('\n').at(-1)).toBe('gs_secret');
    expect(await out('backup', 'backups/state.db')).toBe('backup written to /srv/backups/state.db (8192 bytes)\n');
    expect(server.requests.find((r) => r.path === '/api/v1/backup')?.body).toEqual({ path: '/srv/backups/state.db' });
    const status = await out('status');
    expect(status).toContain('jobs:        pending 1, running 2\n');
    expect(status).toContain('you:         admin\n');
    expect(status).toContain(
      'checkpoint:  criu: not installed; cuda-checkpoint: not installed; preemption uses the signal protocol\n',
    );
  });

  it('cancel: a pending job is cancelled at once; a running one is being stopped', async () => {
    const { env } = await serve((r) =>
      r.path === '/api/v1/jobs/12/cancel'
        ? { status: 200, body: sampleJob({ state: 'cancelled', reason: 'cancelled by admin' }) }
        : { status: 200, body: sampleJob({ id: 13, state: 'running', reason: 'cancel requested by admin' }) },
    );
    expect(await runClientCli(['cancel', '12'], { env })).toEqual({
      code: 0,
      stdout: 'cancelled job 12\n',
      stderr: '',
    });
    expect(await runClientCli(['cancel', '13'], { env })).toEqual({
      code: 0,
      stdout: 'job 13: cancel requested (it is being stopped)\n',
      stderr: '',
    });
  });

  it('status: "you: tenant T" for a tenant token, pass times rounded to 2 decimals', async () => {
    const { env } = await serve(() => ({
      status: 200,
      body: sampleStatus({
        you: { role: 'tenant-admin', tenant: 'team-a' },
        scheduler: {
          passes: 3,
          lastPassMs: 0.2869970000010653,
          p50PassMs: 0.1,
          p99PassMs: 1.005,
          maxPassMs: 12.3456,
          maxPendingConsidered: 2,
          passesSkipped: 40,
          maxSkippedCheckMs: 0.05,
        },
      }),
    }));
    const run = await runClientCli(['status'], { env });
    expect(run.code).toBe(0);
    expect(run.stdout).toContain('you:         tenant team-a\n');
    expect(run.stdout).toContain(
      'scheduler:   3 passes; last 0.29 ms, p50 0.1 ms, p99 1 ms, max 12.35 ms; at most 2 pending jobs ' +
        'considered; 40 skipped (nothing changed)\n',
    );
    expect(run.stdout).toContain(
      [
        'host limits: cpu enforced, memory not enforced (cgroup controllers of this host)',
        'gpu limits:  exclusive  memory exclusive, compute exclusive',
        '             mig        memory hardware (MIG), compute hardware (MIG)',
        '             mps        memory not enforced, compute not enforced',
        '             timeslice  memory not enforced, compute time-slice',
      ].join('\n'),
    );
  });

  it('gpu cordon needs an index and token create a known role (exit 2)', async () => {
    const env = { GPUSHARE_URL: 'http://127.0.0.1:1', GPUSHARE_TOKEN: 't' };
    expect((await runClientCli(['gpu', 'cordon'], { env })).code).toBe(2);
    expect((await runClientCli(['gpu', 'cordon', 'x'], { env })).code).toBe(2);
    const run = await runClientCli(['token', 'create', '--tenant', 'a', '--role', 'root'], { env });
    expect(run.code).toBe(2);
    expect(run.stderr).toContain(
      "option '--role <role>' argument 'root' is invalid. Allowed choices are member, viewer, tenant-admin, admin.",
    );
  });

  it.each([
    [
      ['-1'],
      "error: IDX '-1' is not a GPU index: expected a whole number >= 0 in decimal digits such as 0 or 1 " +
        '(`gpushare gpus` lists the GPUs)\n',
    ],
    [
      ['-1', '--url', 'http://127.0.0.1:2'],
      "error: IDX '-1' is not a GPU index: expected a whole number >= 0 in decimal digits such as 0 or 1 " +
        '(`gpushare gpus` lists the GPUs)\n',
    ],
    [
      ['--', '-1'],
      "error: IDX '-1' is not a GPU index: expected a whole number >= 0 in decimal digits such as 0 or 1 " +
        '(`gpushare gpus` lists the GPUs)\n',
    ],
    [
      ['1.5'],
      "error: IDX '1.5' is not a GPU index: expected a whole number >= 0 in decimal digits such as 0 or " +
        '1 (`gpushare gpus` lists the GPUs)\n',
    ],
    [
      ['-0.5'],
      "error: IDX '-0.5' is not a GPU index: expected a whole number >= 0 in decimal digits such as 0 or " +
        '1 (`gpushare gpus` lists the GPUs)\n',
    ],
    [
      [''],
      "error: IDX '' is not a GPU index: expected a whole number >= 0 in decimal digits such as 0 or 1 " +
        '(`gpushare gpus` lists the GPUs)\n',
    ],
    [
      [' '],
      "error: IDX ' ' is not a GPU index: expected a whole number >= 0 in decimal digits such as 0 or 1 " +
        '(`gpushare gpus` lists the GPUs)\n',
    ],
    [
      ['01'],
      "error: IDX '01' is not a GPU index: expected a whole number >= 0 in decimal digits such as 0 or 1 " +
        '(`gpushare gpus` lists the GPUs)\n',
    ],
    [
      ['0x1'],
      "error: IDX '0x1' is not a GPU index: expected a whole number >= 0 in decimal digits such as 0 or " +
        '1 (`gpushare gpus` lists the GPUs)\n',
    ],
    [
      [],
      'error: missing argument IDX: the GPU index, a whole number >= 0 (see `gpushare gpu cordon ' +
        '--help`; `gpushare gpus` lists the GPUs)\n',
    ],
    [['1', '2'], 'error: expected one argument IDX, got 2: 1 2 (see `gpushare gpu cordon --help`)\n'],
    [['--force', '1'], "error: unknown option '--force' (see `gpushare gpu cordon --help`)\n"],
  ])('gpu cordon %j is a usage error naming IDX (exit 2), before calling the server', async (args, message) => {
    const { env, server } = await serve(() => ({ status: 200, body: sampleGpu() }));
    const run = await runClientCli(['gpu', 'cordon', ...args], { env });
    expect(run).toEqual({ code: 2, stdout: '', stderr: message });
    expect(server.requests).toHaveLength(0);
  });

  it('gpu uncordon 0 --url URL works with the flag after the index', async () => {
    const { server } = await serve(() => ({ status: 200, body: sampleGpu({ jobs: [] }) }));
    const run = await runClientCli(['gpu', 'uncordon', '0', '--url', server.url, '--token', 't'], { env: {} });
    expect(run).toEqual({ code: 0, stdout: 'GPU 0 uncordoned\n', stderr: '' });
    expect(server.requests.map((r) => `${r.method} ${r.path}`)).toEqual(['POST /api/v1/gpus/0/uncordon']);
  });

  it('drain waits until /healthz stops answering, printing progress; --no-wait returns at once', async () => {
    let healthChecks = 0;
    let running = 2;
    const { env, server } = await serve(async (r) => {
      if (r.path === '/api/v1/drain') return { status: 202, body: { draining: true, running } };
      if (r.path === '/healthz') {
        healthChecks += 1;
        running -= 1;
        if (running < 0) setImmediate(() => void server.close());
        return { status: 200, body: { status: 'ok' } };
      }
      return {
        status: 200,
        body: sampleStatus({ draining: true, jobs: { running: Math.max(running, 0) }, freezer: 'none' }),
      };
    });
    const noWait = await runClientCli(['drain', '--no-wait'], { env });
    expect(noWait.code).toBe(0);
    expect(noWait.stdout).toBe('draining: the server starts no new jobs and exits once none runs; 2 job(s) running\n');
    expect(healthChecks).toBe(0);
    const run = await runClientCli(['drain'], { env, sleep: () => new Promise((resolve) => setTimeout(resolve, 20)) });
    expect(run.stderr).toBe('');
    expect(run.code).toBe(0);
    expect(run.stdout).toBe(
      [
        'draining: the server starts no new jobs and exits once none runs; 2 job(s) running',
        'waiting: 1 job(s) still running',
        'waiting: 0 job(s) still running',
        `the server at ${server.url} has stopped`,
        '',
      ].join('\n'),
    );
  });
});
