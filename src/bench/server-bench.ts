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
 * The parts: server-process.ts (the server child), http-load.ts (keep-alive client, closed loop,
 * latency percentiles), bench-cleanup.ts (killing job processes), server-bench-options.ts and
 * server-bench-report.ts (settings, result and report lines).
 *
 * To profile the server: GPUSHARE_BENCH_SERVER_NODE_ARGS='--cpu-prof --cpu-prof-dir=/tmp/prof'.
 */
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { SeededRng } from '../core/index.js';
import type { SubmitJobInput } from '../contract/api.js';
import { BenchCleanup, reapJobs, sleepProcesses } from './bench-cleanup.js';
import { num } from './format.js';
import { closedLoop, KeepAliveClient } from './http-load.js';
import type { ServerBenchOptions } from './server-bench-options.js';
import type { SchedulerFigure, ServerBenchResult } from './server-bench-report.js';
import { startServerProcess, stopServerProcess } from './server-process.js';

export { DEFAULT_SERVER_BENCH_OPTIONS, type ServerBenchOptions } from './server-bench-options.js';
export { formatServerBench, type ServerBenchResult } from './server-bench-report.js';

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

/** Runs the server benchmark; `progress` gets one line per step. */
export async function runServerBench(
  options: ServerBenchOptions,
  progress: (message: string) => void,
): Promise<ServerBenchResult> {
  const dir = mkdtempSync(join(tmpdir(), 'gpushare-server-bench-'));
  const workDir = join(dir, 'work');
  mkdirSync(workDir);
  const cleanup = new BenchCleanup(dir);
  const onExit = (): void => cleanup.emergency();
  const onSignal = (signal: NodeJS.Signals): void => {
    cleanup.emergency();
    process.kill(process.pid, signal);
  };
  process.once('exit', onExit);
  process.once('SIGINT', onSignal);
  process.once('SIGTERM', onSignal);
  const stderrTail = { text: '' };
  let client: KeepAliveClient | null = null;
  try {
    const startedAt = performance.now();
    const { port, scheme, caCert } = await startServerProcess(cleanup, options, stderrTail);
    const serverStartSeconds = (performance.now() - startedAt) / 1000;
    const token = readFileSync(join(cleanup.dataDir, 'admin-token'), 'utf8').trim();
    progress(
      `server: listening on ${scheme}://127.0.0.1:${port} after ${num(serverStartSeconds, 2)} s (` +
        `${options.simulateGpus}, data in ${dir})`,
    );
    client = new KeepAliveClient(port, token, options.concurrency, caCert);
    const c = client;

    const status = JSON.parse((await c.call('GET', '/api/v1/status')).body) as { gpuSource?: string };
    if (status.gpuSource !== 'simulated')
      throw new Error(`expected simulated GPUs, the server reports ${String(status.gpuSource)}`);

    // Baseline: the HTTP floor with the same client, warm connections.
    await closedLoop(options.baselineWarmupRequests, options.concurrency, options.baselineTimeBoundSeconds, () =>
      c.call('GET', '/healthz'),
    );
    const baseline = await closedLoop(
      options.baselineRequests,
      options.concurrency,
      options.baselineTimeBoundSeconds,
      () => c.call('GET', '/healthz'),
    );
    progress(
      `server: /healthz ${baseline.requests} requests in ${num(baseline.wallSeconds, 2)} s = ` +
        `${num(baseline.requestsPerSecond, 0)}/s`,
    );

    // Submits.
    const bodies = jobBodies(options.jobs, options.seed, workDir);
    progress(
      `server: submitting up to ${options.jobs} jobs, ${options.concurrency} in flight, bound ` +
        `${options.timeBoundSeconds} s…`,
    );
    const submit = await closedLoop(options.jobs, options.concurrency, options.timeBoundSeconds, (i) =>
      c.call('POST', '/api/v1/jobs', bodies[i]),
    );
    progress(
      `server: ${submit.requests} submits (${submit.failed} failed) in ${num(submit.wallSeconds, 2)} s = ` +
        `${num(submit.requestsPerSecond, 0)}/s`,
    );
    if (submit.firstFailure) progress(`server: first failed submit: ${submit.firstFailure}`);

    const endStatus = JSON.parse((await c.call('GET', '/api/v1/status')).body) as {
      jobs: Record<string, number>;
      scheduler: SchedulerFigure;
    };

    // Scrapes with the whole queue in place: what a Prometheus server pays every scrape interval.
    const metrics = await closedLoop(options.metricsScrapes, 1, options.baselineTimeBoundSeconds, () =>
      c.call('GET', '/metrics'),
    );
    progress(
      `server: ${metrics.requests} /metrics scrapes, p50 ${num(metrics.latencyP50Ms, 2)} ms, p99 ` +
        `${num(metrics.latencyP99Ms, 2)} ms`,
    );
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
    progress(
      `server: killed ${cleanup.groupsKilled} job process group(s), ${cleanup.straysKilled} other ` +
        `process(es) in the temp dir; ${leftoverProcesses} left in the temp dir, ${jobPidsAlive} job pid(s) ` +
        `alive; ${sleepProcessesOnMachine} 'sleep 100000' process(es) on the machine (any owner)`,
    );

    const scheduler = endStatus.scheduler;
    return {
      measuredAt: new Date().toISOString(),
      options,
      serverStartSeconds,
      scheme,
      baseline,
      submit,
      submitToBaselineRatio: submit.requestsPerSecond / baseline.requestsPerSecond,
      metrics,
      scheduler,
      jobsByState: endStatus.jobs,
      targets: {
        // A refused submit is no submit: any failure fails the target.
        submitsPerSecond: {
          target: options.targetSubmitsPerSecond,
          measured: submit.requestsPerSecond,
          pass: submit.failed === 0 && submit.requestsPerSecond >= options.targetSubmitsPerSecond,
        },
        passP99Ms: {
          target: options.targetPassP99Ms,
          measured: scheduler.p99PassMs,
          pass: scheduler.p99PassMs <= options.targetPassP99Ms,
        },
      },
      cleanup: {
        jobProcessGroupsKilled: cleanup.groupsKilled,
        strayProcessesKilled: cleanup.straysKilled,
        leftoverProcesses,
        jobPidsAlive,
        sleepProcessesOnMachine,
        tempDirRemoved,
      },
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
