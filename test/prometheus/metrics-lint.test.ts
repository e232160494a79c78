/**
 * `promtool check metrics` (Prometheus's own linter of exposition text: naming, units, `_total`
 * only on counters, HELP present) over a real server's `/metrics` with two jobs sharing a GPU, a
 * MIG job and a QoS job, so that every gpushare family has series. Only prom-client's default
 * `nodejs_*` / `process_*` families may draw remarks; no `gpushare_` family may.
 */
import { spawnSync } from 'node:child_process';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  api,
  cleanupServe,
  shellJob,
  startServe,
  waitForJob,
  type ServeHandle,
  serverFetch,
} from '../e2e/support/serve-harness.js';
import { requireTool } from '../support/required-tool.js';
import { PROMETHEUS_INSTALL_HINT, PROMTOOL_BIN } from './support/prometheus.js';
import { WAIT_MS } from '../../src/testing/deadlines.js';

describe.skipIf(!requireTool(PROMTOOL_BIN, PROMETHEUS_INSTALL_HINT))(
  'promtool check metrics on a live /metrics',
  () => {
    let server: ServeHandle;
    let text = '';
    beforeAll(async () => {
      server = await startServe({ simulateGpus: '1xA100-80GB,1xA100-80GB:mig' });
      const ids: number[] = [];
      for (const body of [
        shellJob('sleep 60', { gpuMilli: 400 }),
        shellJob('sleep 60', { gpuMilli: 400 }),
        shellJob('sleep 60', { gpuMemoryMiB: 10240, mode: 'mig' }),
        shellJob('sleep 60', { gpuMilli: 100 }, { qos: { stepSeconds: 0.5 } }),
      ]) {
        const created = await api(server, 'POST', '/api/v1/jobs', body);
        expect(created.status).toBe(201);
        ids.push(created.body.id as number);
      }
      for (const id of ids) await waitForJob(server, id, (j) => j.state === 'running');
      expect((await api(server, 'POST', `/api/v1/jobs/${ids[3]}/qos-reports`, { stepSeconds: 0.6 })).status).toBe(200);
      text = await (
        await serverFetch(server, '/metrics', { headers: { authorization: `Bearer ${server.adminToken}` } })
      ).text();
    });
    afterAll(async () => {
      if (server) await cleanupServe(server);
    });

    it('finds nothing to remark on any gpushare_ family', () => {
      expect(text).toContain('gpushare_job_allocated_milli{');
      expect(text).toContain('gpushare_gpu_mig_instances{');
      expect(text).toContain('gpushare_job_qos_observed_seconds{');
      const result = spawnSync(PROMTOOL_BIN, ['check', 'metrics'], { input: text, encoding: 'utf8', timeout: WAIT_MS });
      const remarks = `${result.stdout}${result.stderr}`.split('\n').filter((line) => line.trim() !== '');
      expect(remarks.filter((line) => line.startsWith('gpushare_'))).toEqual([]);
      // Anything else it says is about prom-client's default families.
      expect(remarks.filter((line) => !/^(nodejs_|process_)/.test(line))).toEqual([]);
    });
  },
);
