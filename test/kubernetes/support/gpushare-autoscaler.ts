/**
 * The real `gpushare autoscaler` as a child process for tests on the test control plane: a config
 * file, the kubeconfig it is given (its ServiceAccount under deploy/kubernetes/rbac-autoscaler.yaml),
 * a round every second and /metrics on a free port of 127.0.0.1. Also what tests read it with: a
 * series of its metrics, and a KubeRest that records an in-process autoscaler's calls (and dies).
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { join } from 'node:path';
import type { KubeRest } from '../../../src/adapters/kubernetes/extender/kube-rest.js';
import { findSamples, parseMetricsText } from '../../../src/adapters/metrics/metrics-text.js';

const BIN = join(import.meta.dirname, '..', '..', '..', 'bin', 'gpushare');

/** A running autoscaler process. */
export interface AutoscalerProcess {
  /** `http://127.0.0.1:PORT`. */
  readonly metricsUrl: string;
  readonly child: ChildProcess;
  /** Everything it wrote to stderr (its log). */
  log(): string;
  /** Its /metrics text. */
  metrics(): Promise<string>;
  /** Ends it with `signal` and waits for the exit. */
  kill(signal?: NodeJS.Signals): Promise<void>;
}

/** Starts `gpushare autoscaler` and waits until it serves /metrics (bounded by `timeoutMs`). */
export async function startAutoscalerProcess(
  options: { configFile: string; kubeconfig: string; intervalSeconds?: number },
  timeoutMs = 60_000,
): Promise<AutoscalerProcess> {
  const child = spawn(
    process.execPath,
    [
      BIN,
      'autoscaler',
      '--config',
      options.configFile,
      '--kubeconfig',
      options.kubeconfig,
      '--interval-seconds',
      String(options.intervalSeconds ?? 1),
      '--metrics-port',
      '0',
      '--identity',
      'test-autoscaler',
      '--log-level',
      'info',
    ],
    { stdio: ['ignore', 'pipe', 'pipe'] },
  );
  let stderr = '';
  let stdout = '';
  child.stderr!.on('data', (c: Buffer) => (stderr += c.toString('utf8')));
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  const metricsUrl = await new Promise<string>((resolve, reject) => {
    const timer = setTimeout(
      () => reject(new Error(`gpushare autoscaler did not serve /metrics within ${timeoutMs} ms:\n${stderr}`)),
      timeoutMs,
    );
    child.stdout!.on('data', (c: Buffer) => {
      stdout += c.toString('utf8');
      const match = /metrics on (http:\/\/127\.0\.0\.1:\d+)\/metrics/.exec(stdout);
      if (match) {
        clearTimeout(timer);
        resolve(match[1]!);
      }
    });
    child.once('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`gpushare autoscaler exited (${code}) before serving /metrics:\n${stderr}`));
    });
  });
  return {
    metricsUrl,
    child,
    log: () => stderr,
    metrics: async () => (await fetch(`${metricsUrl}/metrics`)).text(),
    async kill(signal: NodeJS.Signals = 'SIGTERM') {
      if (child.exitCode === null && child.signalCode === null) child.kill(signal);
      await exited;
    },
  };
}

/** The value of one series of a Prometheus text, labels in any order; undefined when absent. */
export function metric(text: string, name: string, labels: Record<string, string> = {}): number | undefined {
  return findSamples(parseMetricsText(text), name, labels)[0]?.value;
}

/** A KubeRest that records every call and, once `crashAfter` holds for an answered call, fails it and all after it. */
export function recordingRest(inner: KubeRest, crashAfter?: (method: string, path: string, status: number) => boolean) {
  const calls: { method: string; path: string; status: number }[] = [];
  let crashed = false;
  const rest: KubeRest = {
    async request(method, path, body, contentType) {
      if (crashed) throw new Error('the autoscaler process is gone');
      const answer = await inner.request(method, path, body, contentType);
      calls.push({ method, path, status: answer.status });
      if (crashAfter?.(method, path, answer.status)) {
        crashed = true;
        throw new Error('the autoscaler process died right after this call');
      }
      return answer;
    },
    close: () => inner.close(),
  };
  return { rest, calls, crashed: () => crashed };
}
