/**
 * The job-listing part of the StateStore contract (store.contract.ts calls it): every JobFilter
 * selector (tenant, states, name pattern, submit time, id cursor), `newest`, `limit`, their
 * combinations, and the paging property: walking any filter page by page (`afterId` = the last id
 * of the previous page) yields exactly the unpaged answer.
 */
import fc from 'fast-check';
import { expect, it } from 'vitest';
import { JOB_STATES, type JobState } from '../../core/index.js';
import type { JobFilter, JobRecord, StateStore } from '../../app/ports/state-store.js';
import { compileNamePattern } from '../../lib/name-pattern.js';
import { sampleJob } from './store-fixtures.js';

/** One job to store: its tenant, name, submit time and the state it is moved to. */
interface JobSeed {
  readonly tenant: 'acme' | 'beta';
  readonly name: string;
  readonly submittedAtMs: number;
  readonly state: JobState;
}

/** Allowed transitions that take a pending job to each state. */
const PATH_FROM_PENDING: Readonly<Record<JobState, readonly JobState[]>> = {
  pending: [],
  scheduled: ['scheduled'],
  running: ['scheduled', 'running'],
  preempted: ['scheduled', 'running', 'preempted'],
  succeeded: ['scheduled', 'running', 'succeeded'],
  failed: ['failed'],
  cancelled: ['cancelled'],
};

/** Stores tenants acme and beta and the jobs, each moved to its state. @returns the stored jobs, by id */
function seedJobs(store: StateStore, jobs: readonly JobSeed[], t0: number): JobRecord[] {
  store.createTenant('acme', t0);
  store.createTenant('beta', t0);
  const ids = jobs.map((j) => store.insertJob(sampleJob(j.tenant, { name: j.name }), j.submittedAtMs).id);
  const changes = jobs.flatMap((j, i) =>
    PATH_FROM_PENDING[j.state].map((to) => ({ jobId: ids[i]!, atMs: t0 + 1_000_000, to })),
  );
  if (changes.length > 0) store.applyJobChanges(changes);
  return store.listJobs();
}

/** The jobs of `all` a filter selects, by the filter's documented rules (the reference the stores are held to). */
function expected(all: readonly JobRecord[], filter: JobFilter): number[] {
  const name = filter.namePattern === undefined ? null : compileNamePattern(filter.namePattern);
  const selected = all
    .filter(
      (j) =>
        (filter.tenant === undefined || j.tenant === filter.tenant) &&
        (filter.states === undefined || filter.states.includes(j.state)) &&
        (name === null || name.matches(j.name)) &&
        (filter.submittedSinceMs === undefined || j.submittedAtMs >= filter.submittedSinceMs) &&
        (filter.afterId === undefined || j.id > filter.afterId),
    )
    .map((j) => j.id);
  const newest = filter.newest === undefined ? selected : selected.slice(-filter.newest);
  return filter.limit === undefined ? newest : newest.slice(0, filter.limit);
}

/** Every id `filter` selects, read in pages of `pageSize` through `afterId`. */
function paged(store: StateStore, filter: JobFilter, pageSize: number): number[] {
  const ids: number[] = [];
  let afterId: number | undefined;
  for (let page = 0; page < 1000; page++) {
    const jobs = store.listJobs({ ...filter, limit: pageSize, ...(afterId === undefined ? {} : { afterId }) });
    ids.push(...jobs.map((j) => j.id));
    if (jobs.length < pageSize) return ids;
    afterId = jobs[jobs.length - 1]!.id;
  }
  throw new Error('more than 1000 pages');
}

/**
 * Declares the job-listing cases.
 * @param store the store of the current test (fresh and empty for each)
 * @param fresh a new empty store and its disposal, for the property (one per generated case)
 * @param t0 a base time, ms since the epoch
 */
export function describeJobListing(
  store: () => StateStore,
  fresh: () => { store: StateStore; cleanup(): void },
  t0: number,
): void {
  const fixture = (): JobRecord[] =>
    seedJobs(
      store(),
      [
        { tenant: 'acme', name: 'train-1', submittedAtMs: t0, state: 'pending' },
        { tenant: 'acme', name: 'train-2', submittedAtMs: t0 + 10, state: 'running' },
        { tenant: 'beta', name: 'train-3', submittedAtMs: t0 + 20, state: 'pending' },
        { tenant: 'beta', name: 'eval-train', submittedAtMs: t0 + 30, state: 'cancelled' },
        { tenant: 'acme', name: 'train', submittedAtMs: t0 + 40, state: 'failed' },
        { tenant: 'acme', name: 'tr?in[1]*', submittedAtMs: t0 + 50, state: 'pending' },
      ],
      t0,
    );
  const ids = (filter: JobFilter): number[] =>
    store()
      .listJobs(filter)
      .map((j) => j.id);

  it('selects by name pattern: the whole name, * any run, GLOB characters literal', () => {
    const [a, b, c, d, e, f] = fixture().map((j) => j.id);
    expect(ids({ namePattern: 'train-*' })).toEqual([a, b, c]);
    expect(ids({ namePattern: 'train' })).toEqual([e]);
    expect(ids({ namePattern: '*train' })).toEqual([d, e]);
    expect(ids({ namePattern: '*ain*' })).toEqual([a, b, c, d, e]);
    expect(ids({ namePattern: 'tr?in[1]*' })).toEqual([f]);
    expect(ids({ namePattern: 'tr?in*' })).toEqual([f]);
    expect(ids({ namePattern: 'tr[?]in*' })).toEqual([]);
    expect(ids({ namePattern: 'Train-*' })).toEqual([]);
    expect(() => ids({ namePattern: '' })).toThrow(RangeError);
  });

  it('selects by submit time (at or after), id cursor, tenant and several states, combined', () => {
    const [a, b, c, d, e, f] = fixture().map((j) => j.id);
    expect(ids({ submittedSinceMs: t0 + 20 })).toEqual([c, d, e, f]);
    expect(ids({ submittedSinceMs: t0 + 21 })).toEqual([d, e, f]);
    expect(ids({ afterId: b })).toEqual([c, d, e, f]);
    expect(ids({ states: ['pending', 'running'] })).toEqual([a, b, c, f]);
    expect(ids({ states: [] })).toEqual([]);
    expect(
      ids({ tenant: 'acme', states: ['pending', 'failed'], namePattern: 'tr*', submittedSinceMs: t0 + 1, afterId: a }),
    ).toEqual([e, f]);
    expect(ids({ tenant: 'beta', namePattern: 'train-*' })).toEqual([c]);
    expect(ids({ tenant: 'nobody' })).toEqual([]);
  });

  it('limits a page to the lowest ids; newest N first picks the highest, then the limit', () => {
    const [a, b, c, d, e, f] = fixture().map((j) => j.id);
    expect(ids({ limit: 2 })).toEqual([a, b]);
    expect(ids({ limit: 2, afterId: b })).toEqual([c, d]);
    expect(ids({ limit: 2, namePattern: '*train*', afterId: a })).toEqual([b, c]);
    expect(ids({ limit: 10, states: ['pending'] })).toEqual([a, c, f]);
    expect(ids({ newest: 3, limit: 2 })).toEqual([d, e]);
    expect(ids({ newest: 2, namePattern: 'train*' })).toEqual([c, e]);
  });

  it('pages through any filter with any page size to exactly the unpaged answer', () => {
    const nameArb = fc.stringOf(fc.constantFrom('a', 'b', '-', '?', '[', 'é'), { minLength: 1, maxLength: 4 });
    const patternArb = fc.stringOf(fc.constantFrom('a', 'b', '-', '?', '[', 'é', '*'), { minLength: 1, maxLength: 4 });
    const jobArb = fc.record({
      tenant: fc.constantFrom('acme' as const, 'beta' as const),
      name: nameArb,
      submittedAtMs: fc.integer({ min: t0, max: t0 + 100 }),
      state: fc.constantFrom(...JOB_STATES),
    });
    const filterArb = fc.record(
      {
        tenant: fc.constantFrom('acme', 'beta', 'nobody'),
        states: fc.subarray([...JOB_STATES]),
        namePattern: patternArb,
        submittedSinceMs: fc.integer({ min: t0, max: t0 + 100 }),
        afterId: fc.integer({ min: 0, max: 30 }),
        newest: fc.integer({ min: 1, max: 30 }),
      },
      { requiredKeys: [] },
    );
    fc.assert(
      fc.property(
        fc.array(jobArb, { maxLength: 25 }),
        filterArb,
        fc.integer({ min: 1, max: 8 }),
        (jobs, filter, pageSize) => {
          const under = fresh();
          try {
            const all = seedJobs(under.store, jobs, t0);
            const unpaged = under.store.listJobs(filter).map((j) => j.id);
            expect(unpaged).toEqual(expected(all, filter));
            if (filter.newest === undefined) expect(paged(under.store, filter, pageSize)).toEqual(unpaged);
            expect(under.store.listJobs({ ...filter, limit: pageSize }).map((j) => j.id)).toEqual(
              unpaged.slice(0, pageSize),
            );
          } finally {
            under.cleanup();
          }
        },
      ),
      { numRuns: 60 },
    );
  });
}
