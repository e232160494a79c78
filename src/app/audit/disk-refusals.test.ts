import { describe, expect, it } from 'vitest';
import { diskFull } from '../errors.js';
import type { AuditLog, NewAuditEntry } from '../ports/audit-log.js';
import { createMemoryAuditLog } from '../../adapters/store/memory-audit-log.js';
import { diskAwareAuditRecorder, DiskRefusalBacklog, flushDiskRefusals } from './disk-refusals.js';

const T0 = Date.parse('2026-01-01T00:00:00Z');

function entry(action: string, tenant: string | null, httpStatus: number | null, atMs = T0): NewAuditEntry {
  return {
    atMs,
    actor: 'admin token 1',
    role: 'admin',
    tenant,
    action,
    target: 'x',
    summary: {},
    outcome: { result: httpStatus === null || httpStatus < 400 ? 'ok' : 'failed', httpStatus, message: null },
  };
}

/** An audit log whose appends fail with a full disk while `full.on`. */
function flakyLog(full: { on: boolean }): AuditLog {
  const log = createMemoryAuditLog();
  return {
    ...log,
    append: (e) => {
      if (full.on) throw diskFull('/data', 'SQLITE_FULL');
      return log.append(e);
    },
  };
}

const logger = () => {
  const lines: string[] = [];
  return {
    lines,
    error: (_: object, msg?: string) => lines.push(`error ${msg}`),
    warn: (_: object, msg?: string) => lines.push(`warn ${msg}`),
  };
};

describe('disk refusals', () => {
  it('holds refused calls back, records other entries, and summarizes the held ones in one entry', () => {
    const full = { on: false };
    const log = flakyLog(full);
    const backlog = new DiskRefusalBacklog();
    const lines = logger();
    const record = diskAwareAuditRecorder({ log, backlog, logger: lines, noteError: () => false });
    record(entry('job.submit', 'team-a', 507, T0));
    record(entry('job.submit', 'team-a', 507, T0 + 5));
    record(entry('tenant.create', null, 201));
    expect(log.list({ limit: 10 }).map((e) => e.action)).toEqual(['tenant.create']);
    full.on = true;
    record(entry('job.cancel', 'team-b', 200, T0 + 9)); // a full disk keeps it out: held, not lost
    expect(backlog.size).toBe(3);
    expect(lines.lines).toEqual([]);
    // Still full: the summary stays held.
    expect(flushDiskRefusals(log, backlog, T0 + 10, () => true)).toBe(false);
    expect(backlog.size).toBe(3);
    full.on = false;
    expect(flushDiskRefusals(log, backlog, T0 + 20, () => true)).toBe(true);
    expect(backlog.size).toBe(0);
    const summary = log.list({ limit: 10 }).at(-1)!;
    expect(summary.action).toBe('audit.backlog');
    expect(summary.actor).toBe('server');
    expect(summary.summary).toEqual({
      reason: 'disk-space',
      entries: 3,
      groups: [
        {
          action: 'job.submit',
          tenant: 'team-a',
          result: 'failed',
          httpStatus: 507,
          count: 2,
          first: '2026-01-01T00:00:00.000Z',
          last: '2026-01-01T00:00:00.005Z',
        },
        {
          action: 'job.cancel',
          tenant: 'team-b',
          result: 'ok',
          httpStatus: 200,
          count: 1,
          first: '2026-01-01T00:00:00.009Z',
          last: '2026-01-01T00:00:00.009Z',
        },
      ],
      overflowEntries: 0,
      maxGroups: 100,
    });
    expect(flushDiskRefusals(log, backlog, T0 + 30, () => true)).toBe(false);
  });

  it('keeps at most maxGroups groups and counts the rest as overflow', () => {
    const backlog = new DiskRefusalBacklog(2);
    for (let i = 0; i < 5; i++) backlog.add(entry('job.submit', `tenant-${i}`, 507));
    backlog.add(entry('job.submit', 'tenant-0', 507));
    const summary = backlog.summaryEntry(T0)!.summary as {
      entries: number;
      groups: unknown[];
      overflowEntries: number;
    };
    expect(summary.entries).toBe(6);
    expect(summary.groups).toHaveLength(2);
    expect(summary.overflowEntries).toBe(3);
  });

  it('counts refused calls by reason for good, apart from the backlog', () => {
    const backlog = new DiskRefusalBacklog();
    backlog.noteRefused('disk-low');
    backlog.noteRefused('disk-low');
    backlog.noteRefused('disk-full');
    backlog.clear();
    expect([...backlog.refusedTotals()]).toEqual([
      ['disk-low', 2],
      ['disk-full', 1],
    ]);
  });

  it('logs an append that fails for another reason as before', () => {
    const backlog = new DiskRefusalBacklog();
    const lines = logger();
    const log = {
      ...createMemoryAuditLog(),
      append: () => {
        throw new Error('closed');
      },
    } as AuditLog;
    diskAwareAuditRecorder({ log, backlog, logger: lines, noteError: () => false })(entry('gpu.cordon', null, 200));
    expect(lines.lines).toEqual(['error audit log: could not record gpu.cordon on x']);
    expect(backlog.size).toBe(0);
  });
});
