/**
 * End-to-end: `GET /metrics` of a real server. Two `--gpu 0.4` jobs on an idle one-GPU server show
 * both allocations with their labels, and the values sum; the pass histogram counts exactly the
 * passes `GET /api/v1/status` counts; after both jobs end the allocation is 0 and the outcomes are
 * counted. The admin token /metrics needs (or --metrics-open), and per-job memory from a stand-in nvidia-smi's
 * per-process data.
 */
import { chmodSync, existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import {
  findSamples,
  parseMetricsText,
  sampleValue,
  type MetricSample,
} from '../../src/adapters/metrics/metrics-text.js';
import {
  api,
  cleanupServe,
  shellJob,
  startServe,
  waitForJob,
  type ServeHandle,
  serverFetch,
  untilFileExists,
} from './support/serve-harness.js';
import { WAIT_MS } from '../../src/testing/deadlines.js';

const GIB = 1024 ** 3;
let servers: ServeHandle[] = [];
afterEach(async () => {
  for (const s of servers) await cleanupServe(s);
  servers = [];
});

/** Starts a server with a config file of `yaml` (jobs unsandboxed, as TEST_SERVER_CONFIG has it). */
async function serve(
  yaml: string,
  options: { simulateGpus?: string; extraArgs?: string[]; env?: Record<string, string> } = {},
): Promise<ServeHandle> {
  const dir = mkdtempSync(join(tmpdir(), 'gpushare-e2e-'));
  writeFileSync(join(dir, 'config.yaml'), `singleTenant: true\n${yaml}`);
  const server = await startServe({
    dataDir: dir,
    simulateGpus: options.simulateGpus,
    extraArgs: ['--config', join(dir, 'config.yaml'), ...(options.extraArgs ?? [])],
    env: options.env,
  });
  servers.push(server);
  return server;
}

/** GET /metrics with `token` (default: the admin's; null: none): status, content type and parsed samples. */
async function scrape(
  server: ServeHandle,
  token: string | null = server.adminToken,
): Promise<{ status: number; contentType: string | null; samples: MetricSample[] }> {
  const response = await serverFetch(server, '/metrics', {
    headers: token === null ? {} : { authorization: `Bearer ${token}` },
  });
  const text = await response.text();
  return {
    status: response.status,
    contentType: (response.headers['content-type'] as string | undefined) ?? null,
    samples: response.status === 200 ? parseMetricsText(text) : [],
  };
}

/** Polls /metrics until `predicate` holds (at most WAIT_MS). */
async function scrapeUntil(
  server: ServeHandle,
  predicate: (samples: MetricSample[]) => boolean,
): Promise<MetricSample[]> {
  const deadline = Date.now() + WAIT_MS;
  for (;;) {
    const { samples } = await scrape(server);
    if (predicate(samples)) return samples;
    if (Date.now() > deadline) throw new Error(`metrics did not reach the expected state in ${WAIT_MS} ms`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

/**
 * The histogram count and the status API's `scheduler.passes`, read so that they describe the same
 * moment: metrics, status, metrics again, until both metrics reads agree (at most 20 tries).
 */
async function passCounts(server: ServeHandle): Promise<{ histogram: number; status: number }> {
  for (let i = 0; i < 20; i++) {
    const before = sampleValue((await scrape(server)).samples, 'gpushare_scheduling_pass_duration_seconds_count');
    const status = (await api(server, 'GET', '/api/v1/status')).body.scheduler.passes as number;
    const after = sampleValue((await scrape(server)).samples, 'gpushare_scheduling_pass_duration_seconds_count');
    if (before === after) return { histogram: after, status };
  }
  throw new Error('passes kept running during 20 reads');
}

const sum = (samples: readonly MetricSample[]) => samples.reduce((s, x) => s + x.value, 0);

describe('GET /metrics', () => {
  it(
    'two --gpu 0.4 jobs on one GPU: 800 milli-GPU, ratio 0.8, per-job series summing to the GPU, ' +
      'passes counted exactly; 0 after both end',
    async () => {
      const server = await serve('nodeName: e2e-node\nusagePollIntervalSeconds: 0.2\n', {
        simulateGpus: '1xA100-80GB',
      });
      const [gpu] = (await api(server, 'GET', '/api/v1/gpus')).body.gpus;
      const base = await passCounts(server);
      expect(base.histogram).toBe(base.status);

      const flag = join(server.dataDir, 'finish');
      const first = await api(server, 'POST', '/api/v1/jobs', {
        ...shellJob('exec sleep 600', { gpuMilli: 400 }),
        name: 'first',
      });
      const second = await api(server, 'POST', '/api/v1/jobs', {
        ...shellJob(untilFileExists(flag), { gpuMilli: 400 }),
        name: 'second',
      });
      expect([first.status, second.status]).toEqual([201, 201]);
      for (const id of [first.body.id, second.body.id]) await waitForJob(server, id, (j) => j.state === 'running');

      const gl = { node: 'e2e-node', gpu: '0', uuid: gpu.uuid, model: 'A100-80GB', mode: 'mps' };
      const samples = await scrapeUntil(server, (s) => findSamples(s, 'gpushare_job_memory_used_bytes').length === 2);
      expect(sampleValue(samples, 'gpushare_gpu_allocated_milli', gl)).toBe(800);
      expect(sampleValue(samples, 'gpushare_cluster_allocation_ratio')).toBe(0.8);
      expect(sampleValue(samples, 'gpushare_cluster_allocated_milli')).toBe(800);
      expect(sampleValue(samples, 'gpushare_cluster_capacity_milli')).toBe(1000);
      expect(sampleValue(samples, 'gpushare_gpu_jobs', gl)).toBe(2);
      expect(
        sampleValue(samples, 'gpushare_gpu_info', {
          ...gl,
          name: 'Simulated A100-80GB',
          simulated: 'true',
          mig_enabled: 'false',
        }),
      ).toBe(1);
      const jobs = findSamples(samples, 'gpushare_job_allocated_milli');
      expect(jobs.map((s) => s.labels)).toEqual([
        {
          ...gl,
          mig_profile: '',
          job_id: String(first.body.id),
          job_name: 'first',
          tenant: 'default',
          priority_class: 'normal',
        },
        {
          ...gl,
          mig_profile: '',
          job_id: String(second.body.id),
          job_name: 'second',
          tenant: 'default',
          priority_class: 'normal',
        },
      ]);
      expect(jobs.map((s) => s.value)).toEqual([400, 400]);
      expect(sum(jobs)).toBe(sampleValue(samples, 'gpushare_gpu_allocated_milli', gl));
      // 0.4 of an 80 GiB GPU each: 32 GiB.
      const jobMemory = findSamples(samples, 'gpushare_job_allocated_memory_bytes', gl);
      expect(jobMemory.map((s) => s.value)).toEqual([32 * GIB, 32 * GIB]);
      expect(sum(jobMemory)).toBe(sampleValue(samples, 'gpushare_gpu_allocated_memory_bytes', gl));
      expect(sampleValue(samples, 'gpushare_gpu_memory_total_bytes', gl)).toBe(80 * GIB);
      // Simulated usage: derived from the allocations and labelled so.
      expect(sampleValue(samples, 'gpushare_gpu_utilization_ratio', { ...gl, source: 'simulated' })).toBe(0.8);
      expect(sampleValue(samples, 'gpushare_gpu_memory_used_bytes', { ...gl, source: 'simulated' })).toBe(64 * GIB);
      expect(
        findSamples(samples, 'gpushare_job_memory_used_bytes').map((s) => [s.labels.job_id, s.labels.source, s.value]),
      ).toEqual([
        [String(first.body.id), 'simulated', 32 * GIB],
        [String(second.body.id), 'simulated', 32 * GIB],
      ]);
      expect(sampleValue(samples, 'gpushare_jobs', { tenant: 'default', state: 'running' })).toBe(2);
      expect(sampleValue(samples, 'gpushare_jobs_submitted_total', { tenant: 'default' })).toBe(2);
      expect(sampleValue(samples, 'gpushare_placements_total', { tenant: 'default', mode: 'mps' })).toBe(2);
      expect(sampleValue(samples, 'gpushare_build_info')).toBe(1);

      const running = await passCounts(server);
      expect(running.histogram).toBe(running.status);
      expect(running.status - base.status).toBeGreaterThanOrEqual(1);
      expect(running.histogram - base.histogram).toBe(running.status - base.status);

      expect((await api(server, 'POST', `/api/v1/jobs/${first.body.id}/cancel`)).status).toBe(200);
      writeFileSync(flag, '');
      await waitForJob(server, first.body.id, (j) => j.state === 'cancelled');
      await waitForJob(server, second.body.id, (j) => j.state === 'succeeded');
      const after = await scrapeUntil(server, (s) => findSamples(s, 'gpushare_job_allocated_milli').length === 0);
      expect(sampleValue(after, 'gpushare_gpu_allocated_milli', { gpu: '0' })).toBe(0);
      expect(sampleValue(after, 'gpushare_cluster_allocation_ratio')).toBe(0);
      expect(sampleValue(after, 'gpushare_gpu_allocated_memory_bytes', { gpu: '0' })).toBe(0);
      expect(sampleValue(after, 'gpushare_job_outcomes_total', { tenant: 'default', outcome: 'cancelled' })).toBe(1);
      expect(sampleValue(after, 'gpushare_job_outcomes_total', { tenant: 'default', outcome: 'succeeded' })).toBe(1);
      expect(sampleValue(after, 'gpushare_job_outcomes_total', { tenant: 'default', outcome: 'failed' })).toBe(0);
      const ended = await passCounts(server);
      expect(ended.histogram - base.histogram).toBe(ended.status - base.status);
    },
  );

  it(
    'needs an admin token by default (401 without a valid one, 403 for a tenant), as with ' +
      '--metrics-require-token; --metrics-open serves it without',
    async () => {
      for (const extraArgs of [[], ['--metrics-require-token']]) {
        const closed = await serve('', { simulateGpus: '1xT4', extraArgs });
        expect((await scrape(closed, null)).status).toBe(401);
        expect((await scrape(closed, 'gs_not-a-token')).status).toBe(401);
        const tenantToken = (await api(closed, 'POST', '/api/v1/tokens', { tenant: 'default' })).body.token as string;
        expect((await scrape(closed, tenantToken)).status).toBe(403);
        const withToken = await scrape(closed);
        expect([withToken.status, withToken.contentType]).toEqual([200, 'text/plain; version=0.0.4; charset=utf-8']);
        expect(sampleValue(withToken.samples, 'gpushare_gpu_healthy', { gpu: '0' })).toBe(1);
      }

      const open = await serve('', { simulateGpus: '1xT4', extraArgs: ['--metrics-open'] });
      const plain = await scrape(open, null);
      expect(plain.status).toBe(200);
      expect(sampleValue(plain.samples, 'gpushare_gpu_allocated_milli', { gpu: '0', model: 'T4', mode: 'none' })).toBe(
        0,
      );
      expect(findSamples(plain.samples, 'process_cpu_seconds_total')).toHaveLength(1);
      expect(open.stderr).toContain('GET /metrics is served without a token (metricsOpen)');
    },
  );
});

describe('GET /metrics with a stand-in nvidia-smi', () => {
  const UUID = 'GPU-d37e67a5-91dd-3774-a5cb-99096249601a';
  const T4_XML = readFileSync(
    new URL('../fixtures/nvidia-smi/xml/q-x__tesla-t4__515.105.01.xml', import.meta.url),
    'utf8',
  );
  const smiDir = mkdtempSync(join(tmpdir(), 'gpushare-smi-'));
  // Inventory queries as in serve-gpus.test.ts; the usage queries print 37 % and 5000 MiB for the
  // GPU, and one process per pid file in `pids/` (1234 MiB each) plus a process of no job (pid 1).
  writeFileSync(
    join(smiDir, 'nvidia-smi'),
    `#!/bin/sh
d="$(dirname "$0")"
case "$*" in
  --query-gpu=index,uuid,name,*)
    echo "0, ${UUID}, Tesla T4, 15360, 5000, 10360, 37, 0, 40, 26.78, [N/A], Default, 00000000:00:1E.0" ;;
  "--query-gpu=index,uuid,utilization.gpu,memory.used --format=csv,noheader,nounits") echo "0, ${UUID}, 37, 5000" ;;
  "--query-compute-apps=gpu_uuid,pid,used_memory --format=csv,noheader,nounits")
    echo "${UUID}, 1, 700"
    for f in "$d"/pids/*; do [ -f "$f" ] && echo "${UUID}, $(cat "$f"), 1234"; done ;;
  "-L") echo "GPU 0: Tesla T4 (UUID: ${UUID})" ;;
  "-q -x") cat "$d/q.xml" ;;
  *) echo "stand-in nvidia-smi: unexpected arguments: $*" >&2; exit 2 ;;
esac
`,
  );
  chmodSync(join(smiDir, 'nvidia-smi'), 0o755);
  writeFileSync(join(smiDir, 'q.xml'), T4_XML);
  afterAll(() => rmSync(smiDir, { recursive: true, force: true }));

  it(
    "per-job memory comes from the job's processes (1234 MiB), not from the GPU (5000 MiB); a " +
      'process of no job is ignored',
    async () => {
      const server = await serve('usagePollIntervalSeconds: 0.2\n', { env: { PATH: `${smiDir}:${process.env.PATH}` } });
      const pidFile = join(smiDir, 'pids', 'job');
      const job = await api(
        server,
        'POST',
        '/api/v1/jobs',
        shellJob(`mkdir -p ${join(smiDir, 'pids')}; sh -c 'echo $$ > ${pidFile}; exec sleep 600' & wait`, {
          gpuMilli: 500,
        }),
      );
      await waitForJob(server, job.body.id, (j) => j.state === 'running');
      const samples = await scrapeUntil(
        server,
        (s) =>
          existsSync(pidFile) &&
          findSamples(s, 'gpushare_job_memory_used_bytes', { source: 'nvidia-smi' }).some((x) => x.value > 0),
      );
      const MIB = 1024 * 1024;
      expect(
        findSamples(samples, 'gpushare_job_memory_used_bytes').map((s) => [
          s.labels.job_id,
          s.labels.gpu,
          s.labels.uuid,
          s.labels.tenant,
          s.labels.source,
          s.value,
        ]),
      ).toEqual([[String(job.body.id), '0', UUID, 'default', 'nvidia-smi', 1234 * MIB]]);
      expect(sampleValue(samples, 'gpushare_gpu_memory_used_bytes', { gpu: '0', source: 'nvidia-smi' })).toBe(
        5000 * MIB,
      );
      expect(sampleValue(samples, 'gpushare_gpu_utilization_ratio', { gpu: '0', source: 'nvidia-smi' })).toBe(0.37);
      expect(sampleValue(samples, 'gpushare_gpu_info', { gpu: '0', simulated: 'false', name: 'Tesla T4' })).toBe(1);
      await api(server, 'POST', `/api/v1/jobs/${job.body.id}/cancel`);
      await waitForJob(server, job.body.id, (j) => j.state === 'cancelled');
      rmSync(join(smiDir, 'pids'), { recursive: true, force: true });
    },
  );
});
