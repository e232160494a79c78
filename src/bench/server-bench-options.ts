/** Settings of the server benchmark (server-bench.ts) and their defaults. */

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
  /** Scrapes of `GET /metrics` after the submits, one at a time like a Prometheus server. */
  readonly metricsScrapes: number;
  /** Seed of the job shapes. */
  readonly seed: number;
  /** `--simulate-gpus` of the server. */
  readonly simulateGpus: string;
  /** The `gpushare` executable whose server is measured (default: this checkout's bin/gpushare). */
  readonly bin?: string;
  /**
   * Extra node flags of the server process, e.g. `--cpu-prof --cpu-prof-dir=/tmp/prof` (the server writes its profile
   * at SIGTERM).
   */
  readonly serverNodeArgs: readonly string[];
  /** Targets: submits/s at least, scheduling pass p99 at most (ms). */
  readonly targetSubmitsPerSecond: number;
  readonly targetPassP99Ms: number;
}

/** The settings of `npm run bench` (server flags from GPUSHARE_BENCH_SERVER_NODE_ARGS). */
export const DEFAULT_SERVER_BENCH_OPTIONS: ServerBenchOptions = {
  jobs: 10_000,
  concurrency: 16,
  timeBoundSeconds: 120,
  baselineRequests: 10_000,
  baselineWarmupRequests: 1_000,
  baselineTimeBoundSeconds: 30,
  metricsScrapes: 50,
  seed: 42,
  simulateGpus: '16xA100-80GB',
  // Node refuses --cpu-prof in NODE_OPTIONS, so profiling flags for the server come from here.
  serverNodeArgs: (process.env.GPUSHARE_BENCH_SERVER_NODE_ARGS ?? '').split(/\s+/).filter((a) => a !== ''),
  targetSubmitsPerSecond: 500,
  targetPassP99Ms: 20,
};
