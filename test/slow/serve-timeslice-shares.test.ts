/**
 * End-to-end: weighted time-slicing through the server. Three CPU-bound jobs share one GPU in
 * `timeslice` mode with gpuMilli 600, 300 and 100; the server freezes and thaws their process trees
 * so each gets CPU time in proportion to its share.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { processGroupCpuMs } from '../../src/adapters/process/proc-group.js';
import {
  api,
  cleanupServe,
  startServe,
  startTimesliceTrio,
  waitForJob,
  type ServeHandle,
} from '../e2e/support/serve-harness.js';

let server: ServeHandle | null = null;
afterEach(async () => {
  if (server) await cleanupServe(server);
  server = null;
});

describe('gpushare serve: weighted time-slicing', () => {
  it('gives three timeslice jobs of 0.6, 0.3 and 0.1 CPU time 60/30/10 (±10 points) over 10 s', async () => {
    server = await startServe({ simulateGpus: '1xA100-80GB' });
    const { ids, pgids } = await startTimesliceTrio(server);
    const before = pgids.map(processGroupCpuMs);
    await new Promise((r) => setTimeout(r, 10_000));
    const used = pgids.map((pgid, i) => processGroupCpuMs(pgid) - before[i]!);
    const total = used.reduce((a, b) => a + b, 0);
    const shares = used.map((u) => (100 * u) / total);
    console.log(
      `time-slicing 0.6/0.3/0.1 over 10 s: CPU ms ${used.join(' / ')} = ` +
        `${shares.map((x) => x.toFixed(1)).join(' / ')} %`,
    );
    expect(total).toBeGreaterThan(2000); // enough CPU time for the shares to mean something (10,000 ms on an idle core)
    expect(Math.abs(shares[0]! - 60)).toBeLessThanOrEqual(10);
    expect(Math.abs(shares[1]! - 30)).toBeLessThanOrEqual(10);
    expect(Math.abs(shares[2]! - 10)).toBeLessThanOrEqual(10);
    for (const id of ids) await api(server, 'POST', `/api/v1/jobs/${id}/cancel`);
    const ended = await Promise.all(ids.map((id) => waitForJob(server!, id, (j) => j.state === 'cancelled')));
    expect(ended.map((j) => j.state)).toEqual(['cancelled', 'cancelled', 'cancelled']);
  });
});
