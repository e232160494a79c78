/** Log retention: the folders of jobs that ended before the retention period go; the records stay. */
import { describe, expect, it } from 'vitest';
import { ManualClock } from '../../adapters/memory/manual-clock.js';
import { MemoryJobFiles } from '../../adapters/memory/memory-job-files.js';
import { createMemoryStore } from '../../adapters/store/memory-store.js';
import { note, sampleJob } from '../../adapters/store/store-fixtures.js';
import type { JobState } from '../../core/index.js';
import { Retention } from './retention.js';

const DAY_MS = 24 * 3_600_000;

describe('Retention', () => {
  it('removes the folders of jobs ended longer ago than logRetentionMs, and nothing else', () => {
    const clock = new ManualClock();
    const store = createMemoryStore();
    store.createTenant('acme', 0);
    const files = new MemoryJobFiles();
    const t0 = clock.nowMs();
    /** A job moved from pending to `state`, with a folder and a log, ended at `endedAtMs` (null: not ended). */
    const job = (state: JobState, endedAtMs: number | null): string => {
      const { id } = store.insertJob(sampleJob('acme'), t0);
      const folder = files.createFolder(id);
      files.prepareCheckpointDirectory(folder);
      files.appendLog(folder, 1, 'stdout', 'log');
      const patch = { folder, ...(endedAtMs === null ? {} : { endedAtMs }) };
      const to = state === 'pending' ? {} : { to: state, reason: note('test') };
      store.applyJobChanges([{ jobId: id, atMs: endedAtMs ?? t0, expectState: 'pending', ...to, patch }]);
      return folder;
    };
    const old = job('cancelled', t0);
    const older = job('cancelled', t0 + 1);
    const recent = job('cancelled', t0 + 2 * DAY_MS);
    const pending = job('pending', null);
    const retention = new Retention({ store, files, clock, settings: { logRetentionMs: 2 * DAY_MS } });
    expect(retention.intervalMs).toBe(3_600_000);
    clock.advance(2 * DAY_MS + 1);
    expect(retention.sweep()).toEqual([old]);
    clock.advance(1);
    expect(retention.sweep()).toEqual([old, older]); // every sweep removes again: the store keeps the names
    expect([old, older, recent, pending].map((f) => files.hasFiles(f))).toEqual([false, false, true, true]);
    expect([old, recent].map((f) => files.logSize(f, 1, 'stdout'))).toEqual([null, 3]);
    expect(store.getJob(1)?.state).toBe('cancelled');
    expect(new Retention({ store, files, clock, settings: { logRetentionMs: 60_000 } }).intervalMs).toBe(60_000);
  });
});
