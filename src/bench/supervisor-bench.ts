/**
 * Benchmark of what `gpushare serve` runs beside its jobs (`npm run bench -- --only supervisor`):
 *
 *  1. starts a real server (sandboxed jobs when the host has bubblewrap and root, else
 *     `--single-tenant`) and submits `jobs` jobs that each wait (at most 10 min) for a file
 *     `release` in their private working directory; measures the time until all run;
 *  2. sums VmRSS and PSS of the supervisor and of each job's helpers (the processes between the
 *     job's process group leader and its command: bubblewrap and its init) and divides by the jobs,
 *     against a 10 MiB target; baseline: one supervisor of the per-attempt design (old-supervisor.ts)
 *     plus the same helpers;
 *  3. kills the server (SIGKILL), starts it again on the same data dir, and checks that every job
 *     still runs with the same pid under the same supervisor;
 *  4. releases the jobs and checks that every one succeeds with `released` in its log.
 */
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { BenchCleanup, reapJobs } from './bench-cleanup.js';
import { num } from './format.js';
import { KeepAliveClient } from './http-load.js';
import { measureOldSupervisor, OLD_SUPERVISOR_COMMIT } from './old-supervisor.js';
import { helperPids, mib, processesWithArguments, sumMemory, type MemoryKiB } from './process-memory.js';
import { DEFAULT_SERVER_BENCH_OPTIONS } from './server-bench-options.js';
import { startServerProcess, stopServerProcess } from './server-process.js';

/** Most resident memory gpushare may run beside one job, MiB. */
const TARGET_MIB_PER_JOB = 10;
const SIMULATED_GPUS = '8xA100-80GB';
/** Each job waits for `release` in its working directory, 10 min at most. */
const WAIT_SCRIPT = 'i=0; while [ ! -e release ] && [ $i -lt 1200 ]; do sleep 0.5; i=$((i+1)); done; echo released';

/** What the benchmark found. */
export interface SupervisorBenchResult {
  jobs: number;
  sandboxed: boolean;
  secondsUntilAllRunning: number;
  supervisors: number;
  supervisor: MemoryKiB;
  helpersPerJob: MemoryKiB;
  perJob: MemoryKiB;
  oldSupervisor: MemoryKiB | null;
  oldBaselineNote: string | null;
  oldPerJob: MemoryKiB | null;
  rssRatio: number | null;
  samePidsAfterServerKill: number;
  succeeded: number;
  releasedInLog: number;
  targets: { rssMiBPerJob: { target: number; measured: number; pass: boolean }; noneLost: { pass: boolean } };
}

interface JobView {
  id: number;
  state: string;
  pid?: number | null;
}

/** GET a job. */
async function job(client: KeepAliveClient, id: number): Promise<JobView> {
  return JSON.parse((await client.call('GET', `/api/v1/jobs/${id}`)).body) as JobView;
}

/** Polls until `predicate` holds for every job (bounded); returns them. */
async function waitForAll(
  client: KeepAliveClient,
  ids: readonly number[],
  predicate: (j: JobView) => boolean,
  timeoutMs: number,
  what: string,
): Promise<JobView[]> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const jobs = await Promise.all(ids.map((id) => job(client, id)));
    if (jobs.every(predicate)) return jobs;
    if (Date.now() > deadline)
      throw new Error(`${what}: not within ${timeoutMs / 1000} s (states: ${jobs.map((j) => j.state).join(', ')})`);
    await sleep(200);
  }
}

/** The folder of job `id` (`jobs/<id>-<hex>`). */
function folderOf(dataDir: string, id: number): string {
  const name = readdirSync(join(dataDir, 'jobs')).find((n) => new RegExp(`^${id}-[0-9a-f]{16}$`).test(n));
  if (name === undefined) throw new Error(`no folder of job ${id}`);
  return join(dataDir, 'jobs', name);
}

/** Runs the benchmark with `jobs` jobs; `progress` gets one line per step. */
export async function runSupervisorBench(
  jobs: number,
  progress: (message: string) => void,
): Promise<SupervisorBenchResult> {
  const dir = mkdtempSync(join(tmpdir(), 'gpushare-supervisor-bench-'));
  const cleanup = new BenchCleanup(dir);
  const stderrTail = { text: '' };
  const options = { ...DEFAULT_SERVER_BENCH_OPTIONS, simulateGpus: SIMULATED_GPUS };
  const sandboxed = process.getuid?.() === 0 && ['/usr/bin/bwrap', '/bin/bwrap'].some(existsSync);
  let client: KeepAliveClient | null = null;
  const connect = async (): Promise<KeepAliveClient> => {
    const { port, caCert } = await startServerProcess(cleanup, options, stderrTail, !sandboxed);
    return new KeepAliveClient(port, readFileSync(join(cleanup.dataDir, 'admin-token'), 'utf8').trim(), 8, caCert);
  };
  try {
    client = await connect();
    progress(
      `supervisor: server up (${sandboxed ? 'sandboxed jobs' : 'single-tenant, no sandbox'}); submitting ${jobs} jobs`,
    );
    const startedAt = performance.now();
    const ids: number[] = [];
    for (let i = 0; i < jobs; i++) {
      const body = {
        command: ['sh', '-c', WAIT_SCRIPT],
        name: `wait-${i}`,
        gpu: { gpuCount: 1, gpuMilli: 100, gpuMemoryMiB: 1024 },
      };
      const response = await client.call('POST', '/api/v1/jobs', JSON.stringify(body));
      if (response.status !== 201) throw new Error(`submit ${i}: HTTP ${response.status} ${response.body}`);
      ids.push((JSON.parse(response.body) as { id: number }).id);
    }
    const running = await waitForAll(
      client,
      ids,
      (j) => j.state === 'running' && typeof j.pid === 'number',
      120_000,
      'all jobs running',
    );
    const secondsUntilAllRunning = (performance.now() - startedAt) / 1000;
    progress(`supervisor: ${jobs} jobs running after ${num(secondsUntilAllRunning, 1)} s`);
    await sleep(1000); // settled

    const supervisorDir = join(cleanup.dataDir, 'supervisor');
    const supervisorPids = processesWithArguments('--serve', supervisorDir);
    const supervisor = sumMemory(supervisorPids);
    const helpers = ids.map((id) => {
      const pids = JSON.parse(readFileSync(join(folderOf(cleanup.dataDir, id), 'attempt-1.pid'), 'utf8')) as {
        jobPid: number;
        commandPid: number | null;
      };
      return helperPids(pids.jobPid, pids.commandPid ?? pids.jobPid);
    });
    const helperMemory = sumMemory(helpers.flat());
    const helpersPerJob = { rssKiB: helperMemory.rssKiB / jobs, pssKiB: helperMemory.pssKiB / jobs };
    const perJob = {
      rssKiB: (supervisor.rssKiB + helperMemory.rssKiB) / jobs,
      pssKiB: (supervisor.pssKiB + helperMemory.pssKiB) / jobs,
    };
    const old = await measureOldSupervisor(dir);
    const oldSupervisor = typeof old === 'string' ? null : old;
    const oldPerJob =
      oldSupervisor === null
        ? null
        : { rssKiB: oldSupervisor.rssKiB + helpersPerJob.rssKiB, pssKiB: oldSupervisor.pssKiB + helpersPerJob.pssKiB };

    progress('supervisor: killing the server (SIGKILL) and starting it again');
    cleanup.server?.kill('SIGKILL');
    await stopServerProcess(cleanup.server!);
    client.close();
    client = await connect();
    const readopted = await waitForAll(client, ids, (j) => j.state === 'running', 60_000, 'all jobs re-adopted');
    const samePidsAfterServerKill = readopted.filter((j, i) => j.pid === running[i]!.pid).length;
    const sameSupervisor = processesWithArguments('--serve', supervisorDir).join() === supervisorPids.join();
    progress(
      `supervisor: ${samePidsAfterServerKill}/${jobs} running with the same pid after the restart; same ` +
        `supervisor: ${sameSupervisor}`,
    );

    for (const id of ids) writeFileSync(join(folderOf(cleanup.dataDir, id), 'work', 'release'), '');
    const ended = await waitForAll(
      client,
      ids,
      (j) => ['succeeded', 'failed', 'cancelled', 'lost'].includes(j.state),
      120_000,
      'all jobs ended',
    );
    const succeeded = ended.filter((j) => j.state === 'succeeded').length;
    const releasedInLog = ids.filter(
      (id) => readFileSync(join(folderOf(cleanup.dataDir, id), 'attempt-1.stdout.log'), 'utf8') === 'released\n',
    ).length;
    progress(`supervisor: ${succeeded}/${jobs} succeeded, ${releasedInLog} with their output in their log`);
    client.close();
    client = null;
    await stopServerProcess(cleanup.server!);
    await reapJobs(cleanup);
    const measuredMiB = perJob.rssKiB / 1024;
    return {
      jobs,
      sandboxed,
      secondsUntilAllRunning,
      supervisors: supervisorPids.length,
      supervisor,
      helpersPerJob,
      perJob,
      oldSupervisor,
      oldBaselineNote: typeof old === 'string' ? old : null,
      oldPerJob,
      rssRatio: oldPerJob === null ? null : perJob.rssKiB / oldPerJob.rssKiB,
      samePidsAfterServerKill,
      succeeded,
      releasedInLog,
      targets: {
        rssMiBPerJob: { target: TARGET_MIB_PER_JOB, measured: measuredMiB, pass: measuredMiB <= TARGET_MIB_PER_JOB },
        noneLost: {
          pass: sameSupervisor && samePidsAfterServerKill === jobs && succeeded === jobs && releasedInLog === jobs,
        },
      },
    };
  } catch (error) {
    if (stderrTail.text) progress(`server stderr (tail):\n${stderrTail.text.slice(-2000)}`);
    throw error;
  } finally {
    client?.close();
    if (cleanup.server) await stopServerProcess(cleanup.server);
    await reapJobs(cleanup);
    rmSync(dir, { recursive: true, force: true });
  }
}

/** The report lines of a result, under `title`. */
export function formatSupervisorBench(r: SupervisorBenchResult, title: string): string[] {
  const line = (label: string, m: MemoryKiB | null): string =>
    `  ${label.padEnd(54)} ` +
    `${m === null ? 'n/a' : `RSS ${mib(m.rssKiB).padStart(6)} MiB   PSS ${mib(m.pssKiB).padStart(6)} MiB`}`;
  return [
    title,
    `  ${r.jobs} jobs waiting for a file, ` +
      `${r.sandboxed ? 'sandboxed (bubblewrap)' : 'without a sandbox (--single-tenant)'}; all running after ` +
      `${num(r.secondsUntilAllRunning, 1)} s`,
    line(`supervisor (${r.supervisors} process for all jobs)`, r.supervisor),
    line('sandbox helpers, per job', r.helpersPerJob),
    line('per job: supervisor ÷ jobs + helpers', r.perJob),
    line(`old design per job (supervisor of ${OLD_SUPERVISOR_COMMIT} + helpers)`, r.oldPerJob),
    ...(r.oldBaselineNote === null ? [] : [`  (old baseline: ${r.oldBaselineNote})`]),
    `  ratio new ÷ old (RSS): ${r.rssRatio === null ? 'n/a' : num(r.rssRatio, 3)}`,
    `  target ≤ ${r.targets.rssMiBPerJob.target} MiB RSS per job: ` +
      `${num(r.targets.rssMiBPerJob.measured, 2)} MiB — ${r.targets.rssMiBPerJob.pass ? 'PASS' : 'FAIL'}`,
    `  kill -9 of the server, restart: ${r.samePidsAfterServerKill}/${r.jobs} same pids; released: ` +
      `${r.succeeded}/${r.jobs} succeeded, ${r.releasedInLog} logs complete — ` +
      `${r.targets.noneLost.pass ? 'PASS' : 'FAIL'}`,
  ];
}
