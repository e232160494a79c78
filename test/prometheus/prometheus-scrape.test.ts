/* eslint-disable @typescript-eslint/no-explicit-any -- API bodies are checked field by field */
/**
 * Integration test with a real Prometheus: a real gpushare server (one simulated A100-80GB) runs
 * two 0.4-GPU jobs and a QoS job that reports steps slower than its target; Prometheus scrapes the
 * server every second over HTTPS (trusting the server's local CA, as deploy/prometheus/prometheus.yml
 * does, with the admin token as its bearer credentials) and evaluates deploy/prometheus/alerts.yml every second.
 * Through
 * Prometheus's HTTP API the test reads the GPU's allocation and waits for GpushareQosViolation to
 * fire for the QoS job.
 */
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { api, cleanupServe, cli, startServe, type ServeHandle } from '../e2e/support/serve-harness.js';
import { requireTool } from '../support/required-tool.js';
import {
  PROMETHEUS_BIN,
  PROMETHEUS_INSTALL_HINT,
  pollUntil,
  prometheusAlerts,
  queryPrometheus,
  startPrometheus,
  stopPrometheus,
  type PrometheusAlert,
  type PrometheusHandle,
  type VectorSample,
} from './support/prometheus.js';
import { WAIT_MS } from '../../src/testing/deadlines.js';

const ROOT = join(import.meta.dirname, '..', '..');
const ALERTS_FILE = join(ROOT, 'deploy', 'prometheus', 'alerts.yml');
const BIN = join(ROOT, 'bin', 'gpushare');
const NODE_NAME = 'prom-it-node';
const POLL = { timeoutMs: WAIT_MS, stepMs: 250 };

/** The id printed alone on the last line of `gpushare submit`. */
function submittedId(result: { code: number; stdout: string; stderr: string }): number {
  expect(result.code, result.stderr).toBe(0);
  return Number(result.stdout.trim().split('\n').at(-1));
}

describe.skipIf(!requireTool(PROMETHEUS_BIN, PROMETHEUS_INSTALL_HINT))('a real Prometheus scraping gpushare', () => {
  let server: ServeHandle | undefined;
  let prometheus: PrometheusHandle | undefined;
  const jobIds: number[] = [];
  let qosJobId = 0;

  beforeAll(async () => {
    server = await startServe({
      simulateGpus: '1xA100-80GB',
      config: { nodeName: NODE_NAME, qosViolationSeconds: 1, healthPollIntervalSeconds: 1, stopGraceSeconds: 1 },
    });

    for (let i = 0; i < 2; i++)
      jobIds.push(submittedId(cli(server, ['submit', '--gpu', '0.4', '--name', `sleeper-${i}`, '--', 'sleep', '300'])));
    // Reports a 0.62 s step every 0.5 s (at most 600 times) through the job's own token and URL. A
    // report that fails on a loaded machine is skipped, not the end of the job (its 100 milli-GPU
    // are checked below).
    const reportLoop =
      `for i in $(seq 1 600); do "${process.execPath}" "${BIN}" report --step-seconds 0.62 || ` +
      `true; sleep 0.5; done`;
    qosJobId = submittedId(
      cli(server, [
        'submit',
        '--gpu',
        '0.1',
        '--name',
        'trainer',
        '--qos-step-seconds',
        '0.5',
        '--',
        'sh',
        '-c',
        reportLoop,
      ]),
    );
    jobIds.push(qosJobId);

    const port = new URL(server.url).port;
    prometheus = await startPrometheus(
      [
        'global:',
        '  scrape_interval: 1s',
        '  evaluation_interval: 1s',
        'rule_files:',
        `  - ${JSON.stringify(ALERTS_FILE)}`,
        'scrape_configs:',
        '  - job_name: gpushare',
        '    metrics_path: /metrics',
        // As deploy/prometheus/prometheus.yml: HTTPS, trusting the server's local CA.
        '    scheme: https',
        '    tls_config:',
        `      ca_file: ${JSON.stringify(join(server.dataDir, 'data', 'tls', 'ca.crt'))}`,
        // /metrics needs an admin token: Prometheus reads it from the admin token file.
        '    authorization:',
        `      credentials_file: ${JSON.stringify(join(server.dataDir, 'data', 'admin-token'))}`,
        '    static_configs:',
        `      - targets: ['127.0.0.1:${port}']`,
        '',
      ].join('\n'),
    );
  });

  afterAll(async () => {
    if (server) {
      for (const id of jobIds) cli(server, ['cancel', String(id)]);
    }
    if (prometheus) await stopPrometheus(prometheus);
    if (server) await cleanupServe(server);
  });

  it('scrapes the GPU allocation of the running jobs: 400 + 400 + 100 milli-GPU', async () => {
    const gpu = ((await api(server!, 'GET', '/api/v1/gpus')).body as any).gpus[0];
    let last: unknown;
    const sample = await pollUntil(
      'gpushare_gpu_allocated_milli = 900 in Prometheus',
      async () => {
        const body = await queryPrometheus(prometheus!, 'gpushare_gpu_allocated_milli');
        last = body;
        const result = (body.data?.result ?? []) as VectorSample[];
        return result.find((s) => s.value[1] === '900');
      },
      { ...POLL, describe: () => JSON.stringify(last) },
    );
    // fractional jobs with the default isolation (standard) get MPS under --mode auto (docs/sharing-modes.md)
    expect(gpu.mode).toBe('mps');
    expect(sample.metric).toEqual({
      __name__: 'gpushare_gpu_allocated_milli',
      instance: `127.0.0.1:${new URL(server!.url).port}`,
      job: 'gpushare',
      node: NODE_NAME,
      gpu: '0',
      uuid: gpu.uuid,
      model: 'A100-80GB',
      mode: 'mps',
    });
    // the per-job series of the same scrape: one per job, summing to the GPU's value
    const perJob = await queryPrometheus(prometheus!, `gpushare_job_allocated_milli{node="${NODE_NAME}", gpu="0"}`);
    const byJob = Object.fromEntries(
      (perJob.data!.result as VectorSample[]).map((s) => [
        s.metric.job_id,
        [s.metric.job_name, s.metric.tenant, s.metric.priority_class, s.value[1]],
      ]),
    );
    expect(byJob).toEqual({
      [String(jobIds[0])]: ['sleeper-0', 'default', 'normal', '400'],
      [String(jobIds[1])]: ['sleeper-1', 'default', 'normal', '400'],
      [String(qosJobId)]: ['trainer', 'default', 'normal', '100'],
    });
  });

  it('fires GpushareQosViolation for the job that reports 0.62 s steps against a 0.5 s target', async () => {
    let last: PrometheusAlert[] = [];
    const alert = await pollUntil(
      'GpushareQosViolation firing in Prometheus',
      async () => {
        last = await prometheusAlerts(prometheus!);
        return last.find((a) => a.labels.alertname === 'GpushareQosViolation' && a.state === 'firing');
      },
      { ...POLL, describe: () => `${JSON.stringify(last)}; prometheus log: ${prometheus!.log.slice(-2000)}` },
    );
    expect(alert.labels).toEqual({
      alertname: 'GpushareQosViolation',
      severity: 'warning',
      instance: `127.0.0.1:${new URL(server!.url).port}`,
      job: 'gpushare',
      job_id: String(qosJobId),
      tenant: 'default',
      kind: 'step',
    });
    expect(alert.annotations.summary).toBe(`Job ${qosJobId} of tenant default misses its step QoS target`);
    const observed = await queryPrometheus(prometheus!, `gpushare_job_qos_observed_seconds{job_id="${qosJobId}"}`);
    expect((observed.data!.result as VectorSample[]).map((s) => [s.metric.kind, s.value[1]])).toEqual([
      ['step', '0.62'],
    ]);
    const target = await queryPrometheus(prometheus!, `gpushare_job_qos_target_seconds{job_id="${qosJobId}"}`);
    expect((target.data!.result as VectorSample[]).map((s) => [s.metric.kind, s.value[1]])).toEqual([['step', '0.5']]);
    // only the QoS job violates
    expect(last.filter((a) => a.labels.alertname === 'GpushareQosViolation').map((a) => a.labels.job_id)).toEqual([
      String(qosJobId),
    ]);
  });
});
