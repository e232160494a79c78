/** What the server benchmark measured, and its report lines for the console. */
import { num, times } from './format.js';
import { formatTable } from '../lib/text-table.js';
import type { LoadFigure } from './http-load.js';
import type { ServerBenchOptions } from './server-bench-options.js';

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
  /**
   * How the client spoke to the server: `https` (this build's default) or `http` (a baseline build from before TLS).
   */
  readonly scheme: 'http' | 'https';
  readonly baseline: LoadFigure;
  readonly submit: LoadFigure;
  /** Submits/s ÷ `/healthz` requests/s. */
  readonly submitToBaselineRatio: number;
  /** `GET /metrics`, one scrape at a time, after the submits (the whole queue in place). */
  readonly metrics: LoadFigure;
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

/** The report lines of a server benchmark (section `heading`). */
export function formatServerBench(r: ServerBenchResult, heading: string): string[] {
  const o = r.options;
  const s = r.scheduler;
  const verdict = (ok: boolean): string => (ok ? 'PASS' : 'FAIL');
  const load = (name: string, f: LoadFigure): string[] => [
    name,
    `${f.requests}${f.hitTimeBound ? ' (time bound)' : ''}`,
    String(f.failed),
    num(f.wallSeconds, 2),
    num(f.requestsPerSecond, 0),
    num(f.latencyP50Ms, 2),
    num(f.latencyP99Ms, 2),
    num(f.latencyMaxMs, 1),
  ];
  const states =
    Object.entries(r.jobsByState)
      .filter(([, n]) => n > 0)
      .map(([state, n]) => `${state} ${n}`)
      .join(', ') || 'none';
  const out: string[] = [];
  out.push(
    `${heading} (\`gpushare serve\` child process, ${o.simulateGpus} simulated, 127.0.0.1, ` +
      `${r.scheme === 'https' ? 'HTTPS (local CA), node:https' : 'plain HTTP, node:http'} keep-alive ` +
      `client, ${o.concurrency} requests in flight)`,
  );
  out.push(
    formatTable(
      [
        ['load', 'requests', 'failed', 'wall (s)', 'requests/s', 'p50 (ms)', 'p99 (ms)', 'max (ms)'],
        load('GET /healthz (baseline, HTTP floor)', r.baseline),
        load(`POST /api/v1/jobs (seed ${o.seed}; 1-2 GPUs × 0.1-1.0, 2-40 GiB; sleep 100000)`, r.submit),
        load('GET /metrics (after the submits, 1 in flight)', r.metrics),
      ],
      { right: [false, true, true, true, true, true, true, true] },
    ),
  );
  out.push(
    `/metrics scrape p50 ÷ /healthz p50: ${times(r.metrics.latencyP50Ms / r.baseline.latencyP50Ms, 1)} (` +
      `${num(r.metrics.latencyP50Ms, 2)} ÷ ${num(r.baseline.latencyP50Ms, 2)} ms)`,
  );
  out.push(
    `submit throughput ÷ /healthz baseline: ${times(r.submitToBaselineRatio, 3)} (` +
      `${num(r.submit.requestsPerSecond, 0)} ÷ ${num(r.baseline.requestsPerSecond, 0)} requests/s)`,
  );
  if (r.submit.firstFailure) out.push(`first failed submit: ${r.submit.firstFailure}`);
  out.push(
    `scheduling passes (GET /api/v1/status at the end; ${s.passes} passes in all, percentiles over the ` +
      `last ${Math.min(s.passes, 4096)}):` +
      (` p50 ${num(s.p50PassMs, 2)} ms, p99 ${num(s.p99PassMs, 2)} ms, max ${num(s.maxPassMs, 2)} ms, last ` +
        `${num(s.lastPassMs, 2)} ms; at most ${s.maxPendingConsidered} pending jobs in one pass`),
  );
  out.push(`jobs at the end: ${states}`);
  out.push(
    formatTable(
      [
        ['target', 'measured', 'target value', 'measured ÷ target', 'verdict'],
        [
          'submits/s ≥',
          num(r.targets.submitsPerSecond.measured, 0),
          num(r.targets.submitsPerSecond.target, 0),
          times(r.targets.submitsPerSecond.measured / r.targets.submitsPerSecond.target, 3),
          verdict(r.targets.submitsPerSecond.pass),
        ],
        [
          'scheduling pass p99 (ms) ≤',
          num(r.targets.passP99Ms.measured, 2),
          num(r.targets.passP99Ms.target, 0),
          times(r.targets.passP99Ms.measured / r.targets.passP99Ms.target, 3),
          verdict(r.targets.passP99Ms.pass),
        ],
      ],
      { right: [false, true, true, true, false] },
    ),
  );
  const c = r.cleanup;
  out.push(
    `cleanup: server stopped with SIGTERM; SIGKILL to ${c.jobProcessGroupsKilled} job process group(s) ` +
      `(pid files) and ${c.strayProcessesKilled} other process(es) in the temp dir (supervisors, dying ` +
      `jobs);` +
      (` ${c.leftoverProcesses} process(es) left in the temp dir, ${c.jobPidsAlive} job pid(s) alive, ` +
        `${c.sleepProcessesOnMachine} 'sleep 100000' on the machine (any owner);`) +
      ` temp dir ${c.tempDirRemoved ? 'removed' : 'NOT removed'}`,
  );
  out.push(`server start: ${num(r.serverStartSeconds, 2)} s`);
  return out;
}
