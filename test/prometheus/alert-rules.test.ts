/**
 * The alert rules (deploy/prometheus/alerts.yml) checked by the real promtool: syntax, and the
 * unit tests in alerts.test.yml. Also checks that every alert has a firing and a non-firing case
 * there, and that the rules read only metrics the server exports.
 */
import { spawnSync } from 'node:child_process';
import { copyFileSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { requireTool } from '../support/required-tool.js';
import { serverMetricFamilies } from './support/exported-metrics.js';
import { PROMETHEUS_INSTALL_HINT, PROMTOOL_BIN } from './support/prometheus.js';
import { metricFamilyOf, promqlMetricNames } from './support/promql-metric-names.js';
import { WAIT_MS } from '../../src/testing/deadlines.js';

const ROOT = join(import.meta.dirname, '..', '..');
const PROMETHEUS_DIR = join(ROOT, 'deploy', 'prometheus');

interface AlertRule {
  alert: string;
  expr: string;
  for?: string;
  labels?: Record<string, string>;
  annotations?: Record<string, string>;
}

interface RuleTest {
  alertname: string;
  eval_time: string;
  exp_alerts?: unknown[];
}

const rules = (
  parse(readFileSync(join(PROMETHEUS_DIR, 'alerts.yml'), 'utf8')) as { groups: { name: string; rules: AlertRule[] }[] }
).groups;
const tests = (
  parse(readFileSync(join(PROMETHEUS_DIR, 'alerts.test.yml'), 'utf8')) as { tests: { alert_rule_test?: RuleTest[] }[] }
).tests;
const alerts = rules.flatMap((group) => group.rules);

describe('alert rules file', () => {
  it('has one group gpushare with the seven alerts, each with a severity and both annotations', () => {
    expect(rules.map((group) => group.name)).toEqual(['gpushare']);
    expect(alerts.map((rule) => rule.alert)).toEqual([
      'GpushareQosViolation',
      'GpushareJobGpuMemoryOverAllocation',
      'GpushareJobsPendingTooLong',
      'GpushareHighFragmentation',
      'GpushareGpuUnhealthy',
      'GpushareServerDown',
      'GpushareServerAbsent',
    ]);
    for (const rule of alerts) {
      expect(['warning', 'critical'], rule.alert).toContain(rule.labels?.severity);
      expect(Object.keys(rule.annotations ?? {}).sort(), rule.alert).toEqual(['description', 'summary']);
    }
    expect(Object.fromEntries(alerts.map((rule) => [rule.alert, rule.for]))).toEqual({
      GpushareQosViolation: '0m',
      GpushareJobGpuMemoryOverAllocation: '2m',
      GpushareJobsPendingTooLong: '1m',
      GpushareHighFragmentation: '15m',
      GpushareGpuUnhealthy: '1m',
      GpushareServerDown: '1m',
      GpushareServerAbsent: '5m',
    });
  });

  it('has a firing and a non-firing promtool case for every alert', () => {
    const cases = tests.flatMap((group) => group.alert_rule_test ?? []);
    for (const rule of alerts) {
      const own = cases.filter((c) => c.alertname === rule.alert);
      expect(
        own.filter((c) => (c.exp_alerts ?? []).length > 0).length,
        `${rule.alert}: firing cases`,
      ).toBeGreaterThanOrEqual(1);
      expect(
        own.filter((c) => (c.exp_alerts ?? []).length === 0).length,
        `${rule.alert}: non-firing cases`,
      ).toBeGreaterThanOrEqual(1);
    }
    // and no case tests an alert that does not exist
    expect(cases.filter((c) => !alerts.some((rule) => rule.alert === c.alertname))).toEqual([]);
  });
});

describe.skipIf(!requireTool(PROMTOOL_BIN, PROMETHEUS_INSTALL_HINT))('promtool', () => {
  it('check rules accepts alerts.yml with its 7 rules', () => {
    const result = spawnSync(PROMTOOL_BIN, ['check', 'rules', 'alerts.yml'], {
      cwd: PROMETHEUS_DIR,
      encoding: 'utf8',
      timeout: WAIT_MS,
    });
    expect(result.stderr).toBe('');
    expect(result.status).toBe(0);
    expect(result.stdout).toContain('SUCCESS: 7 rules found');
  });

  it('test rules passes every case of alerts.test.yml', () => {
    const result = spawnSync(PROMTOOL_BIN, ['test', 'rules', 'alerts.test.yml'], {
      cwd: PROMETHEUS_DIR,
      encoding: 'utf8',
      timeout: WAIT_MS,
    });
    expect(result.status, result.stdout + result.stderr).toBe(0);
    expect(result.stdout).toContain('Unit Testing:  alerts.test.yml\n  SUCCESS');
    expect(result.stdout).not.toContain('FAILED');
  });

  it('check config accepts the example prometheus.yml and the rules it loads, once its admin token file exists', () => {
    const tokenFile = '/etc/prometheus/gpushare-admin-token';
    // It scrapes over HTTPS, trusts the server's local CA and sends the admin token (/metrics needs it).
    const text = readFileSync(join(PROMETHEUS_DIR, 'prometheus.yml'), 'utf8');
    const config = parse(text) as {
      scrape_configs: {
        job_name: string;
        scheme: string;
        tls_config: { ca_file: string };
        authorization: { type: string; credentials_file: string };
      }[];
    };
    expect(
      config.scrape_configs.map((c) => [
        c.job_name,
        c.scheme,
        c.tls_config.ca_file,
        c.authorization.type,
        c.authorization.credentials_file,
      ]),
    ).toEqual([['gpushare', 'https', '/var/lib/gpushare/tls/ca.crt', 'Bearer', tokenFile]]);
    // promtool checks that the credentials file exists: check a copy that names a file that does.
    const dir = mkdtempSync(join(tmpdir(), 'gpushare-promtool-'));
    try {
      writeFileSync(join(dir, 'admin-token'), 'gs_example\n', { mode: 0o600 });
      writeFileSync(join(dir, 'prometheus.yml'), text.replace(tokenFile, join(dir, 'admin-token')));
      copyFileSync(join(PROMETHEUS_DIR, 'alerts.yml'), join(dir, 'alerts.yml'));
      const result = spawnSync(PROMTOOL_BIN, ['check', 'config', 'prometheus.yml'], {
        cwd: dir,
        encoding: 'utf8',
        timeout: WAIT_MS,
      });
      expect(result.status, result.stdout + result.stderr).toBe(0);
      expect(result.stdout).toContain('SUCCESS: prometheus.yml is valid prometheus config file syntax');
      expect(result.stdout).toContain('SUCCESS: 1 rule files found');
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe('metrics named by the alert rules', () => {
  let families: Map<string, string>;
  beforeAll(async () => {
    families = await serverMetricFamilies();
  });

  it('are all exported by a running server (except Prometheus’s own up)', () => {
    const named = [...new Set(alerts.flatMap((rule) => promqlMetricNames(rule.expr)))];
    expect(named.sort()).toEqual([
      'gpushare_cluster_fragmentation_ratio',
      'gpushare_gpu_healthy',
      'gpushare_job_allocated_memory_bytes',
      'gpushare_job_memory_used_bytes',
      'gpushare_job_qos_violation',
      'gpushare_queue_oldest_wait_seconds',
      'gpushare_queue_pending_jobs',
      'up',
    ]);
    const missing = named.filter((name) => name !== 'up' && metricFamilyOf(name, families) === undefined);
    expect(missing).toEqual([]);
  });
});
