import { describe, expect, it } from 'vitest';
import { createMemoryStore } from '../../adapters/store/memory-store.js';
import { note, sampleJob } from '../../adapters/store/store-fixtures.js';
import { observeStore } from './observed-store.js';
import { PlaneEvents, type PlaneEvent } from './plane-events.js';

describe('observeStore', () => {
  it('emits the submit and every committed transition, with the state before it', () => {
    const events = new PlaneEvents();
    const seen: PlaneEvent[] = [];
    events.on((e) => seen.push(e));
    const store = observeStore(createMemoryStore(), events);
    store.createTenant('acme', 1);
    const job = store.insertJob(sampleJob('acme', { priority: 900 }), 2);
    store.applyJobChanges([
      { jobId: job.id, atMs: 3, expectState: 'pending', to: 'scheduled', reason: note('placed') },
    ]);
    store.applyJobChanges([
      { jobId: job.id, atMs: 4, expectState: 'scheduled', patch: { reason: note('no transition') } },
    ]);
    store.applyJobChanges([
      { jobId: job.id, atMs: 5, expectState: 'scheduled', to: 'cancelled', reason: note('cancelled by an admin') },
    ]);
    expect(seen).toEqual([
      {
        type: 'job',
        jobId: job.id,
        tenant: 'acme',
        priority: 900,
        from: null,
        to: 'pending',
        mode: null,
        atMs: 2,
        reason: null,
      },
      {
        type: 'job',
        jobId: job.id,
        tenant: 'acme',
        priority: 900,
        from: 'pending',
        to: 'scheduled',
        mode: null,
        atMs: 3,
        reason: note('placed'),
      },
      {
        type: 'job',
        jobId: job.id,
        tenant: 'acme',
        priority: 900,
        from: 'scheduled',
        to: 'cancelled',
        mode: null,
        atMs: 5,
        reason: note('cancelled by an admin'),
      },
    ]);
    // Reads pass through to the wrapped store.
    expect(store.getJob(job.id)!.state).toBe('cancelled');
    expect(store.listTenants().map((t) => t.name)).toEqual(['acme']);
  });

  it('emits nothing for a change that conflicts (nothing was committed)', () => {
    const events = new PlaneEvents();
    const seen: PlaneEvent[] = [];
    events.on((e) => seen.push(e));
    const store = observeStore(createMemoryStore(), events);
    store.createTenant('acme', 1);
    const job = store.insertJob(sampleJob('acme'), 2);
    seen.length = 0;
    expect(() =>
      store.applyJobChanges([{ jobId: job.id, atMs: 3, expectState: 'running', to: 'succeeded' }]),
    ).toThrow();
    expect(seen).toEqual([]);
  });
});

describe('PlaneEvents', () => {
  it('keeps delivering to other listeners when one throws, and removes a listener', () => {
    const events = new PlaneEvents();
    const got: string[] = [];
    events.on(() => {
      throw new Error('broken observer');
    });
    const off = events.on((e) => got.push(e.type));
    events.emit({ type: 'gpus' });
    off();
    events.emit({ type: 'gpus' });
    expect(got).toEqual(['gpus']);
  });
});
