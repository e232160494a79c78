/* eslint-disable @typescript-eslint/no-explicit-any -- API bodies are checked field by field */
/**
 * End-to-end: QoS targets on a real server. A job submitted with `--qos-step-seconds 0.5` reports
 * 0.62 s steps with `gpushare report`, using only its environment (GPUSHARE_URL, GPUSHARE_JOB_ID,
 * GPUSHARE_JOB_TOKEN); after `qosViolationSeconds` (1 s here) the violation is stored as a job event,
 * `show` shows it, and the job's GPU takes no new lower-priority job until a met report recovers it.
 */
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import {
  pollFor,
  api,
  cleanupServe,
  cli,
  GPUSHARE_BIN,
  jobFolder,
  serverFetch,
  startServe,
  submittedId,
  waitForJob,
  type ServeHandle,
} from './support/serve-harness.js';
import { parseMetricsText, sampleValue } from '../../src/adapters/metrics/metrics-text.js';

let server: ServeHandle | null = null;
afterEach(async () => {
  if (server) await cleanupServe(server);
  server = null;
});

describe('gpushare serve: QoS targets, reports and protection', () => {
  it(
    'raises a violation after 1 s of missed reports, protects the GPU from lower priorities, and ' +
      'recovers on a met report',
    async () => {
      const dir = mkdtempSync(join(tmpdir(), 'gpushare-e2e-qos-'));
      writeFileSync(join(dir, 'config.yaml'), 'qosViolationSeconds: 1\nsingleTenant: true\n');
      server = await startServe({
        simulateGpus: '1xA100-80GB',
        dataDir: dir,
        extraArgs: ['--config', join(dir, 'config.yaml')],
      });
      // The job finds the server, its id and its token in its environment; node and bin/gpushare by absolute paths.
      const script = [
        'printf "%s" "$GPUSHARE_JOB_TOKEN" > "$GPUSHARE_CHECKPOINT_DIR/token"',
        'printf "%s" "$GPUSHARE_CA_CERT" > "$GPUSHARE_CHECKPOINT_DIR/ca"',
        'for i in 1 2 3 4 5; do "$GS_NODE" "$GS_BIN" report --step-seconds 0.62 || exit 9; sleep 0.3; done',
        'echo reported; sleep 600',
      ].join('; ');
      const trainer = submittedId(
        cli(server, [
          'submit',
          '--gpu',
          '0.4',
          '--priority',
          'high',
          '--qos-step-seconds',
          '0.5',
          '--name',
          'trainer',
          '--env',
          `GS_NODE=${process.execPath}`,
          '--env',
          `GS_BIN=${GPUSHARE_BIN}`,
          '--',
          'sh',
          '-c',
          script,
        ]),
      );

      const violated = await waitForJob(server, trainer, (j) =>
        j.events.some((e: any) => e.reason?.startsWith('QoS violation')),
      );
      expect(violated.state).toBe('running');
      expect(violated.qos.targets).toEqual({ stepSeconds: 0.5 });
      const violation = violated.events.find((e: any) => e.reason?.startsWith('QoS violation'));
      expect([violation.from, violation.to, violation.reason]).toEqual([
        'running',
        'running',
        'QoS violation: step 0.62 s > target 0.5 s for 1 s',
      ]);
      expect(violated.qos.status[0]).toMatchObject({
        kind: 'step',
        targetSeconds: 0.5,
        lastObservedSeconds: 0.62,
        violating: true,
        violations: 1,
      });
      const shown = cli(server, ['show', String(trainer)]);
      expect(shown.code).toBe(0);
      expect(shown.stdout).toContain('qos:         step target 0.5 s: latest 0.62 s, VIOLATING, 1 violation(s) so far');
      expect(shown.stdout).toContain('QoS violation: step 0.62 s > target 0.5 s for 1 s');

      // The token reports for its own job only; any other call answers 403.
      const token = readFileSync(join(jobFolder({ dataDir: dir }, trainer), 'checkpoint', 'token'), 'utf8');
      expect(token).toMatch(/^gs_[A-Za-z0-9_-]{43}$/);
      // The job trusts the server through the CA's PEM text in its environment (not a file of the data dir).
      expect(server.url).toMatch(/^https:\/\/127\.0\.0\.1:\d+$/);
      expect(readFileSync(join(jobFolder({ dataDir: dir }, trainer), 'checkpoint', 'ca'), 'utf8')).toBe(
        readFileSync(join(dir, 'data', 'tls', 'ca.crt'), 'utf8'),
      );
      const listed = await api(server, 'GET', '/api/v1/jobs', undefined, token);
      expect([listed.status, listed.body.error.message]).toEqual([
        403,
        `a job token (GPUSHARE_JOB_TOKEN) may only call POST /api/v1/jobs/${trainer}/qos-reports; use a ` +
          `tenant or admin token for GET /api/v1/jobs`,
      ]);
      const other = await api(server, 'POST', `/api/v1/jobs/${trainer + 1}/qos-reports`, { stepSeconds: 0.1 }, token);
      expect([other.status, other.body.error.message]).toEqual([
        403,
        `this job token belongs to job ${trainer} and cannot report for job ${trainer + 1}`,
      ]);

      // A lower-priority job waits with the protection reason; an equal-priority one is placed.
      const low = submittedId(cli(server, ['submit', '--gpu', '0.3', '--priority', 'low', '--', 'sleep', '600']));
      const waiting = await waitForJob(server, low, (j) => j.reason?.includes('protected'));
      expect([waiting.state, waiting.reason]).toEqual([
        'pending',
        `GPU 0 is protected: job ${trainer} misses its QoS target`,
      ]);
      const equal = submittedId(cli(server, ['submit', '--gpu', '0.2', '--priority', 'high', '--', 'sleep', '600']));
      expect((await waitForJob(server, equal, (j) => j.state === 'running')).placement.gpus[0].index).toBe(0);
      expect((await api(server, 'GET', `/api/v1/jobs/${low}`)).body.state).toBe('pending');

      // The job's five reports are all in before the admin's met one (each is a CLI start, slow on a busy machine).
      await pollFor('the trainer to finish its five reports', async () =>
        (await api(server!, 'GET', `/api/v1/jobs/${trainer}/logs?stream=stdout`)).body.text
          ?.split('\n')
          .includes('reported')
          ? true
          : undefined,
      );
      // Usage errors name what is missing (exit 2); a met report by the admin recovers the job (exit 0).
      const noToken = cli(server, ['report', '--step-seconds', '0.4', '--url', server.url, '--job', String(trainer)]);
      expect([noToken.code, noToken.stderr]).toEqual([2, expect.stringContaining('GPUSHARE_JOB_TOKEN is not set')]);
      const met = cli(server, [
        'report',
        '--step-seconds',
        '0.4',
        '--url',
        server.url,
        '--job',
        String(trainer),
        '--token',
        server.adminToken,
        '--ca',
        join(dir, 'data', 'tls', 'ca.crt'),
      ]);
      expect([met.code, met.stdout]).toEqual([
        0,
        `job ${trainer} step: latest 0.4 s, target 0.5 s, met (1 violation so far)\n`,
      ]);
      const placed = await waitForJob(server, low, (j) => j.state === 'running');
      expect(placed.placement.gpus[0].index).toBe(0);
      const recovered = (await api(server, 'GET', `/api/v1/jobs/${trainer}`)).body;
      expect(recovered.events.filter((e: any) => e.from === e.to).map((e: any) => e.reason)).toEqual([
        'QoS violation: step 0.62 s > target 0.5 s for 1 s',
        'QoS recovered: step 0.4 s ≤ target 0.5 s',
      ]);
      expect(recovered.qos.status[0]).toMatchObject({ violating: false, violations: 1, lastObservedSeconds: 0.4 });
      // The same story in /metrics: 5 reports by the job + 1 by the admin, one violation, now met.
      const samples = parseMetricsText(
        await (
          await serverFetch(server, '/metrics', { headers: { authorization: `Bearer ${server.adminToken}` } })
        ).text(),
      );
      const jobLabels = { job_id: String(trainer), tenant: 'default', kind: 'step' };
      expect(sampleValue(samples, 'gpushare_qos_reports_total', { tenant: 'default', kind: 'step' })).toBe(6);
      expect(sampleValue(samples, 'gpushare_qos_violations_total', { tenant: 'default', kind: 'step' })).toBe(1);
      expect([
        sampleValue(samples, 'gpushare_job_qos_target_seconds', jobLabels),
        sampleValue(samples, 'gpushare_job_qos_observed_seconds', jobLabels),
        sampleValue(samples, 'gpushare_job_qos_violation', jobLabels),
      ]).toEqual([0.5, 0.4, 0]);

      // A job that is not running answers 409; once the attempt ends the token stops working (401).
      const ended = await api(server, 'POST', `/api/v1/jobs/${trainer}/cancel`);
      expect(ended.status).toBe(200);
      await waitForJob(server, trainer, (j) => j.state === 'cancelled');
      const late = await api(server, 'POST', `/api/v1/jobs/${trainer}/qos-reports`, { stepSeconds: 0.4 }, token);
      expect(late.status).toBe(401);
      const notRunning = await api(server, 'POST', `/api/v1/jobs/${trainer}/qos-reports`, { stepSeconds: 0.4 });
      expect([notRunning.status, notRunning.body.error.message]).toEqual([
        409,
        `job ${trainer} is cancelled: reports are accepted only while it runs`,
      ]);
      expect(readFileSync(join(jobFolder({ dataDir: dir }, trainer), 'attempt-1.stdout.log'), 'utf8')).toContain(
        `job ${trainer} step: latest 0.62 s, target 0.5 s, violating (1 violation so far)\n`,
      );
    },
  );
});
