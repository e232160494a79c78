import { describe, expect, it } from 'vitest';
import { buildSubmitBody } from './submit-command.js';
import { formatQosStatus, parseQosSeconds, resolveReportTarget } from './report.js';

describe('gpushare report', () => {
  it('parses seconds: positive, finite, at most one day', () => {
    expect([parseQosSeconds('--step-seconds', '0.62'), parseQosSeconds('--step-seconds', '12'), parseQosSeconds('--step-seconds', '.5')]).toEqual([0.62, 12, 0.5]);
    for (const bad of ['0', '-1', 'abc', '1e9', 'Infinity', '']) {
      expect(() => parseQosSeconds('--step-seconds', bad)).toThrow(`--step-seconds: '${bad}' is not a number of seconds; expected a positive number up to 86400 (e.g. 0.5)`);
    }
  });

  it('takes server, job and token from the job environment; flags win; a missing variable is named', () => {
    const env = { GPUSHARE_URL: 'http://127.0.0.1:7070/', GPUSHARE_JOB_ID: '7', GPUSHARE_JOB_TOKEN: 'gs_x' };
    expect(resolveReportTarget({}, env)).toEqual({ url: 'http://127.0.0.1:7070', jobId: 7, token: 'gs_x' });
    expect(resolveReportTarget({ job: 9, token: 'gs_admin', url: 'http://h:1' }, env)).toEqual({ url: 'http://h:1', jobId: 9, token: 'gs_admin' });
    expect(() => resolveReportTarget({}, { ...env, GPUSHARE_JOB_TOKEN: undefined })).toThrow('GPUSHARE_JOB_TOKEN is not set: gpushare sets it for every job; outside a job pass --token');
    expect(() => resolveReportTarget({}, { ...env, GPUSHARE_URL: '' })).toThrow('GPUSHARE_URL is not set');
    expect(() => resolveReportTarget({}, { ...env, GPUSHARE_JOB_ID: 'x' })).toThrow("GPUSHARE_JOB_ID: 'x' is not a job id");
  });

  it('prints one line per target', () => {
    expect(formatQosStatus(7, [
      { kind: 'step', targetSeconds: 0.5, lastObservedSeconds: 0.62, lastReportAt: '2025-01-01T00:00:01.000Z', reports: 3, violating: true, missingSince: '2025-01-01T00:00:00.000Z', violations: 1 },
      { kind: 'latency', targetSeconds: 0.2, lastObservedSeconds: 0.3, lastReportAt: '2025-01-01T00:00:01.000Z', reports: 1, violating: false, missingSince: '2025-01-01T00:00:01.000Z', violations: 0 },
    ])).toBe('job 7 step: latest 0.62 s, target 0.5 s, violating (1 violation so far)\njob 7 latency: latest 0.3 s, target 0.2 s, missing since 2025-01-01T00:00:01.000Z (0 violations so far)\n');
  });

  it('submit puts the QoS flags into the body', () => {
    expect(buildSubmitBody(['sleep', '1'], { qosStepSeconds: 0.5 }, '/tmp').qos).toEqual({ stepSeconds: 0.5 });
    expect(buildSubmitBody(['sleep', '1'], { qosStepSeconds: 0.5, qosLatencySeconds: 0.2 }, '/tmp').qos).toEqual({ stepSeconds: 0.5, latencySeconds: 0.2 });
    expect(buildSubmitBody(['sleep', '1'], {}, '/tmp').qos).toBeUndefined();
  });
});
