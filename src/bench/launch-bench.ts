/**
 * Benchmark of submitting while jobs launch, and of launches per second (`npm run bench -- --only
 * launch`), against a real `gpushare serve` (a child process; its jobs sandboxed when the host
 * can, as the supervisor benchmark runs them) on 16 simulated A100-80GB GPUs:
 *
 *  1. idle baseline: every GPU cordoned, `idleSubmits` submits one after another (nothing can
 *     launch), each timed; then those jobs are cancelled and the GPUs uncordoned;
 *  2. while jobs launch: `rounds` rounds of `launchingSubmits` (40) submits one after another of
 *     jobs that start at once (`sleep`, a 0.05 GPU share), each timed while the earlier jobs of the
 *     round launch; a round ends once its jobs all run; then every one of them is cancelled;
 *  3. throughput: `throughputJobs` (2,000) submits from `throughputClients` clients, each job
 *     `true` (a 0.01 GPU share, it ends at once), timed from the first submit until the last job
 *     has started (none pending or scheduled: `GET /api/v1/jobs?state=pending,scheduled&limit=1`); then every job must
 *     end
 *     `succeeded`.
 * Targets: submit p99 while launching within 3× the idle p99 and under 50 ms; ≥ 150 jobs/s.
 */
import { chmodSync, existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { nearestRank } from '../lib/statistics.js';
import { BenchCleanup, reapJobs } from './bench-cleanup.js';
import { num } from './format.js';
import { KeepAliveClient } from './http-load.js';
import { DEFAULT_SERVER_BENCH_OPTIONS } from './server-bench-options.js';
import { startServerProcess, stopServerProcess } from './server-process.js';

/** Settings of the launch benchmark. */
export interface LaunchBenchOptions {
  readonly idleSubmits: number;
  readonly rounds: number;
  readonly launchingSubmits: number;
  readonly throughputJobs: number;
  readonly throughputClients: number;
  /** Run jobs in the sandbox: 'auto' (default) when the host can (root and bubblewrap). */
  readonly sandbox?: 'auto' | boolean;
}

/** Default: 200 idle submits, 5 rounds of 40 while launching, 2,000 jobs from 8 clients. */
export const DEFAULT_LAUNCH_BENCH_OPTIONS: LaunchBenchOptions = {
  idleSubmits: 200,
  rounds: 5,
  launchingSubmits: 40,
  throughputJobs: 2000,
  throughputClients: 8,
};

/** Latencies of a set of submits, ms. */
export interface SubmitLatency {
  readonly submits: number;
  readonly p50Ms: number;
  readonly p99Ms: number;
  readonly maxMs: number;
}

/** What the launch benchmark measured. */
export interface LaunchBenchResult {
  readonly sandboxed: boolean;
  readonly idle: SubmitLatency;
  readonly whileLaunching: SubmitLatency;
  /** Seconds from a round's first submit until all its jobs ran, per round. */
  readonly roundSeconds: readonly number[];
  readonly throughputJobs: number;
  /** Seconds from the first submit until the last job started. */
  readonly throughputSeconds: number;
  readonly jobsStartedPerSecond: number;
  readonly throughputSucceeded: number;
}

const SUBMIT_P99_RATIO_TARGET = 3;
const SUBMIT_P99_TARGET_MS = 50;
const JOBS_PER_SECOND_TARGET = 150;
const GPUS = 16;

const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));

function latency(samples: readonly number[]): SubmitLatency {
  const sorted = [...samples].sort((a, b) => a - b);
  return {
    submits: sorted.length,
    p50Ms: nearestRank(sorted, 50) ?? 0,
    p99Ms: nearestRank(sorted, 99) ?? 0,
    maxMs: sorted[sorted.length - 1] ?? 0,
  };
}

/** Runs the benchmark; `progress` gets one line per step. */
export async function runLaunchBench(
  options: LaunchBenchOptions,
  progress: (message: string) => void,
): Promise<LaunchBenchResult> {
  const dir = mkdtempSync(join(tmpdir(), 'gpushare-launch-bench-'));
  // Passable by others, as /var/lib is: sandboxes then start under the tenant's uid (decision 0036).
  chmodSync(dir, 0o711);
  const cleanup = new BenchCleanup(dir);
  const stderrTail = { text: '' };
  const sandboxed =
    options.sandbox === undefined || options.sandbox === 'auto'
      ? process.getuid?.() === 0 && ['/usr/bin/bwrap', '/bin/bwrap'].some(existsSync)
      : options.sandbox;
  let client: KeepAliveClient | null = null;
  try {
    const { port, caCert } = await startServerProcess(
      cleanup,
      { ...DEFAULT_SERVER_BENCH_OPTIONS, simulateGpus: `${GPUS}xA100-80GB` },
      stderrTail,
      !sandboxed,
    );
    client = new KeepAliveClient(
      port,
      readFileSync(join(cleanup.dataDir, 'admin-token'), 'utf8').trim(),
      options.throughputClients,
      caCert,
    );
    const c = client;
    const call = async (method: string, path: string, body?: unknown): Promise<unknown> => {
      const response = await c.call(method, path, body === undefined ? undefined : JSON.stringify(body));
      if (response.status >= 300)
        throw new Error(`${method} ${path}: HTTP ${response.status} ${response.body.slice(0, 300)}`);
      return JSON.parse(response.body) as unknown;
    };
    const submit = async (command: string[], gpuMilli: number, name: string): Promise<{ id: number; ms: number }> => {
      const started = performance.now();
      const job = (await call('POST', '/api/v1/jobs', {
        command,
        name,
        gpu: { gpuCount: 1, gpuMilli, gpuMemoryMiB: 512 },
      })) as { id: number };
      return { id: job.id, ms: performance.now() - started };
    };
    // One job id at most per check (GET /api/v1/jobs?state=…&limit=1&fields=id): the polling costs the server next to
    // nothing.
    const noneIn = async (states: string): Promise<boolean> =>
      ((await call('GET', `/api/v1/jobs?state=${states}&limit=1&fields=id`)) as { jobs: unknown[] }).jobs.length === 0;
    const waitFor = async (what: string, states: string, timeoutMs: number): Promise<void> => {
      const deadline = Date.now() + timeoutMs;
      while (!(await noneIn(states))) {
        if (Date.now() > deadline) throw new Error(`${what}: not within ${timeoutMs / 1000} s (jobs still ${states})`);
        await sleep(50);
      }
    };
    progress(`launch: server up (${sandboxed ? 'sandboxed jobs' : 'single-tenant, no sandbox'})`);

    for (let i = 0; i < GPUS; i++) await call('POST', `/api/v1/gpus/${i}/cordon`);
    const idleIds: number[] = [];
    const idleMs: number[] = [];
    for (let i = 0; i < options.idleSubmits; i++) {
      const { id, ms } = await submit(['sleep', '600'], 50, `idle-${i}`);
      idleIds.push(id);
      idleMs.push(ms);
    }
    for (const id of idleIds) await call('POST', `/api/v1/jobs/${id}/cancel`);
    for (let i = 0; i < GPUS; i++) await call('POST', `/api/v1/gpus/${i}/uncordon`);
    progress(`launch: idle submits p99 ${num(latency(idleMs).p99Ms, 2)} ms`);

    const launchingMs: number[] = [];
    const roundSeconds: number[] = [];
    const launched: number[] = [];
    for (let round = 0; round < options.rounds; round++) {
      const started = performance.now();
      for (let i = 0; i < options.launchingSubmits; i++) {
        const { id, ms } = await submit(['sleep', '600'], 50, `launch-${round}-${i}`);
        launched.push(id);
        launchingMs.push(ms);
      }
      await waitFor(`round ${round + 1}: ${options.launchingSubmits} jobs running`, 'pending,scheduled', 120_000);
      roundSeconds.push((performance.now() - started) / 1000);
    }
    for (const id of launched) await call('POST', `/api/v1/jobs/${id}/cancel`);
    await waitFor('the launched jobs cancelled', 'running', 120_000);
    progress(`launch: submits while 40 jobs launch p99 ${num(latency(launchingMs).p99Ms, 2)} ms`);

    const throughputStarted = performance.now();
    let next = 0;
    const worker = async (): Promise<void> => {
      while (next < options.throughputJobs) {
        const i = next++;
        await submit(['true'], 10, `many-${i}`);
      }
    };
    await Promise.all(Array.from({ length: options.throughputClients }, worker));
    await waitFor(`${options.throughputJobs} jobs started`, 'pending,scheduled', 300_000);
    const throughputSeconds = (performance.now() - throughputStarted) / 1000;
    await waitFor(`${options.throughputJobs} jobs ended`, 'running', 300_000);
    const listed = (await call('GET', '/api/v1/jobs?all=true')) as { jobs: Array<{ name: string; state: string }> };
    const succeeded = listed.jobs.filter((j) => j.name.startsWith('many-') && j.state === 'succeeded').length;
    progress(
      `launch: ${options.throughputJobs} jobs started in ${num(throughputSeconds, 2)} s; ${succeeded} succeeded`,
    );
    return {
      sandboxed,
      idle: latency(idleMs),
      whileLaunching: latency(launchingMs),
      roundSeconds,
      throughputJobs: options.throughputJobs,
      throughputSeconds,
      jobsStartedPerSecond: options.throughputJobs / throughputSeconds,
      throughputSucceeded: succeeded,
    };
  } catch (error) {
    throw new Error(`${(error as Error).message}\nserver stderr (tail): ${stderrTail.text.slice(-2000)}`);
  } finally {
    client?.close();
    if (cleanup.server) await stopServerProcess(cleanup.server);
    await reapJobs(cleanup);
    rmSync(dir, { recursive: true, force: true });
  }
}

/** The report lines of the launch benchmark. */
export function formatLaunchBench(r: LaunchBenchResult): string[] {
  const row = (name: string, l: SubmitLatency): string =>
    `  ${name.padEnd(34)} ${String(l.submits).padStart(5)} submits  p50 ${num(l.p50Ms, 2)} ms  p99 ` +
    `${num(l.p99Ms, 2)} ms  max ${num(l.maxMs, 2)} ms`;
  const verdict = (ok: boolean): string => (ok ? 'PASS' : 'FAIL');
  const ratio = r.whileLaunching.p99Ms / r.idle.p99Ms;
  return [
    `Submitting while jobs launch (${r.sandboxed ? 'sandboxed jobs' : 'no sandbox, --single-tenant'}; 16 ` +
      `simulated A100-80GB)`,
    row('idle (GPUs cordoned)', r.idle),
    row('while 40 jobs launch', r.whileLaunching),
    `  rounds of 40 until all ran: ${r.roundSeconds.map((s) => `${num(s, 2)} s`).join(', ')}`,
    `  p99 while launching ≤ ${SUBMIT_P99_RATIO_TARGET}× idle: ` +
      `${verdict(ratio <= SUBMIT_P99_RATIO_TARGET)} (${num(ratio, 2)}×); < ${SUBMIT_P99_TARGET_MS} ms: ` +
      `${verdict(r.whileLaunching.p99Ms < SUBMIT_P99_TARGET_MS)}`,
    `  ${r.throughputJobs} submits that each start a job: ${num(r.jobsStartedPerSecond, 1)} jobs/s (` +
      `${num(r.throughputSeconds, 2)} s until the last started; ${r.throughputSucceeded} succeeded) ≥ ` +
      `${JOBS_PER_SECOND_TARGET}: ` +
      `${verdict(r.jobsStartedPerSecond >= JOBS_PER_SECOND_TARGET && r.throughputSucceeded === r.throughputJobs)}`,
  ];
}

/**
 * The line comparing the sandboxed launch rate with the unsandboxed one of the same run (the
 * baseline: the same server, jobs and clients, without bubblewrap's chain), e.g. `sandboxed: 162.3
 * jobs/s, 0.71× the 228.4 jobs/s without a sandbox in this run (target ≥ 150: PASS)`.
 */
export function formatSandboxedRate(unsandboxed: LaunchBenchResult, sandboxed: LaunchBenchResult): string {
  const ok = sandboxed.jobsStartedPerSecond >= JOBS_PER_SECOND_TARGET;
  return (
    `  sandboxed: ${num(sandboxed.jobsStartedPerSecond, 1)} jobs/s, ` +
    `${num(sandboxed.jobsStartedPerSecond / unsandboxed.jobsStartedPerSecond, 2)}× the ` +
    `${num(unsandboxed.jobsStartedPerSecond, 1)} jobs/s without a sandbox in this run (target ≥ ` +
    `${JOBS_PER_SECOND_TARGET}: ${ok ? 'PASS' : 'FAIL'})`
  );
}
