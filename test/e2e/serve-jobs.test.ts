/**
 * End-to-end: a real `gpushare serve` child process with simulated GPUs, real job processes, a real
 * SQLite file, and the real CLI.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import {
  api,
  cleanupServe,
  cli,
  jobCgroupDirs,
  shellJob,
  startServe,
  waitForJob,
  type ServeHandle,
  serverFetch,
  untilFileExists,
} from './support/serve-harness.js';
import { WAIT_MS } from '../../src/testing/deadlines.js';

let server: ServeHandle | null = null;
afterEach(async () => {
  if (server) await cleanupServe(server);
  server = null;
});

const terminal = (job: { state: string }) => ['succeeded', 'failed', 'cancelled'].includes(job.state);

describe('gpushare serve: sharing one GPU', () => {
  it(
    'runs two --gpu 0.5 --gpu-memory 30GiB jobs at once on one A100-80GB; the third waits, then all ' + 'succeed',
    async () => {
      server = await startServe({ simulateGpus: '1xA100-80GB' });
      const marker = join(server.dataDir, 'concurrency.log');
      // Each job runs until the gate file appears, so that the third waits for as long as the test looks.
      const gate = join(server.dataDir, 'release');
      const ids: number[] = [];
      for (let i = 0; i < 3; i++) {
        const { code, stdout, stderr } = cli(server, [
          'submit',
          '--gpu',
          '0.5',
          '--gpu-memory',
          '30GiB',
          '--name',
          `half-${i}`,
          '--',
          'sh',
          '-c',
          `echo "visible=$CUDA_VISIBLE_DEVICES milli=$GPUSHARE_GPU_MILLI mib=$GPUSHARE_GPU_MEMORY_MIB"; ` +
            `echo start >> ${marker}; ${untilFileExists(gate)}; echo end >> ${marker}`,
        ]);
        expect(code, stderr).toBe(0);
        ids.push(Number(stdout.trim().split('\n').at(-1)));
      }
      expect(ids).toEqual([1, 2, 3]);
      const first = await waitForJob(server, 2, (j) => j.state === 'running');
      const third = (await api(server, 'GET', '/api/v1/jobs/3')).body;
      expect(third.state).toBe('pending');
      expect(third.reason).toMatch(/waiting for 1 GPU/);
      const gpus = (await api(server, 'GET', '/api/v1/gpus')).body.gpus;
      expect(gpus).toHaveLength(1);
      expect(gpus[0].jobs.map((j: { id: number }) => j.id)).toEqual([1, 2]);
      expect(gpus[0].allocatedGpuMilli).toBe(1000);
      expect(gpus[0].allocatedGpuMemoryMiB).toBe(61440);
      expect(gpus[0].simulated).toBe(true);
      writeFileSync(gate, '');
      const jobs = await Promise.all(ids.map((id) => waitForJob(server!, id, terminal)));
      expect(jobs.map((j) => j.state)).toEqual(['succeeded', 'succeeded', 'succeeded']);
      expect(jobs.map((j) => j.exitCode)).toEqual([0, 0, 0]);
      // Jobs 1 and 2 overlapped; job 3 started only after one of them ended.
      expect(readFileSync(marker, 'utf8').trim().split('\n').slice(0, 3)).toEqual(['start', 'start', 'end']);
      const uuid = first.placement.gpus[0].uuid as string;
      expect(uuid).toMatch(/^GPU-[0-9a-f]{8}-/);
      for (const id of ids) {
        const { stdout } = cli(server, ['logs', String(id)]);
        expect(stdout.trim()).toBe(`visible=${uuid} milli=500 mib=30720`);
      }
    },
  );

  it('gives --gpu 2 two distinct GPUs, and rejects it as unresolvable on a one-GPU server', async () => {
    server = await startServe({ simulateGpus: '2xA100-80GB' });
    const { stdout } = cli(server, ['submit', '--gpu', '2', '--', 'sh', '-c', 'echo $CUDA_VISIBLE_DEVICES']);
    const id = Number(stdout.trim().split('\n').at(-1));
    const job = await waitForJob(server, id, terminal);
    expect(job.state).toBe('succeeded');
    const indices = job.placement.gpus.map((g: { index: number }) => g.index);
    expect(indices).toEqual([0, 1]);
    expect(job.placement.mode).toBe('exclusive');
    const uuids = job.placement.gpus.map((g: { uuid: string }) => g.uuid);
    expect(new Set(uuids).size).toBe(2);
    expect(cli(server, ['logs', String(id)]).stdout.trim()).toBe(uuids.join(','));
    await cleanupServe(server);

    server = await startServe({ simulateGpus: '1xA100-80GB' });
    const rejected = await api(server, 'POST', '/api/v1/jobs', shellJob('true', { gpuCount: 2 }));
    expect(rejected.status).toBe(422);
    expect(rejected.body.error.details.reason).toBe('unresolvable');
    expect(rejected.body.error.message).toMatch(/gpuCount 2 exceeds the 1 GPU/);
    expect((await api(server, 'GET', '/api/v1/jobs?all=true')).body.jobs).toEqual([]);
  });

  it('stops a job over its time limit and marks it failed with reason time-limit', async () => {
    server = await startServe({ simulateGpus: '1xT4' });
    const { status, body } = await api(
      server,
      'POST',
      '/api/v1/jobs',
      shellJob('sleep 600', { gpuMilli: 100 }, { timeLimitSeconds: 1 }),
    );
    expect(status).toBe(201);
    const job = await waitForJob(server, body.id, terminal);
    expect(job.state).toBe('failed');
    expect(job.reason).toBe('time-limit');
    expect(job.signal).toBe('SIGTERM');
    expect(job.attempts).toEqual([expect.objectContaining({ attempt: 1, endReason: 'time-limit' })]);
  });

  it('rejects bad input with a 4xx naming the field and stores nothing', async () => {
    server = await startServe({ simulateGpus: '1xA100-80GB' });
    const cases: [unknown, number, RegExp][] = [
      [shellJob('true', { mode: 'turbo' }), 400, /gpu\.mode.*allowed: auto, exclusive, mig, mps, timeslice/],
      [shellJob('true', { gpuMilli: 1500 }), 400, /gpu\.gpuMilli/],
      [
        shellJob('true', { gpuMilli: 500, gpuMemoryMiB: 200_000 }),
        422,
        /gpuMemoryMiB 200000 exceeds the largest GPU of this server \(81920 MiB\)/,
      ],
      [
        { command: ['no-such-program-xyz'], workingDirectory: '/tmp' },
        422,
        /command: program "no-such-program-xyz" was not found/,
      ],
      [shellJob('true', { gpuMilli: 500 }, { tenant: 'nobody' }), 422, /tenant: unknown tenant "nobody"/],
      [shellJob('true', { gpuMilli: 500 }, { priority: 'urgent' }), 400, /priority/],
    ];
    for (const [body, status, message] of cases) {
      const response = await api(server, 'POST', '/api/v1/jobs', body);
      expect(response.status, JSON.stringify(response.body)).toBe(status);
      expect(response.body.error.message).toMatch(message);
    }
    const flag = cli(server, ['submit', '--gpu', '1.5', '--', 'true']);
    expect(flag.code).toBe(2);
    expect(flag.stderr).toMatch(/--gpu/);
    expect((await api(server, 'GET', '/api/v1/jobs?all=true')).body.jobs).toEqual([]);
    const openapi = (await (await serverFetch(server, '/openapi.json')).json()) as {
      openapi: string;
      paths: Record<string, unknown>;
    };
    expect(openapi.openapi).toBe('3.1.0');
    expect(Object.keys(openapi.paths)).toEqual(
      expect.arrayContaining([
        '/api/v1/jobs',
        '/api/v1/jobs/{id}',
        '/api/v1/jobs/{id}/cancel',
        '/api/v1/jobs/{id}/logs',
        '/api/v1/gpus',
        '/api/v1/tokens',
        '/api/v1/status',
      ]),
    );
  });
});

describe('gpushare serve: tenants', () => {
  it("keeps tenant B's job invisible to tenant A (404, not 403) and A's token cannot cancel it", async () => {
    server = await startServe({ simulateGpus: '1xA100-80GB' });
    const tokens: Record<string, string> = {};
    for (const tenant of ['team-a', 'team-b']) {
      expect((await api(server, 'POST', '/api/v1/tenants', { name: tenant })).status).toBe(201);
      const created = await api(server, 'POST', '/api/v1/tokens', { tenant });
      expect(created.status).toBe(201);
      expect(created.body.token).toMatch(/^gs_[A-Za-z0-9_-]{43}$/);
      tokens[tenant] = created.body.token;
    }
    const bJob = await api(server, 'POST', '/api/v1/jobs', shellJob('sleep 30', { gpuMilli: 200 }), tokens['team-b']);
    expect(bJob.status).toBe(201);
    expect(bJob.body.tenant).toBe('team-b');
    const id = bJob.body.id as number;
    for (const [method, path] of [
      ['GET', `/api/v1/jobs/${id}`],
      ['GET', `/api/v1/jobs/${id}/logs`],
      ['POST', `/api/v1/jobs/${id}/cancel`],
    ] as const) {
      const response = await api(server, method, path, undefined, tokens['team-a']);
      expect(response.status, `${method} ${path}`).toBe(404);
      expect(response.body.error.code).toBe('GPUSHARE_JOB_NOT_FOUND');
    }
    expect((await api(server, 'GET', '/api/v1/jobs?all=true', undefined, tokens['team-a'])).body.jobs).toEqual([]);
    expect(
      (await api(server, 'GET', '/api/v1/jobs?all=true', undefined, tokens['team-b'])).body.jobs.map(
        (j: { id: number }) => j.id,
      ),
    ).toEqual([id]);
    expect(
      (
        await api(
          server,
          'POST',
          '/api/v1/jobs',
          shellJob('true', { gpuMilli: 200 }, { tenant: 'team-b' }),
          tokens['team-a'],
        )
      ).status,
    ).toBe(403);
    expect((await api(server, 'POST', '/api/v1/tenants', { name: 'team-c' }, tokens['team-a'])).status).toBe(403);
    expect((await api(server, 'GET', '/api/v1/jobs', undefined, 'gs_wrong')).status).toBe(401);
    expect((await serverFetch(server, '/healthz')).status).toBe(200);
    const cancelled = await api(server, 'POST', `/api/v1/jobs/${id}/cancel`, undefined, tokens['team-b']);
    expect(cancelled.status).toBe(200);
    const job = await waitForJob(server, id, terminal);
    expect(job.state).toBe('cancelled');
    expect(job.reason).toBe('cancelled by tenant team-b');
  });
});

describe('gpushare serve: hardening', () => {
  it('refuses environment variables gpushare sets and malformed names, and stores nothing', async () => {
    server = await startServe({ simulateGpus: '1xT4' });
    // A malformed name or value breaks the request's schema (400); a name gpushare sets is refused after it (422).
    const cases: [Record<string, string>, number, RegExp][] = [
      [{ CUDA_VISIBLE_DEVICES: 'GPU-other' }, 422, /environment: CUDA_VISIBLE_DEVICES is set by gpushare/],
      [
        { 'CUDA_VISIBLE_DEVICES=GPU-x,': '' },
        400,
        /environment.*environment variable names are letters, digits and "_"/,
      ],
      [{ GPUSHARE_JOB_ID: '1' }, 422, /environment: GPUSHARE_JOB_ID is set by gpushare/],
      [{ OK: 'a\u0000b' }, 400, /must not contain NUL bytes/],
    ];
    for (const [environment, status, message] of cases) {
      const response = await api(server, 'POST', '/api/v1/jobs', shellJob('true', { gpuMilli: 100 }, { environment }));
      expect(response.status, JSON.stringify(response.body)).toBe(status);
      expect(response.body.error.message).toMatch(message);
    }
    expect((await api(server, 'GET', '/api/v1/jobs?all=true')).body.jobs).toEqual([]);
  });

  it('refuses a second server on the same data dir, and a busy port, with exit code 1', async () => {
    server = await startServe({ simulateGpus: '1xT4' });
    const { spawnSync } = await import('node:child_process');
    const bin = join(import.meta.dirname, '..', '..', 'bin', 'gpushare');
    const env = { ...process.env, XDG_CONFIG_HOME: join(server.dataDir, 'other-config') };
    const second = spawnSync(
      process.execPath,
      [
        bin,
        'serve',
        '--port',
        '0',
        '--data-dir',
        join(server.dataDir, 'data'),
        '--simulate-gpus',
        '1xT4',
        '--log-level',
        'error',
      ],
      { env, encoding: 'utf8', timeout: WAIT_MS },
    );
    expect(second.status).toBe(1);
    expect(second.stderr).toMatch(/--data-dir: .* is in use by another gpushare server \(pid \d+\)/);
    const port = new URL(server.url).port;
    const busy = spawnSync(
      process.execPath,
      [
        bin,
        'serve',
        '--port',
        port,
        '--data-dir',
        join(server.dataDir, 'other-data'),
        '--simulate-gpus',
        '1xT4',
        '--log-level',
        'error',
      ],
      { env, encoding: 'utf8', timeout: WAIT_MS },
    );
    expect(busy.status).toBe(1);
    expect(busy.stderr).toContain(`--host 127.0.0.1 --port ${port}: cannot listen: the port is already in use`);
    // The failed start removed the cgroup folder its launcher had made for jobs.
    expect(jobCgroupDirs(join(server.dataDir, 'other-data'))).toEqual([]);
  });
});
