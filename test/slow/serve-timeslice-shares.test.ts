/**
 * End-to-end: weighted time-slicing through the server. Three CPU-bound jobs share one GPU in
 * `timeslice` mode with gpuMilli 600, 300 and 100; the server freezes and thaws their process trees
 * so each gets CPU time in proportion to its share.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { api, cleanupServe, shellJob, startServe, waitForJob, type ServeHandle } from '../e2e/support/serve-harness.js';

let server: ServeHandle | null = null;
afterEach(async () => {
  if (server) await cleanupServe(server);
  server = null;
});

/** CPU time (user + system) of every process in a process group, in clock ticks. */
function groupTicks(pgid: number): number {
  let ticks = 0;
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const stat = readFileSync(`/proc/${entry}/stat`, 'utf8');
      const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
      if (Number(fields[2]) === pgid) ticks += Number(fields[11]) + Number(fields[12]);
    } catch {
      // process ended
    }
  }
  return ticks;
}

describe('gpushare serve: weighted time-slicing', () => {
  it('gives three timeslice jobs of 0.6, 0.3 and 0.1 CPU time 60/30/10 (±10 points) over 10 s', async () => {
    server = await startServe({ simulateGpus: '1xA100-80GB' });
    const ids: number[] = [];
    for (const gpuMilli of [600, 300, 100]) {
      const { status, body } = await api(server, 'POST', '/api/v1/jobs', shellJob('while :; do :; done', { gpuMilli, mode: 'timeslice' }));
      expect(status).toBe(201);
      ids.push(body.id);
    }
    const jobs = await Promise.all(ids.map((id) => waitForJob(server!, id, (j) => j.state === 'running')));
    expect(jobs.map((j) => j.placement.gpus[0].index)).toEqual([0, 0, 0]);
    expect(jobs.map((j) => j.placement.mode)).toEqual(['timeslice', 'timeslice', 'timeslice']);
    const pgids = ids.map((id) => (JSON.parse(readFileSync(join(server!.dataDir, 'data', 'jobs', String(id), 'attempt-1.pid'), 'utf8')) as { jobPid: number }).jobPid);
    const before = pgids.map(groupTicks);
    await new Promise((r) => setTimeout(r, 10_000));
    const used = pgids.map((pgid, i) => groupTicks(pgid) - before[i]!);
    const total = used.reduce((a, b) => a + b, 0);
    const shares = used.map((u) => (100 * u) / total);
    console.log(`time-slicing 0.6/0.3/0.1 over 10 s: CPU ticks ${used.join(' / ')} = ${shares.map((x) => x.toFixed(1)).join(' / ')} %`);
    expect(total).toBeGreaterThan(200); // enough samples for the shares to mean something (1000 on an idle core)
    expect(Math.abs(shares[0]! - 60)).toBeLessThanOrEqual(10);
    expect(Math.abs(shares[1]! - 30)).toBeLessThanOrEqual(10);
    expect(Math.abs(shares[2]! - 10)).toBeLessThanOrEqual(10);
    for (const id of ids) await api(server, 'POST', `/api/v1/jobs/${id}/cancel`);
    const ended = await Promise.all(ids.map((id) => waitForJob(server!, id, (j) => j.state === 'cancelled')));
    expect(ended.map((j) => j.state)).toEqual(['cancelled', 'cancelled', 'cancelled']);
  });
});
