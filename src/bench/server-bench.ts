/**
 * Benchmark of the standalone server (`gpushare serve`), run as a child process so that the load
 * generator does not share the server's event loop:
 *
 *  1. starts `node bin/gpushare serve --port 0 --simulate-gpus 16xA100-80GB` on 127.0.0.1 in a
 *     temporary data dir (XDG_CONFIG_HOME / XDG_DATA_HOME point into it, so the user's CLI config
 *     is left alone);
 *  2. baseline: `GET /healthz` with the same client and concurrency (the HTTP floor);
 *  3. submits up to `jobs` jobs of seeded random shapes (`sleep 100000`, never finishing during the
 *     run) from a closed loop with `concurrency` requests in flight over keep-alive connections,
 *     bounded by `timeBoundSeconds`;
 *  4. reads `GET /api/v1/status` (scheduling pass durations, jobs per state);
 *  5. stops the server (SIGTERM) and kills every job process it started: the process groups named
 *     in `DIR/jobs/<id>/attempt-<n>.pid`, and, as a safety net, any process whose working
 *     directory or command line lies in the temp dir (supervisors still starting); then removes
 *     the temp dir and checks that no `sleep 100000` of ours is left.
 *
 * To profile the server: GPUSHARE_BENCH_SERVER_NODE_ARGS='--cpu-prof --cpu-prof-dir=/tmp/prof'.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, readlinkSync, rmSync } from 'node:fs';
import { Agent, request } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { readJobPidFile } from '../adapters/process/attempt-files.js';
import { SeededRng } from '../core/index.js';
import type { SubmitJobInput } from '../contract/api.js';
import { num, table, times } from './format.js';

/** Settings of one server benchmark. */
export interface ServerBenchOptions {
  /** Jobs to submit (upper bound of the submit loop). */
  readonly jobs: number;
  /** Requests in flight at any time (also the keep-alive sockets). */
  readonly concurrency: number;
  /** Wall-clock bound of the submit loop, s. */
  readonly timeBoundSeconds: number;
  /** Requests of the `/healthz` baseline (after `baselineWarmupRequests` unmeasured ones). */
  readonly baselineRequests: number;
  readonly baselineWarmupRequests: number;
  /** Wall-clock bound of the baseline loop, s. */
  readonly baselineTimeBoundSeconds: number;
  /** Seed of the job shapes. */
  readonly seed: number;
  /** `--simulate-gpus` of the server. */
  readonly simulateGpus: string;
  /** Extra node flags of the server process, e.g. `--cpu-prof --cpu-prof-dir=/tmp/prof` (the server writes its profile at SIGTERM). */
  readonly serverNodeArgs: readonly string[];
  /** Targets: submits/s at least, scheduling pass p99 at most (ms). */
  readonly targetSubmitsPerSecond: number;
  readonly targetPassP99Ms: number;
}

export const DEFAULT_SERVER_BENCH_OPTIONS: ServerBenchOptions = {
  jobs: 10_000,
  concurrency: 16,
  timeBoundSeconds: 120,
  baselineRequests: 10_000,
  baselineWarmupRequests: 1_000,
  baselineTimeBoundSeconds: 30,
  seed: 42,
  simulateGpus: '16xA100-80GB',
  // Node refuses --cpu-prof in NODE_OPTIONS, so profiling flags for the server come from here.
  serverNodeArgs: (process.env.GPUSHARE_BENCH_SERVER_NODE_ARGS ?? '').split(/\s+/).filter((a) => a !== ''),
  targetSubmitsPerSecond: 500,
  targetPassP99Ms: 20,
};

/** One closed-loop run of requests. */
export interface LoadFigure {
  readonly requests: number;
  readonly ok: number;
  readonly failed: number;
  readonly firstFailure: string | null;
  readonly wallSeconds: number;
  readonly requestsPerSecond: number;
  readonly latencyP50Ms: number;
  readonly latencyP99Ms: number;
  readonly latencyMaxMs: number;
  /** True when the loop stopped at its time bound before doing all requests. */
  readonly hitTimeBound: boolean;
}

/** `scheduler` of `GET /api/v1/status`. */
export interface SchedulerFigure {
  readonly passes: number;
  readonly lastPassMs: number;
  readonly p50PassMs: number;
  readonly p99PassMs: number;
  readonly maxPassMs: number;
  readonly maxPendingConsidered: number;
}

/** What one server benchmark measured. */
export interface ServerBenchResult {
  /** ISO time the benchmark finished. */
  readonly measuredAt: string;
  readonly options: ServerBenchOptions;
  readonly serverStartSeconds: number;
  readonly baseline: LoadFigure;
  readonly submit: LoadFigure;
  /** Submits/s ÷ `/healthz` requests/s. */
  readonly submitToBaselineRatio: number;
  readonly scheduler: SchedulerFigure;
  /** Jobs per state at the end of the submit loop (from the status API). */
  readonly jobsByState: Readonly<Record<string, number>>;
  readonly targets: {
    readonly submitsPerSecond: { readonly target: number; readonly measured: number; readonly pass: boolean };
    readonly passP99Ms: { readonly target: number; readonly measured: number; readonly pass: boolean };
  };
  readonly cleanup: {
    readonly jobProcessGroupsKilled: number;
    readonly strayProcessesKilled: number;
    /** Processes still in the temp dir after the reaping (cwd or command line). */
    readonly leftoverProcesses: number;
    /** Job pids from the pid files still alive after the reaping. */
    readonly jobPidsAlive: number;
    /** `sleep 100000` processes on the whole machine afterwards, any owner (what `pgrep -f 'sleep 100000'` finds). */
    readonly sleepProcessesOnMachine: number;
    readonly tempDirRemoved: boolean;
  };
}

const BIN = fileURLToPath(new URL('../../bin/gpushare', import.meta.url));
const START_TIMEOUT_MS = 30_000;
const STOP_TIMEOUT_MS = 15_000;
const REAP_TIMEOUT_MS = 15_000;
const STDERR_TAIL_CHARS = 8_000;

/** Nearest-rank percentile of a sorted list (0 for an empty one). */
function percentile(sorted: Float64Array, p: number): number {
  if (sorted.length === 0) return 0;
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1))]!;
}

const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));

/** A keep-alive HTTP/1.1 client for one origin. */
class Client {
  private readonly agent: Agent;
  constructor(private readonly port: number, private readonly token: string, concurrency: number) {
    this.agent = new Agent({ keepAlive: true, maxSockets: concurrency, maxFreeSockets: concurrency });
  }

  /** One request; resolves with the status and body (never rejects for an HTTP status). */
  call(method: string, path: string, body?: string): Promise<{ status: number; body: string }> {
    return new Promise((resolveCall, rejectCall) => {
      const headers: Record<string, string | number> = { authorization: `Bearer ${this.token}` };
      if (body !== undefined) {
        headers['content-type'] = 'application/json';
        headers['content-length'] = Buffer.byteLength(body);
      }
      const req = request({ host: '127.0.0.1', port: this.port, method, path, agent: this.agent, headers }, (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () => resolveCall({ status: res.statusCode ?? 0, body: Buffer.concat(chunks).toString('utf8') }));
        res.on('error', rejectCall);
      });
      req.on('error', rejectCall);
      req.end(body);
    });
  }

  close(): void {
    this.agent.destroy();
  }
}

/**
 * Closed loop: `concurrency` workers issue requests `0..total-1` in order until all are done or
 * `timeBoundSeconds` have passed; measures each request's latency.
 */
async function closedLoop(total: number, concurrency: number, timeBoundSeconds: number, send: (i: number) => Promise<{ status: number; body: string }>): Promise<LoadFigure> {
  const latencies = new Float64Array(total);
  let next = 0;
  let ok = 0;
  let failed = 0;
  let firstFailure: string | null = null;
  const started = performance.now();
  const deadline = started + timeBoundSeconds * 1000;
  const worker = async (): Promise<void> => {
    while (next < total && performance.now() < deadline) {
      const i = next++;
      const t0 = performance.now();
      try {
        const res = await send(i);
        if (res.status >= 200 && res.status < 300) ok++;
        else {
          failed++;
          firstFailure ??= `HTTP ${res.status}: ${res.body.slice(0, 300)}`;
        }
      } catch (error) {
        failed++;
        firstFailure ??= (error as Error).message;
      }
      latencies[i] = performance.now() - t0;
    }
  };
  await Promise.all(Array.from({ length: concurrency }, worker));
  const wallSeconds = (performance.now() - started) / 1000;
  const done = next;
  const sorted = latencies.slice(0, done).sort();
  return {
    requests: done, ok, failed, firstFailure, wallSeconds,
    requestsPerSecond: done / wallSeconds,
    latencyP50Ms: percentile(sorted, 50),
    latencyP99Ms: percentile(sorted, 99),
    latencyMaxMs: done === 0 ? 0 : sorted[done - 1]!,
    hitTimeBound: done < total,
  };
}

/** `count` seeded job bodies: 1-2 GPUs, 0.1-1.0 of each, 2-40 GiB per GPU, `sleep 100000` in `workDir`. */
export function jobBodies(count: number, seed: number, workDir: string): string[] {
  const rng = new SeededRng(seed);
  const bodies: string[] = [];
  for (let i = 0; i < count; i++) {
    const body: SubmitJobInput = {
      command: ['sleep', '100000'],
      workingDirectory: workDir,
      name: `bench-${i}`,
      gpu: { gpuCount: 1 + rng.intn(2), gpuMilli: 100 * (1 + rng.intn(10)), gpuMemoryMiB: 1024 * (2 + rng.intn(39)) },
    };
    bodies.push(JSON.stringify(body));
  }
  return bodies;
}

/** Live pids (other than ours) whose cwd or command line lies under `dir` (Linux /proc; [] elsewhere). */
function processesUnder(dir: string): number[] {
  if (!existsSync('/proc/self')) return [];
  const found: number[] = [];
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    const pid = Number(entry);
    if (pid === process.pid) continue;
    try {
      const cwd = readlinkSync(`/proc/${pid}/cwd`);
      const cmdline = readFileSync(`/proc/${pid}/cmdline`, 'utf8');
      if (cwd === dir || cwd.startsWith(`${dir}/`) || cmdline.includes(dir)) found.push(pid);
    } catch {
      // gone, or not ours to inspect
    }
  }
  return found;
}

/** Live `sleep 100000` processes (what `pgrep -f 'sleep 100000'` finds), /proc only. */
function sleepProcesses(): number[] {
  if (!existsSync('/proc/self')) return [];
  const found: number[] = [];
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      if (readFileSync(`/proc/${entry}/cmdline`, 'utf8').replaceAll('\0', ' ').includes('sleep 100000')) found.push(Number(entry));
    } catch {
      // gone
    }
  }
  return found;
}

/** The job pids recorded in `dataDir/jobs/<id>/attempt-<n>.pid`. */
function recordedJobPids(dataDir: string): number[] {
  const jobsDir = join(dataDir, 'jobs');
  if (!existsSync(jobsDir)) return [];
  const pids: number[] = [];
  for (const id of readdirSync(jobsDir)) {
    let files: string[];
    try {
      files = readdirSync(join(jobsDir, id));
    } catch {
      continue;
    }
    for (const file of files) {
      if (!/^attempt-\d+\.pid$/.test(file)) continue;
      try {
        const pid = readJobPidFile(join(jobsDir, id, file));
        if (pid !== null) pids.push(pid);
      } catch {
        // half-written pid file: the next sweep reads it
      }
    }
  }
  return pids;
}

/** Blocks the thread for `ms` (only for the synchronous cleanup at exit). */
function sleepSync(ms: number): void {
  Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, ms);
}

/** True when `pid` exists and is not a zombie. */
function isLive(pid: number): boolean {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    return stat.slice(stat.lastIndexOf(')') + 2, stat.lastIndexOf(')') + 3) !== 'Z';
  } catch {
    return false;
  }
}

const killQuietly = (pid: number, signal: NodeJS.Signals): boolean => {
  try {
    process.kill(pid, signal);
    return true;
  } catch {
    return false;
  }
};

/** Everything to undo after (or during) a run; each step is idempotent. */
class Cleanup {
  server: ChildProcess | null = null;
  private readonly killedGroups = new Set<number>();
  /** Other processes signalled (supervisors, jobs not yet in a pid file), distinct pids. */
  private readonly strayPids = new Set<number>();

  /** @param dir the temp dir (the server's data dir is `dir/data`) */
  constructor(readonly dir: string) {}

  get dataDir(): string {
    return join(this.dir, 'data');
  }

  /** SIGKILL to the process group of every recorded job pid not killed yet. */
  killRecordedJobs(): void {
    for (const pid of recordedJobPids(this.dataDir)) {
      if (this.killedGroups.has(pid)) continue;
      this.killedGroups.add(pid);
      killQuietly(-pid, 'SIGKILL');
    }
  }

  /** SIGKILL to every process still in the temp dir (supervisors not yet past their launch). */
  killStrays(): number {
    const pids = processesUnder(this.dir).filter((pid) => pid !== this.server?.pid);
    for (const pid of pids) if (killQuietly(pid, 'SIGKILL')) this.strayPids.add(pid);
    return pids.length;
  }

  get groupsKilled(): number {
    return this.killedGroups.size;
  }

  get straysKilled(): number {
    return this.strayPids.size;
  }

  /** Job pids from the pid files that are still alive (not zombies). */
  liveJobPids(): number[] {
    return [...this.killedGroups].filter(isLive);
  }

  /** Synchronous last resort (exit or signal of the benchmark itself): kill everything, remove the dir. */
  emergency(): void {
    if (this.server && this.server.exitCode === null && this.server.signalCode === null) this.server.kill('SIGKILL');
    for (let sweep = 0; sweep < 20; sweep++) {
      this.killRecordedJobs();
      if (this.killStrays() === 0 && sweep > 0) break;
      sleepSync(100);
    }
    try {
      rmSync(this.dir, { recursive: true, force: true, maxRetries: 5, retryDelay: 100 });
    } catch (error) {
      process.stderr.write(`[bench] could not remove ${this.dir}: ${(error as Error).message}\n`);
    }
  }
}

/** Starts the server; resolves with its port once it prints its URL. */
function startServerProcess(cleanup: Cleanup, options: ServerBenchOptions, stderrTail: { text: string }): Promise<number> {
  const dir = cleanup.dir;
  const child = spawn(process.execPath, [...options.serverNodeArgs, BIN, 'serve', '--port', '0', '--host', '127.0.0.1', '--data-dir', cleanup.dataDir, '--simulate-gpus', options.simulateGpus], {
    env: { ...process.env, XDG_CONFIG_HOME: join(dir, 'config'), XDG_DATA_HOME: join(dir, 'xdg-data') },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  cleanup.server = child;
  // Both pipes are drained for the whole run, so the server never blocks on a full pipe.
  child.stderr!.setEncoding('utf8');
  child.stderr!.on('data', (chunk: string) => {
    stderrTail.text = (stderrTail.text + chunk).slice(-STDERR_TAIL_CHARS);
  });
  child.stdout!.setEncoding('utf8');
  return new Promise((resolvePort, rejectPort) => {
    let stdout = '';
    let settled = false;
    const fail = (message: string): void => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      rejectPort(new Error(`${message}\nserver stdout: ${stdout.slice(-2000)}\nserver stderr: ${stderrTail.text.slice(-2000)}`));
    };
    const timer = setTimeout(() => fail(`the server did not print its URL within ${START_TIMEOUT_MS / 1000} s`), START_TIMEOUT_MS);
    child.stdout!.on('data', (chunk: string) => {
      stdout += chunk;
      const match = /listening on http:\/\/127\.0\.0\.1:(\d+)/.exec(stdout);
      if (match && !settled) {
        settled = true;
        clearTimeout(timer);
        resolvePort(Number(match[1]));
      }
    });
    child.once('error', (error) => fail(`cannot start the server: ${error.message}`));
    child.once('exit', (code, signal) => fail(`the server exited during start (code ${code}, signal ${signal})`));
  });
}

/** SIGTERM, then SIGKILL after STOP_TIMEOUT_MS; resolves once the server has exited. */
async function stopServerProcess(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  const exited = new Promise<void>((r) => child.once('exit', () => r()));
  child.kill('SIGTERM');
  const timedOut = await Promise.race([exited.then(() => false), sleep(STOP_TIMEOUT_MS).then(() => true)]);
  if (timedOut) {
    child.kill('SIGKILL');
    await exited;
  }
}

/**
 * Kills the jobs' process groups and stray processes until two sweeps in a row find nothing alive
 * in the temp dir (a supervisor may write its pid file after the first sweep).
 * @returns processes still alive at the end
 */
async function reapJobs(cleanup: Cleanup): Promise<number> {
  const deadline = performance.now() + REAP_TIMEOUT_MS;
  let quietSweeps = 0;
  while (performance.now() < deadline) {
    cleanup.killRecordedJobs();
    const alive = cleanup.killStrays() + cleanup.liveJobPids().length;
    quietSweeps = alive === 0 ? quietSweeps + 1 : 0;
    if (quietSweeps >= 2) return 0;
    await sleep(250);
  }
  return processesUnder(cleanup.dir).length;
}

/** Runs the server benchmark; `progress` gets one line per step. */
export async function runServerBench(options: ServerBenchOptions, progress: (message: string) => void): Promise<ServerBenchResult> {
  const dir = mkdtempSync(join(tmpdir(), 'gpushare-server-bench-'));
  const workDir = join(dir, 'work');
  mkdirSync(workDir);
  const cleanup = new Cleanup(dir);
  const onExit = (): void => cleanup.emergency();
  const onSignal = (signal: NodeJS.Signals): void => {
    cleanup.emergency();
    process.kill(process.pid, signal);
  };
  process.once('exit', onExit);
  process.once('SIGINT', onSignal);
  process.once('SIGTERM', onSignal);
  const stderrTail = { text: '' };
  let client: Client | null = null;
  try {
    const startedAt = performance.now();
    const port = await startServerProcess(cleanup, options, stderrTail);
    const serverStartSeconds = (performance.now() - startedAt) / 1000;
    const token = readFileSync(join(cleanup.dataDir, 'admin-token'), 'utf8').trim();
    progress(`server: listening on 127.0.0.1:${port} after ${num(serverStartSeconds, 2)} s (${options.simulateGpus}, data in ${dir})`);
    client = new Client(port, token, options.concurrency);
    const c = client;

    const status = JSON.parse((await c.call('GET', '/api/v1/status')).body) as { gpuSource?: string };
    if (status.gpuSource !== 'simulated') throw new Error(`expected simulated GPUs, the server reports ${String(status.gpuSource)}`);

    // Baseline: the HTTP floor with the same client, warm connections.
    await closedLoop(options.baselineWarmupRequests, options.concurrency, options.baselineTimeBoundSeconds, () => c.call('GET', '/healthz'));
    const baseline = await closedLoop(options.baselineRequests, options.concurrency, options.baselineTimeBoundSeconds, () => c.call('GET', '/healthz'));
    progress(`server: /healthz ${baseline.requests} requests in ${num(baseline.wallSeconds, 2)} s = ${num(baseline.requestsPerSecond, 0)}/s`);

    // Submits.
    const bodies = jobBodies(options.jobs, options.seed, workDir);
    progress(`server: submitting up to ${options.jobs} jobs, ${options.concurrency} in flight, bound ${options.timeBoundSeconds} s…`);
    const submit = await closedLoop(options.jobs, options.concurrency, options.timeBoundSeconds, (i) => c.call('POST', '/api/v1/jobs', bodies[i]));
    progress(`server: ${submit.requests} submits (${submit.failed} failed) in ${num(submit.wallSeconds, 2)} s = ${num(submit.requestsPerSecond, 0)}/s`);
    if (submit.firstFailure) progress(`server: first failed submit: ${submit.firstFailure}`);

    const endStatus = JSON.parse((await c.call('GET', '/api/v1/status')).body) as { jobs: Record<string, number>; scheduler: SchedulerFigure };
    c.close();
    client = null;

    // Cleanup: server first (no launches after it has exited), then the jobs, then the dir.
    progress('server: stopping (SIGTERM) and killing its jobs…');
    await stopServerProcess(cleanup.server!);
    const leftoverProcesses = await reapJobs(cleanup);
    const jobPidsAlive = cleanup.liveJobPids().length;
    const sleepProcessesOnMachine = sleepProcesses().length;
    rmSync(dir, { recursive: true, force: true });
    const tempDirRemoved = !existsSync(dir);
    progress(`server: killed ${cleanup.groupsKilled} job process group(s), ${cleanup.straysKilled} other process(es) in the temp dir; ${leftoverProcesses} left in the temp dir, ${jobPidsAlive} job pid(s) alive; ${sleepProcessesOnMachine} 'sleep 100000' process(es) on the machine (any owner)`);

    const scheduler = endStatus.scheduler;
    return {
      measuredAt: new Date().toISOString(),
      options,
      serverStartSeconds,
      baseline,
      submit,
      submitToBaselineRatio: submit.requestsPerSecond / baseline.requestsPerSecond,
      scheduler,
      jobsByState: endStatus.jobs,
      targets: {
        submitsPerSecond: { target: options.targetSubmitsPerSecond, measured: submit.requestsPerSecond, pass: submit.requestsPerSecond >= options.targetSubmitsPerSecond },
        passP99Ms: { target: options.targetPassP99Ms, measured: scheduler.p99PassMs, pass: scheduler.p99PassMs <= options.targetPassP99Ms },
      },
      cleanup: { jobProcessGroupsKilled: cleanup.groupsKilled, strayProcessesKilled: cleanup.straysKilled, leftoverProcesses, jobPidsAlive, sleepProcessesOnMachine, tempDirRemoved },
    };
  } catch (error) {
    if (stderrTail.text) progress(`server stderr (tail):\n${stderrTail.text.slice(-2000)}`);
    throw error;
  } finally {
    client?.close();
    if (cleanup.server) await stopServerProcess(cleanup.server);
    if (existsSync(dir)) {
      await reapJobs(cleanup);
      rmSync(dir, { recursive: true, force: true });
    }
    process.removeListener('exit', onExit);
    process.removeListener('SIGINT', onSignal);
    process.removeListener('SIGTERM', onSignal);
  }
}

/** The report lines of a server benchmark (section `heading`). */
export function formatServerBench(r: ServerBenchResult, heading: string): string[] {
  const o = r.options;
  const s = r.scheduler;
  const verdict = (ok: boolean): string => (ok ? 'PASS' : 'FAIL');
  const load = (name: string, f: LoadFigure): string[] => [
    name, `${f.requests}${f.hitTimeBound ? ' (time bound)' : ''}`, String(f.failed), num(f.wallSeconds, 2), num(f.requestsPerSecond, 0),
    num(f.latencyP50Ms, 2), num(f.latencyP99Ms, 2), num(f.latencyMaxMs, 1),
  ];
  const states = Object.entries(r.jobsByState).filter(([, n]) => n > 0).map(([state, n]) => `${state} ${n}`).join(', ') || 'none';
  const out: string[] = [];
  out.push(`${heading} (\`gpushare serve\` child process, ${o.simulateGpus} simulated, 127.0.0.1, node:http keep-alive client, ${o.concurrency} requests in flight)`);
  out.push(table([
    ['load', 'requests', 'failed', 'wall (s)', 'requests/s', 'p50 (ms)', 'p99 (ms)', 'max (ms)'],
    load('GET /healthz (baseline, HTTP floor)', r.baseline),
    load(`POST /api/v1/jobs (seed ${o.seed}; 1-2 GPUs × 0.1-1.0, 2-40 GiB; sleep 100000)`, r.submit),
  ], [false, true, true, true, true, true, true, true]));
  out.push(`submit throughput ÷ /healthz baseline: ${times(r.submitToBaselineRatio, 3)} (${num(r.submit.requestsPerSecond, 0)} ÷ ${num(r.baseline.requestsPerSecond, 0)} requests/s)`);
  if (r.submit.firstFailure) out.push(`first failed submit: ${r.submit.firstFailure}`);
  out.push(`scheduling passes (GET /api/v1/status at the end; ${s.passes} passes in all, percentiles over the last ${Math.min(s.passes, 4096)}):`
    + ` p50 ${num(s.p50PassMs, 2)} ms, p99 ${num(s.p99PassMs, 2)} ms, max ${num(s.maxPassMs, 2)} ms, last ${num(s.lastPassMs, 2)} ms; at most ${s.maxPendingConsidered} pending jobs in one pass`);
  out.push(`jobs at the end: ${states}`);
  out.push(table([
    ['target', 'measured', 'target value', 'measured ÷ target', 'verdict'],
    ['submits/s ≥', num(r.targets.submitsPerSecond.measured, 0), num(r.targets.submitsPerSecond.target, 0),
      times(r.targets.submitsPerSecond.measured / r.targets.submitsPerSecond.target, 3), verdict(r.targets.submitsPerSecond.pass)],
    ['scheduling pass p99 (ms) ≤', num(r.targets.passP99Ms.measured, 2), num(r.targets.passP99Ms.target, 0),
      times(r.targets.passP99Ms.measured / r.targets.passP99Ms.target, 3), verdict(r.targets.passP99Ms.pass)],
  ], [false, true, true, true, false]));
  const c = r.cleanup;
  out.push(`cleanup: server stopped with SIGTERM; SIGKILL to ${c.jobProcessGroupsKilled} job process group(s) (pid files) and ${c.strayProcessesKilled} other process(es) in the temp dir (supervisors, dying jobs);`
    + ` ${c.leftoverProcesses} process(es) left in the temp dir, ${c.jobPidsAlive} job pid(s) alive, ${c.sleepProcessesOnMachine} 'sleep 100000' on the machine (any owner);`
    + ` temp dir ${c.tempDirRemoved ? 'removed' : 'NOT removed'}`);
  out.push(`server start: ${num(r.serverStartSeconds, 2)} s`);
  return out;
}
