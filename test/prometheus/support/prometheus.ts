/**
 * Test support: runs a real Prometheus (Debian's `prometheus` package) on 127.0.0.1 with its own
 * config and storage directory, queries its HTTP API, and stops it.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { freePort } from '../../support/local-process.js';
import { WAIT_MS } from '../../../src/testing/deadlines.js';

/** Path of the Prometheus server binary. */
export const PROMETHEUS_BIN = '/usr/bin/prometheus';
/** Path of promtool. */
export const PROMTOOL_BIN = '/usr/bin/promtool';
/** How to install both (Debian and Ubuntu). */
export const PROMETHEUS_INSTALL_HINT = 'apt-get install prometheus';

/** A running Prometheus under test. */
export interface PrometheusHandle {
  /** Base URL, e.g. `http://127.0.0.1:41234`. */
  readonly url: string;
  readonly process: ChildProcess;
  /** Temporary directory holding prometheus.yml and the TSDB; removed by stopPrometheus. */
  readonly dir: string;
  /** Everything Prometheus wrote to stdout and stderr so far (for failure messages). */
  log: string;
}

/**
 * Starts Prometheus with `configYaml` as its prometheus.yml (written to a new temporary
 * directory, so relative paths in it resolve there; use absolute paths for rule files) and
 * waits until `GET /-/ready` answers 200.
 *
 * @param configYaml the full configuration file text
 * @param readyTimeoutMs how long to wait for readiness (default WAIT_MS: src/testing/deadlines.ts)
 * @throws Error with Prometheus's log when it exits or is not ready in time
 */
export async function startPrometheus(configYaml: string, readyTimeoutMs = WAIT_MS): Promise<PrometheusHandle> {
  const dir = mkdtempSync(join(tmpdir(), 'gpushare-prometheus-'));
  const configFile = join(dir, 'prometheus.yml');
  writeFileSync(configFile, configYaml);
  const port = await freePort();
  const child = spawn(
    PROMETHEUS_BIN,
    [
      `--config.file=${configFile}`,
      `--storage.tsdb.path=${join(dir, 'data')}`,
      `--web.listen-address=127.0.0.1:${port}`,
      '--log.level=warn',
    ],
    { cwd: dir, stdio: ['ignore', 'pipe', 'pipe'] },
  );
  const handle: PrometheusHandle = { url: `http://127.0.0.1:${port}`, process: child, dir, log: '' };
  child.stdout!.on('data', (d: Buffer) => (handle.log += d.toString()));
  child.stderr!.on('data', (d: Buffer) => (handle.log += d.toString()));
  const deadline = Date.now() + readyTimeoutMs;
  for (;;) {
    if (child.exitCode !== null || child.signalCode !== null) {
      rmSync(dir, { recursive: true, force: true });
      throw new Error(`prometheus exited with ${child.exitCode ?? child.signalCode}: ${handle.log}`);
    }
    try {
      const response = await fetch(`${handle.url}/-/ready`);
      if (response.status === 200) return handle;
    } catch {
      // not listening yet
    }
    if (Date.now() > deadline) {
      await stopPrometheus(handle);
      throw new Error(`prometheus was not ready in ${readyTimeoutMs} ms: ${handle.log}`);
    }
    await sleep(100);
  }
}

/** Stops Prometheus (SIGTERM, then SIGKILL after 10 s) and removes its directory. */
export async function stopPrometheus(handle: PrometheusHandle): Promise<void> {
  const child = handle.process;
  if (child.exitCode === null && child.signalCode === null) {
    const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
    child.kill('SIGTERM');
    const timer = setTimeout(() => child.kill('SIGKILL'), 10_000);
    await exited;
    clearTimeout(timer);
  }
  rmSync(handle.dir, { recursive: true, force: true, maxRetries: 5, retryDelay: 100 });
}

/** The JSON body of a Prometheus HTTP API call (`status` is "success" or "error"). */
export interface PrometheusApiResponse<T = unknown> {
  status: 'success' | 'error';
  data?: T;
  errorType?: string;
  error?: string;
}

/** One series of an instant-vector result. */
export interface VectorSample {
  metric: Record<string, string>;
  /** [unix seconds, value as text] */
  value: [number, string];
}

/**
 * Runs an instant query (`GET /api/v1/query?query=…`). Prometheus answers 400 with
 * `status: "error"` for an expression it cannot parse; the body is returned either way.
 */
export async function queryPrometheus(
  handle: PrometheusHandle,
  expr: string,
): Promise<PrometheusApiResponse<{ resultType: string; result: unknown }>> {
  const response = await fetch(`${handle.url}/api/v1/query?query=${encodeURIComponent(expr)}`);
  return (await response.json()) as PrometheusApiResponse<{ resultType: string; result: unknown }>;
}

/** One alert of `GET /api/v1/alerts`. */
export interface PrometheusAlert {
  labels: Record<string, string>;
  annotations: Record<string, string>;
  state: 'pending' | 'firing' | 'inactive';
  value: string;
}

/** The active (pending or firing) alerts Prometheus's rule evaluation holds now. */
export async function prometheusAlerts(handle: PrometheusHandle): Promise<PrometheusAlert[]> {
  const response = await fetch(`${handle.url}/api/v1/alerts`);
  const body = (await response.json()) as PrometheusApiResponse<{ alerts: PrometheusAlert[] }>;
  return body.data?.alerts ?? [];
}

/**
 * Calls `probe` every `stepMs` until it returns a value other than undefined, at most
 * `timeoutMs` in all.
 *
 * @throws Error naming `what` and the last value `describe` gives, when time runs out
 */
export async function pollUntil<T>(
  what: string,
  probe: () => Promise<T | undefined>,
  options: { timeoutMs: number; stepMs: number; describe?: () => string },
): Promise<T> {
  const deadline = Date.now() + options.timeoutMs;
  for (;;) {
    const value = await probe();
    if (value !== undefined) return value;
    if (Date.now() > deadline)
      throw new Error(
        `${what}: not reached in ${options.timeoutMs} ms${options.describe ? `; last: ${options.describe()}` : ''}`,
      );
    await sleep(options.stepMs);
  }
}

function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}
