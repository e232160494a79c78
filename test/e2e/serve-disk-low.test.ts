/**
 * End-to-end: a real `gpushare serve` whose data directory is a small tmpfs (16 MiB) with a
 * free-space threshold of 8 MiB (`minFreeDiskMiB`). A filler file takes free space below the
 * threshold while writes still succeed: `/healthz` answers 503 with reason `disk-low` and the free
 * bytes and threshold, submits get 507 `disk-low`, the metric counts them, and nothing is written
 * to the audit log per refused call; once the filler is deleted `/healthz` is 200 again and one
 * `audit.backlog` entry summarizes the refused calls. Mounting a tmpfs needs root: without it the
 * suite is skipped with a message (a failure under GPUSHARE_REQUIRE_TOOLS=1).
 */
import { execFileSync } from 'node:child_process';
import { closeSync, mkdirSync, mkdtempSync, openSync, statfsSync, unlinkSync, writeFileSync, writeSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { canMountTmpfs, stopServerOnTmpfs } from './support/tmpfs-server.js';
import { api, pollFor, serverFetch, shellJob, startServe, type ServeHandle } from './support/serve-harness.js';

const MIB = 1 << 20;
const THRESHOLD_MIB = 8;

/** Free bytes of the file system holding `path`, as root sees them (the server runs as root here). */
const freeBytes = (path: string): number => {
  const stats = statfsSync(path);
  return stats.bfree * stats.bsize;
};

/** Writes `bytes` (whole MiB) to a new file at `path`. */
function writeFiller(path: string, bytes: number): void {
  const fd = openSync(path, 'w');
  const chunk = Buffer.alloc(MIB, 1);
  try {
    for (let i = 0; i < Math.floor(bytes / MIB); i++) writeSync(fd, chunk);
  } finally {
    closeSync(fd);
  }
}

let server: ServeHandle | null = null;
let mounted: string | null = null;
afterEach(async () => {
  await stopServerOnTmpfs(server, mounted);
  mounted = null;
  server = null;
});

describe.skipIf(!canMountTmpfs('the disk-low test'))('gpushare serve: free space below --min-free-disk-mib', () => {
  it('answers /healthz 503 before the disk is full, refuses submits, summarizes them in one audit entry', async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'gpushare-e2e-disk-low-'));
    const data = join(dataDir, 'data');
    mkdirSync(data);
    execFileSync('mount', ['-t', 'tmpfs', '-o', 'size=16m,mode=0700', 'tmpfs', data]);
    mounted = data;
    server = await startServe({ simulateGpus: '1xA100-80GB', dataDir, config: { minFreeDiskMiB: THRESHOLD_MIB } });
    expect((await serverFetch(server, '/healthz')).status).toBe(200);

    // Leave 5 MiB free: below the 8 MiB threshold, far from full.
    const filler = join(data, 'filler');
    writeFiller(filler, freeBytes(data) - 5 * MIB);
    const free = freeBytes(data);
    expect(free).toBeLessThan(THRESHOLD_MIB * MIB);
    expect(free).toBeGreaterThanOrEqual(4 * MIB);
    const health = await serverFetch(server, '/healthz');
    expect(health.status).toBe(503);
    const healthBody = (await health.json()) as Record<string, unknown>;
    expect(healthBody).toMatchObject({ status: 'unhealthy', reason: 'disk-low', minFreeBytes: THRESHOLD_MIB * MIB });
    expect(healthBody.freeBytes).toBeLessThan(THRESHOLD_MIB * MIB);
    expect(healthBody.message).toBe(
      `the disk holding ${data} has ${Math.floor((healthBody.freeBytes as number) / MIB)} MiB free, below the ` +
        `threshold of ${THRESHOLD_MIB} MiB (--min-free-disk-mib)`,
    );

    const auditBefore = (await api(server, 'GET', '/api/v1/audit?limit=500')).body.entries.length as number;
    for (let i = 0; i < 3; i++) {
      const refused = await api(server, 'POST', '/api/v1/jobs', shellJob('true', { gpuMilli: 100, mode: 'timeslice' }));
      expect(refused.status).toBe(507);
      expect(refused.body.error.code).toBe('GPUSHARE_DISK_FULL');
      expect(refused.body.error.details).toMatchObject({ reason: 'disk-low', minFreeBytes: THRESHOLD_MIB * MIB });
    }
    // The disk is not full: a 1 MiB write still succeeds, and no refused call was written to the audit log.
    writeFileSync(join(data, 'still-room'), Buffer.alloc(MIB));
    unlinkSync(join(data, 'still-room'));
    expect((await api(server, 'GET', '/api/v1/audit?limit=500')).body.entries).toHaveLength(auditBefore);
    const metrics = await (
      await serverFetch(server, '/metrics', { headers: { authorization: `Bearer ${server.adminToken}` } })
    ).text();
    expect(metrics).toContain('gpushare_disk_refused_calls_total{reason="disk-low"} 3');
    expect(metrics).toContain('gpushare_disk_refused_calls_total{reason="disk-full"} 0');
    expect(metrics).toContain('gpushare_disk_unhealthy{reason="disk-low"} 1');
    expect(metrics).toContain('gpushare_audit_backlog_entries 3');

    unlinkSync(filler);
    await pollFor('/healthz to answer 200 again', async () =>
      (await serverFetch(server!, '/healthz')).status === 200 ? true : undefined,
    );
    const summary = await pollFor('the audit.backlog entry', async () => {
      const entries = (await api(server!, 'GET', '/api/v1/audit?limit=500')).body.entries as {
        action: string;
        summary: Record<string, unknown>;
      }[];
      return entries.find((e) => e.action === 'audit.backlog');
    });
    expect(summary.summary).toMatchObject({
      reason: 'disk-space',
      entries: 3,
      overflowEntries: 0,
      groups: [{ action: 'job.submit', result: 'failed', httpStatus: 507, count: 3 }],
    });
    const accepted = await api(server, 'POST', '/api/v1/jobs', shellJob('true', { gpuMilli: 100, mode: 'timeslice' }));
    expect(accepted.status).toBe(201);
    const after = await (
      await serverFetch(server, '/metrics', { headers: { authorization: `Bearer ${server.adminToken}` } })
    ).text();
    expect(after).toContain('gpushare_audit_backlog_entries 0');
    expect(after).toContain('gpushare_disk_unhealthy{reason="disk-low"} 0');
  });
});
