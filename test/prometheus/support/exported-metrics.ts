/**
 * Test support: the metric families a real gpushare server exports, read from the `# TYPE` lines
 * of its `GET /metrics` (one simulated A100-80GB, no jobs: every family is registered at start,
 * so its `# TYPE` line is there even before it has a series).
 */
import { cleanupServe, startServe, serverFetch } from '../../e2e/support/serve-harness.js';
import { parseMetricFamilies } from './promql-metric-names.js';

/**
 * Starts `gpushare serve --simulate-gpus 1xA100-80GB` from `dist/` (run `npm run build` first),
 * reads `/metrics` with the admin token, stops the server and returns family name → type.
 *
 * @throws Error when /metrics does not answer 200
 */
export async function serverMetricFamilies(): Promise<Map<string, string>> {
  const server = await startServe({ simulateGpus: '1xA100-80GB' });
  try {
    const response = await serverFetch(server, '/metrics', {
      headers: { authorization: `Bearer ${server.adminToken}` },
    });
    const text = await response.text();
    if (response.status !== 200) throw new Error(`GET /metrics answered ${response.status}: ${text.slice(0, 500)}`);
    return parseMetricFamilies(text);
  } finally {
    await cleanupServe(server);
  }
}
