import { describe, expect, it } from 'vitest';
import { metricFamilyOf, parseMetricFamilies, promqlMetricNames } from './promql-metric-names.js';

describe('promqlMetricNames', () => {
  it('finds a bare selector and ignores its label matchers', () => {
    expect(promqlMetricNames('gpushare_gpu_healthy{node=~".*", gpu="0"} == 0')).toEqual(['gpushare_gpu_healthy']);
  });

  it('skips functions, aggregations and the label lists of by/on', () => {
    expect(
      promqlMetricNames(
        'histogram_quantile(0.99, sum by (le, node) ' +
          '(rate(gpushare_scheduling_pass_duration_seconds_bucket{node="a"}[1m])))',
      ),
    ).toEqual(['gpushare_scheduling_pass_duration_seconds_bucket']);
  });

  it('finds both sides of a binary operation with vector matching and keywords', () => {
    expect(
      promqlMetricNames(
        'max by (node, gpu, job_id, tenant) (gpushare_job_memory_used_bytes) > max by (node, gpu, ' +
          'job_id, tenant) (gpushare_job_allocated_memory_bytes) and on (instance) group_left (tenant) up ' +
          'offset 5m',
      ),
    ).toEqual(['gpushare_job_memory_used_bytes', 'gpushare_job_allocated_memory_bytes', 'up']);
  });

  it('ignores numbers, durations, strings with braces and subqueries', () => {
    expect(
      promqlMetricNames('label_replace(max_over_time(gpushare_jobs[5m:30s]), "x", "{a}", "y", ".*") > 30 * 60 + 1e3'),
    ).toEqual(['gpushare_jobs']);
  });

  it('returns each name once, in order of first appearance', () => {
    expect(promqlMetricNames('b_total - a_total + b_total')).toEqual(['b_total', 'a_total']);
  });
});

describe('metricFamilyOf', () => {
  const families = new Map([
    ['gpushare_scheduling_pass_duration_seconds', 'histogram'],
    ['gpushare_jobs_submitted_total', 'counter'],
    ['gpushare_jobs', 'gauge'],
  ]);

  it('maps histogram series to their family and keeps exact names', () => {
    expect(metricFamilyOf('gpushare_scheduling_pass_duration_seconds_bucket', families)).toBe(
      'gpushare_scheduling_pass_duration_seconds',
    );
    expect(metricFamilyOf('gpushare_scheduling_pass_duration_seconds_count', families)).toBe(
      'gpushare_scheduling_pass_duration_seconds',
    );
    expect(metricFamilyOf('gpushare_jobs_submitted_total', families)).toBe('gpushare_jobs_submitted_total');
  });

  it('does not strip a suffix from a gauge family or invent a family', () => {
    expect(metricFamilyOf('gpushare_jobs_count', families)).toBeUndefined();
    expect(metricFamilyOf('gpushare_nope', families)).toBeUndefined();
  });
});

describe('parseMetricFamilies', () => {
  it('reads name and type from each # TYPE line', () => {
    const text =
      '# HELP a_total A.\n# TYPE a_total counter\na_total 3\n# TYPE b_seconds histogram\nb_seconds_bucket{le="1"} 0\n';
    expect([...parseMetricFamilies(text)]).toEqual([
      ['a_total', 'counter'],
      ['b_seconds', 'histogram'],
    ]);
  });
});
