/**
 * End-to-end: the host limits every job gets by default (docs/processes.md "Host limits"), on real
 * cgroups with a real server. One tenant attacks: a job forks past its process limit, one
 * allocates past its default host memory, one runs 50 busy loops; each ends or is held with that
 * limit's reason, while another tenant's job runs to its end and the API answers a listing with a
 * p99 under 100 ms. Every cgroup the server made is gone afterwards.
 */
import { spawnSync } from 'node:child_process';
import { chmodSync, existsSync, mkdtempSync, readdirSync, rmdirSync } from 'node:fs';
import { createHash } from 'node:crypto';
import { join } from 'node:path';
import { tmpdir } from 'node:os';
import { performance } from 'node:perf_hooks';
import { cgroupPids } from '../../src/adapters/process/cgroup-dir.js';
import { afterEach, describe, expect, it } from 'vitest';
import {
  api,
  cleanupServe,
  cli,
  pollFor,
  startServe,
  waitForJob,
  type ServeHandle,
} from '../e2e/support/serve-harness.js';

/** The process limit and default host memory of the server under test. */
const PIDS_MAX = 64;
const DEFAULT_HOST_MEMORY_MIB = 128;
/** Requests of the listing measured during the attack (a bound in count; each is also bounded by the harness). */
const LISTING_REQUESTS = 200;

let server: ServeHandle | null = null;
let cgroupParents: string[] = [];
/** The sandbox needs root and bubblewrap (docs/security.md). */
const canSandbox = process.getuid?.() === 0 && existsSync('/usr/bin/bwrap');

/** The cgroup parent folders of a server on `dataDir` in every hierarchy (serve.ts names them by the data dir). */
function cgroupParentsOf(dataDir: string): string[] {
  const parent = `gpushare-${createHash('sha256').update(dataDir).digest('hex').slice(0, 12)}`;
  return readdirSync('/sys/fs/cgroup').map((h) => join('/sys/fs/cgroup', h, parent));
}

/**
 * Kills every process left in the job cgroups under `dirs` (a job's processes in sessions of their own escape the
 * harness's kill of its process group), then removes the cgroups, retrying while the kernel still counts a dying
 * process.
 */
async function removeCgroups(dirs: readonly string[]): Promise<void> {
  await pollFor(
    'the cgroups of the test server to be removed',
    () => {
      for (const dir of dirs.filter((d) => existsSync(d))) {
        try {
          for (const child of readdirSync(dir, { withFileTypes: true }).filter((d) => d.isDirectory())) {
            for (const pid of cgroupPids(join(dir, child.name))) {
              try {
                process.kill(pid, 'SIGKILL');
              } catch {
                // already gone
              }
            }
            rmdirSync(join(dir, child.name));
          }
          rmdirSync(dir);
        } catch {
          // busy a moment longer
        }
      }
      return dirs.every((d) => !existsSync(d)) ? true : undefined;
    },
    10_000,
  );
}

/** Stops the server and removes its cgroups; asserts that none is left. */
async function cleanup(): Promise<void> {
  if (server) await cleanupServe(server);
  server = null;
  await removeCgroups(cgroupParents);
  expect(cgroupParents.filter((d) => existsSync(d))).toEqual([]);
  cgroupParents = [];
}

afterEach(cleanup);

/** The p-th percentile (0-100) of `values`, nearest rank. */
function percentile(values: readonly number[], p: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)]!;
}

describe.skipIf(!existsSync('/sys/fs/cgroup/pids') && !existsSync('/sys/fs/cgroup/cgroup.controllers'))(
  'gpushare serve: host limits per job by default',
  () => {
    it.each([
      ['unsandboxed', true],
      ['sandboxed', false],
    ])(
      'a fork bomb, a memory hog and 50 busy loops of one tenant end or are held with their reasons (%s)',
      async (_, singleTenant) => {
        if (!singleTenant && !canSandbox) return;
        // Sandboxed: a data directory others may pass, so that sandboxes start in a user namespace.
        const serverDir = mkdtempSync(join(tmpdir(), 'gpushare-host-limits-'));
        if (!singleTenant) chmodSync(serverDir, 0o711);
        server = await startServe({
          dataDir: serverDir,
          simulateGpus: '5xA100-80GB',
          config: { jobPidsMax: PIDS_MAX, defaultHostMemoryMiB: DEFAULT_HOST_MEMORY_MIB, singleTenant },
        });
        if (!singleTenant)
          expect((await api(server, 'GET', '/api/v1/status')).body.isolation.detail).toContain(
            'in a user namespace of its own',
          );
        cgroupParents = cgroupParentsOf(join(server.dataDir, 'data'));
        for (const name of ['attacker', 'victim'])
          expect((await api(server, 'POST', '/api/v1/tenants', { name })).status).toBe(201);
        const submit = async (
          tenant: string,
          command: string[],
          name: string,
          extra: Record<string, unknown> = {},
        ): Promise<number> => {
          const { status, body } = await api(server!, 'POST', '/api/v1/jobs', {
            command,
            // In the sandbox each job gets a private working directory (no workingDirectory); without one, /tmp.
            ...(singleTenant ? { workingDirectory: '/tmp' } : {}),
            gpu: { gpuMilli: 1000 },
            tenant,
            name,
            timeLimitSeconds: 300,
            ...extra,
          });
          expect(status, JSON.stringify(body)).toBe(201);
          return body.id as number;
        };

        // 50 busy loops (51 processes: under the process limit), without --cpu: held to the job's CPU weight. Each in a
        // session of its own (setsid), which the kernel's autogroup scheduling would weigh as one more process group
        // of the host's: only the job's cgroup keeps the 50 at one weight.
        const spinner = await submit(
          'attacker',
          ['sh', '-c', "for i in $(seq 50); do setsid sh -c 'while :; do :; done' & done; wait"],
          'spin',
        );
        await waitForJob(server, spinner, (j) => j.state === 'running');
        const forkBomb = await submit(
          'attacker',
          ['sh', '-c', 'i=0; while [ $i -lt 200 ]; do sleep 120 & i=$((i+1)); done; wait'],
          'fork-bomb',
        );
        const hog = await submit(
          'attacker',
          [process.execPath, '-e', 'const a = []; for (let i = 0; i < 64; i++) a.push(Buffer.alloc(8 << 20, 1));'],
          'memory-hog',
        );
        // The other tenant's job forks 20 times and runs about 2 s: it must end by itself, exit 0.
        const victim = await submit(
          'victim',
          ['sh', '-c', 'i=0; while [ $i -lt 20 ]; do sleep 0.1; i=$((i+1)); done; echo survived'],
          'victim',
        );

        // The listing, measured while the attack lasts: until the fork bomb, the memory hog and the other tenant's job
        // have all ended, and at least LISTING_REQUESTS times (bounded in count and time).
        const latenciesMs: number[] = [];
        const deadline = Date.now() + 120_000;
        let attackOver = false;
        while ((latenciesMs.length < LISTING_REQUESTS || !attackOver) && latenciesMs.length < 20 * LISTING_REQUESTS) {
          expect(Date.now()).toBeLessThan(deadline);
          const start = performance.now();
          const { status, body } = await api(server, 'GET', '/api/v1/jobs');
          latenciesMs.push(performance.now() - start);
          expect(status).toBe(200);
          // The listing holds the jobs that have not ended.
          const active = new Set<number>(body.jobs.map((j: { id: number }) => j.id));
          attackOver = [forkBomb, hog, victim].every((id) => !active.has(id));
        }
        const p50 = percentile(latenciesMs, 50);
        const p99 = percentile(latenciesMs, 99);
        console.log(
          `${singleTenant ? 'unsandboxed' : 'sandboxed'}: GET /api/v1/jobs during the attack: ` +
            `${latenciesMs.length} requests, p50 ${p50.toFixed(1)} ms, ` +
            `p99 ${p99.toFixed(1)} ms, max ${Math.max(...latenciesMs).toFixed(1)} ms`,
        );
        expect(latenciesMs.length).toBeGreaterThanOrEqual(LISTING_REQUESTS);
        expect(p99).toBeLessThan(100);

        const bombed = await waitForJob(server, forkBomb, (j) => j.state === 'failed');
        expect(bombed.reasonCode).toBe('process-limit');
        expect(bombed.reason).toMatch(new RegExp(`^process limit: more than ${PIDS_MAX} processes \\(\\d+ fork`));
        const hogged = await waitForJob(server, hog, (j) => j.state === 'failed');
        expect(hogged.reasonCode).toBe('host-memory-limit');
        expect(hogged.reason).toMatch(new RegExp(`^host memory limit: over ${DEFAULT_HOST_MEMORY_MIB} MiB`));
        expect(hogged.hostLimits).toMatchObject({
          hostMemoryMiB: DEFAULT_HOST_MEMORY_MIB,
          hostMemorySource: 'server-default',
        });
        const survived = await waitForJob(server, victim, (j) => j.state === 'succeeded');
        expect(survived.exitCode).toBe(0);

        // The server's share of the CPU while the 50 loops spin: a busy process in the test's own cgroup (the server's
        // kind, outside the jobs' parent) runs 2 s of wall time and gets at least a quarter of a core. Without the
        // job's CPU weight it would weigh as one of 51 busy processes (about 4% of the 2 cores).
        const busy = spawnSync(
          process.execPath,
          [
            '-e',
            'const end = Date.now() + 2000; while (Date.now() < end); const u = process.cpuUsage(); ' +
              'console.log((u.user + u.system) / 1000)',
          ],
          { encoding: 'utf8', timeout: 60_000 },
        );
        const busyCpuMs = Number(busy.stdout.trim());
        console.log(`a busy process beside the 50 loops: ${busyCpuMs.toFixed(0)} ms of CPU in 2000 ms`);
        expect(busyCpuMs).toBeGreaterThan(500);

        // Held, not ended: still running, its 50 loops within its weight; no fork refused, no OOM kill.
        const spinning = (await api(server, 'GET', `/api/v1/jobs/${spinner}`)).body;
        expect(spinning.state).toBe('running');
        expect(spinning.hostLimits).toEqual({
          pidsMax: PIDS_MAX,
          hostMemoryMiB: DEFAULT_HOST_MEMORY_MIB,
          hostMemorySource: 'server-default',
          cpuWeight: 100,
          cpuQuotaMilli: null,
          events: { pidsMaxHits: 0, oomKills: 0, cpuThrottledPeriods: 0 },
        });

        // With --cpu 0.2 a busy loop is held at its CFS quota, and the job's view counts the periods it was held.
        const quota = await submit('attacker', ['sh', '-c', 'while :; do :; done'], 'quota', { cpuMilli: 200 });
        const held = await waitForJob(server, quota, (j) => (j.hostLimits?.events?.cpuThrottledPeriods ?? 0) >= 5);
        expect([held.state, held.hostLimits.cpuQuotaMilli]).toEqual(['running', 200]);
        expect(cli(server, ['show', String(quota)]).stdout).toMatch(
          /limit hits: {2}0 fork\(s\) refused, 0 OOM kill\(s\), \d+ period\(s\) held at the CPU quota/,
        );
        expect((await api(server, 'POST', `/api/v1/jobs/${quota}/cancel`)).status).toBe(200);

        const shown = cli(server, ['show', String(forkBomb)]);
        expect(shown.stdout).toContain(
          `host limits: processes ${PIDS_MAX}, memory ${DEFAULT_HOST_MEMORY_MIB} MiB (the server's default), ` +
            'cpu weight 100, cpu quota none',
        );
        expect(shown.stdout).toMatch(/state: {7}failed \(process limit: more than 64 processes/);
        const status = cli(server, ['status']);
        expect(status.stdout).toContain(
          `host limits: per job processes ${PIDS_MAX} (pids.max), memory --host-memory, else ` +
            `${DEFAULT_HOST_MEMORY_MIB} MiB, cpu weight 100, --cpu a CFS quota\n`,
        );

        expect((await api(server, 'POST', `/api/v1/jobs/${spinner}/cancel`)).status).toBe(200);
        expect((await waitForJob(server, spinner, (j) => j.state === 'cancelled')).state).toBe('cancelled');
      },
    );
  },
);
