/**
 * The Grafana dashboard (deploy/grafana/gpushare.json) and its provisioning files: structure, every
 * query accepted by a real Prometheus's query API once Grafana's variables are substituted, and
 * every metric it names exported by a real gpushare server.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { requireTool } from '../support/required-tool.js';
import { serverMetricFamilies } from './support/exported-metrics.js';
import {
  PROMETHEUS_BIN,
  PROMETHEUS_INSTALL_HINT,
  queryPrometheus,
  startPrometheus,
  stopPrometheus,
  type PrometheusHandle,
} from './support/prometheus.js';
import { metricFamilyOf, promqlMetricNames } from './support/promql-metric-names.js';

const GRAFANA_DIR = join(import.meta.dirname, '..', '..', 'deploy', 'grafana');

interface Target {
  refId: string;
  expr: string;
  datasource?: { type: string; uid: string };
}
interface Panel {
  id: number;
  type: string;
  title: string;
  datasource?: { type: string; uid: string };
  targets?: Target[];
  panels?: Panel[];
  repeat?: string;
}
interface Variable {
  type: string;
  name: string;
  query: string | { query: string };
  multi?: boolean;
  includeAll?: boolean;
  allValue?: string;
}
interface Dashboard {
  uid: string;
  id?: number;
  title: string;
  panels: Panel[];
  templating: { list: Variable[] };
  __inputs?: unknown;
}

const dashboardText = readFileSync(join(GRAFANA_DIR, 'gpushare.json'), 'utf8');
const dashboard = JSON.parse(dashboardText) as Dashboard;

/** Every panel, rows included, with the panels nested in (collapsed) rows. */
function allPanels(panels: Panel[]): Panel[] {
  return panels.flatMap((panel) => [panel, ...allPanels(panel.panels ?? [])]);
}
const panels = allPanels(dashboard.panels);
const queryPanels = panels.filter((panel) => panel.type !== 'row');
const targets = queryPanels.flatMap((panel) =>
  (panel.targets ?? []).map((target) => ({ panel: panel.title, ...target })),
);

/** The dashboard's own variables, by name. */
const variables = new Map(dashboard.templating.list.map((variable) => [variable.name, variable]));
/** Grafana's built-in variables, replaced as Grafana would for a 1-hour range and a 15 s scrape interval. */
const BUILTINS: Record<string, string> = {
  __rate_interval: '1m',
  __interval: '30s',
  __interval_ms: '30000',
  __range: '1h',
  __range_s: '3600',
  __range_ms: '3600000',
};

/**
 * Substitutes Grafana variables in a query: built-ins by fixed durations, the dashboard's
 * multi-value variables by `.*` (what "All" sends, as their `allValue`).
 *
 * @throws Error naming a variable that is neither a built-in nor the dashboard's
 */
function substitute(expr: string): string {
  return expr.replace(
    /\$\{(\w+)(?::\w+)?\}|\$(\w+)|\[\[(\w+)\]\]/g,
    (_whole, braced?: string, plain?: string, legacy?: string) => {
      const name = (braced ?? plain ?? legacy)!;
      if (name in BUILTINS) return BUILTINS[name]!;
      const variable = variables.get(name);
      if (variable === undefined) throw new Error(`unknown Grafana variable $${name} in: ${expr}`);
      return variable.allValue ?? '.*';
    },
  );
}

/** The query text of a query variable (`label_values(metric{…}, label)`). */
function variableQuery(variable: Variable): string {
  return typeof variable.query === 'string' ? variable.query : variable.query.query;
}

/** `label_values(selector, label)` → the PromQL Grafana's label_values amounts to. */
function labelValuesAsPromql(query: string): string {
  const match = /^label_values\((.+),\s*(\w+)\)$/.exec(query.trim());
  if (match === null) throw new Error(`not a label_values(selector, label) query: ${query}`);
  return `count by (${match[2]}) (${match[1]})`;
}

describe('dashboard structure', () => {
  it('is provisionable: a uid, no id, no ${DS_…} inputs', () => {
    expect(dashboard.uid).toBe('gpushare');
    expect(dashboard.title).toBe('gpushare');
    expect('id' in dashboard).toBe(false);
    expect(dashboard.__inputs).toBeUndefined();
    expect(dashboardText).not.toContain('DS_PROMETHEUS');
  });

  it('has the five sections, as rows in this order', () => {
    expect(panels.filter((panel) => panel.type === 'row').map((panel) => panel.title)).toEqual([
      'Cluster overview',
      'Per-GPU shares',
      'Queue',
      'Tenants',
      'QoS',
    ]);
  });

  it('picks its data source with a datasource variable and filters by node, gpu and tenant', () => {
    expect(dashboard.templating.list.map((variable) => [variable.name, variable.type])).toEqual([
      ['datasource', 'datasource'],
      ['node', 'query'],
      ['gpu', 'query'],
      ['tenant', 'query'],
    ]);
    expect(variables.get('datasource')!.query).toBe('prometheus');
    expect(variableQuery(variables.get('node')!)).toBe('label_values(gpushare_gpu_info, node)');
    expect(variableQuery(variables.get('gpu')!)).toBe('label_values(gpushare_gpu_info{node=~"$node"}, gpu)');
    expect(variableQuery(variables.get('tenant')!)).toBe(
      'label_values(gpushare_tenant_quota_used_gpu_equivalents, tenant)',
    );
    for (const name of ['node', 'gpu', 'tenant']) {
      expect(variables.get(name), name).toMatchObject({
        multi: true,
        includeAll: true,
        allValue: '.*',
        datasource: { type: 'prometheus', uid: '${datasource}' },
      });
    }
  });

  it('queries only through the datasource variable, with unique panel ids and refIds', () => {
    for (const panel of queryPanels) {
      expect(panel.datasource, panel.title).toEqual({ type: 'prometheus', uid: '${datasource}' });
      for (const target of panel.targets ?? [])
        expect(target.datasource, `${panel.title} ${target.refId}`).toEqual({
          type: 'prometheus',
          uid: '${datasource}',
        });
      const refIds = (panel.targets ?? []).map((target) => target.refId);
      expect(new Set(refIds).size, panel.title).toBe(refIds.length);
    }
    const ids = panels.map((panel) => panel.id);
    expect(new Set(ids).size).toBe(ids.length);
    expect(targets.length).toBeGreaterThanOrEqual(40);
  });

  it('uses the multi-value variables only in regex matchers', () => {
    for (const { panel, expr } of targets) {
      const uses = [...expr.matchAll(/\$\{?(node|gpu|tenant)\b/g)].length;
      const inRegex = [...expr.matchAll(/=~"\$\{?(node|gpu|tenant)\}?"/g)].length;
      expect(inRegex, `${panel}: ${expr}`).toBe(uses);
    }
  });

  it('shows the scheduling pass duration p50 and p99 from the histogram buckets', () => {
    const exprs = targets.filter((target) => target.panel === 'Scheduling pass duration').map((target) => target.expr);
    expect(exprs).toContain(
      'histogram_quantile(0.5, sum by (le) ' +
        '(rate(gpushare_scheduling_pass_duration_seconds_bucket[$__rate_interval])))',
    );
    expect(exprs).toContain(
      'histogram_quantile(0.99, sum by (le) ' +
        '(rate(gpushare_scheduling_pass_duration_seconds_bucket[$__rate_interval])))',
    );
  });

  it('stacks each job’s allocated milli-GPU, one panel per GPU', () => {
    const shares = queryPanels.find((panel) => panel.repeat === 'gpu')!;
    expect(shares.title).toBe('GPU $gpu: allocated milli-GPU by job');
    expect(shares.targets![0]!.expr).toContain(
      'gpushare_job_allocated_milli{node=~"$node", gpu=~"$gpu", tenant=~"$tenant"}',
    );
  });
});

describe('provisioning files', () => {
  it('loads dashboards from a directory of files', () => {
    const provider = parse(readFileSync(join(GRAFANA_DIR, 'provisioning', 'dashboards', 'gpushare.yaml'), 'utf8')) as {
      apiVersion: number;
      providers: { name: string; type: string; options: { path: string } }[];
    };
    expect(provider.apiVersion).toBe(1);
    expect(provider.providers).toHaveLength(1);
    expect(provider.providers[0]).toMatchObject({
      name: 'gpushare',
      type: 'file',
      options: { path: '/var/lib/grafana/dashboards/gpushare' },
    });
  });

  it('defines a Prometheus data source on 127.0.0.1:9090', () => {
    const sources = parse(
      readFileSync(join(GRAFANA_DIR, 'provisioning', 'datasources', 'prometheus.yaml'), 'utf8'),
    ) as { apiVersion: number; datasources: { type: string; url: string; access: string }[] };
    expect(sources.apiVersion).toBe(1);
    expect(sources.datasources).toEqual([
      expect.objectContaining({ type: 'prometheus', url: 'http://127.0.0.1:9090', access: 'proxy' }),
    ]);
  });
});

describe.skipIf(!requireTool(PROMETHEUS_BIN, PROMETHEUS_INSTALL_HINT))('dashboard queries on a real Prometheus', () => {
  let prometheus: PrometheusHandle | undefined;
  beforeAll(async () => {
    prometheus = await startPrometheus('global:\n  scrape_interval: 15s\nscrape_configs: []\n');
  });
  afterAll(async () => {
    if (prometheus) await stopPrometheus(prometheus);
  });

  it('substitutes every variable, leaving no $ in any query', () => {
    for (const { panel, expr } of targets) expect(substitute(expr), panel).not.toContain('$');
    expect(substitute('rate(x{tenant=~"$tenant", gpu=~"${gpu}"}[$__rate_interval]) / $__range_s')).toBe(
      'rate(x{tenant=~".*", gpu=~".*"}[1m]) / 3600',
    );
  });

  it('accepts every panel query', async () => {
    const rejected: string[] = [];
    for (const { panel, refId, expr } of targets) {
      const body = await queryPrometheus(prometheus!, substitute(expr));
      if (body.status !== 'success') rejected.push(`${panel} ${refId}: ${body.error ?? JSON.stringify(body)}`);
    }
    expect(rejected).toEqual([]);
  });

  it('accepts every variable query (label_values as count by)', async () => {
    for (const name of ['node', 'gpu', 'tenant']) {
      const body = await queryPrometheus(
        prometheus!,
        substitute(labelValuesAsPromql(variableQuery(variables.get(name)!))),
      );
      expect(body.status, name).toBe('success');
    }
  });

  it('rejects a malformed query (the check can fail)', async () => {
    const body = await queryPrometheus(prometheus!, 'sum by (le (rate(x[1m]))');
    expect(body.status).toBe('error');
    expect(body.errorType).toBe('bad_data');
  });
});

describe('metrics named by the dashboard', () => {
  let families: Map<string, string>;
  beforeAll(async () => {
    families = await serverMetricFamilies();
  });

  it('are all exported by a running server', () => {
    const named = new Set([
      ...targets.flatMap((target) => promqlMetricNames(substitute(target.expr))),
      ...['node', 'gpu', 'tenant'].flatMap((name) =>
        promqlMetricNames(substitute(labelValuesAsPromql(variableQuery(variables.get(name)!)))),
      ),
    ]);
    expect(named.size).toBeGreaterThanOrEqual(30);
    expect([...named].filter((name) => metricFamilyOf(name, families) === undefined)).toEqual([]);
  });
});
