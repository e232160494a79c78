import { describe, expect, it } from 'vitest';
import { PRIORITY_CLASSES } from '../model/priority.js';
import type { JobRequest } from '../model/request.js';
import {
  compareQueueOrder,
  agingCap,
  compareQueueEntries,
  DEFAULT_AGING,
  effectivePriority,
  orderQueue,
  type QueueEntry,
  type QueueOrderContext,
} from './queue-order.js';

const MIN = 60_000;
const NOW = 1_000_000_000;
const { low, normal, high, critical } = PRIORITY_CLASSES;

const entry = (id: number, tenant: string, priority: number, waitedMs: number): QueueEntry => ({
  id,
  tenant,
  priority,
  submittedAtMs: NOW - waitedMs,
});
const ctx = (shares: Record<string, number> = {}, nowMs = NOW): QueueOrderContext => ({
  nowMs,
  dominantShareByTenant: new Map(Object.entries(shares)),
});
const ids = (jobs: readonly QueueEntry[]): number[] => jobs.map((j) => j.id);

describe('agingCap', () => {
  it.each([
    [low, normal],
    [50, low],
    [300, normal],
    [normal, high],
    [700, high],
    [high, critical],
    [950, critical],
    [critical, critical],
    [5000, 5000],
    [-10, low],
  ])('priority %i ages up to %i', (priority, cap) => {
    expect(agingCap(priority)).toBe(cap);
  });
});

describe('effectivePriority', () => {
  it.each([
    ['no wait', low, 0, low],
    ['just under one interval', low, 30 * MIN - 1, low],
    ['one interval (30 min): ranks with normal', low, 30 * MIN, normal],
    ['an hour: still normal', low, 60 * MIN, normal],
    ['normal after 29 minutes: unchanged', normal, 29 * MIN, normal],
    ['normal after 30 minutes: ranks with high', normal, 30 * MIN, high],
    ['a week: still normal, never above', low, 7 * 24 * 60 * MIN, normal],
    ['normal waits a day: capped at high', normal, 24 * 60 * MIN, high],
    ['high waits a day: capped at critical', high, 24 * 60 * MIN, critical],
    ['critical does not age', critical, 24 * 60 * MIN, critical],
    ['between classes (300) ages to normal', 300, 24 * 60 * MIN, normal],
    ['submitted in the future: no wait', low, -10 * MIN, low],
  ])('%s', (_name, priority, waitedMs, expected) => {
    expect(effectivePriority(entry(1, 't', priority, waitedMs), NOW)).toBe(expected);
  });

  it('uses custom aging settings; step 0 turns aging off', () => {
    const job = entry(1, 't', low, 60 * MIN);
    expect(effectivePriority(job, NOW, { agingIntervalMs: MIN, agingStep: 1 })).toBe(low + 60);
    expect(effectivePriority(job, NOW, { agingIntervalMs: MIN, agingStep: 0 })).toBe(low);
    expect(effectivePriority(job, NOW, { agingIntervalMs: MIN, agingStep: 1000 })).toBe(normal);
  });

  it('documents its defaults: one class up after 30 minutes', () => {
    expect(DEFAULT_AGING).toEqual({ agingIntervalMs: 1_800_000, agingStep: 400 });
  });

  it.each([
    [{ agingIntervalMs: 0, agingStep: 10 }, /agingIntervalMs/],
    [{ agingIntervalMs: -1, agingStep: 10 }, /agingIntervalMs/],
    [{ agingIntervalMs: MIN, agingStep: -1 }, /agingStep/],
    [{ agingIntervalMs: MIN, agingStep: Number.NaN }, /agingStep/],
  ])('rejects aging %o naming the field', (aging, field) => {
    expect(() => effectivePriority(entry(1, 't', low, 0), NOW, aging)).toThrow(field);
  });

  it('rejects a non-finite time or priority', () => {
    expect(() => effectivePriority(entry(1, 't', low, 0), Number.NaN)).toThrow(/nowMs/);
    expect(() => effectivePriority(entry(1, 't', Number.NaN, 0), NOW)).toThrow(/priority/);
    expect(() =>
      effectivePriority({ id: 1, tenant: 't', priority: low, submittedAtMs: Number.POSITIVE_INFINITY }, NOW),
    ).toThrow(/submittedAtMs/);
  });
});

describe('orderQueue', () => {
  it('orders by priority first, whatever the shares', () => {
    const jobs = [entry(1, 'a', low, 0), entry(2, 'b', high, 0), entry(3, 'a', normal, 0), entry(4, 'b', critical, 0)];
    expect(ids(orderQueue(jobs, ctx({ a: 0, b: 0.9 })))).toEqual([4, 2, 3, 1]);
  });

  it('at equal priority, the tenant with the lower dominant share goes first (fair share)', () => {
    const jobs = [entry(1, 'heavy', normal, 1 * MIN), entry(2, 'light', normal, 0), entry(3, 'heavy', normal, 2 * MIN)];
    expect(ids(orderQueue(jobs, ctx({ heavy: 0.6, light: 0.1 })))).toEqual([2, 3, 1]);
  });

  it('fair share orders a class until aging promotes a job: after 30 minutes it ranks with the class above', () => {
    const jobs = [entry(1, 'heavy', normal, 29 * MIN), entry(2, 'light', normal, 0)];
    expect(ids(orderQueue(jobs, ctx({ heavy: 0.6, light: 0.1 })))).toEqual([2, 1]); // both 500: share decides
    const promoted = [entry(1, 'heavy', normal, 30 * MIN), entry(2, 'light', normal, 0)];
    expect(ids(orderQueue(promoted, ctx({ heavy: 0.6, light: 0.1 })))).toEqual([1, 2]); // 900 vs 500
  });

  it('a tenant missing from the share map counts as using nothing', () => {
    const jobs = [entry(1, 'a', normal, 0), entry(2, 'new', normal, 0)];
    expect(ids(orderQueue(jobs, ctx({ a: 0.01 })))).toEqual([2, 1]);
  });

  it('at equal priority and share, earlier submit time, then lower id', () => {
    const jobs = [
      entry(5, 'a', normal, 1000),
      entry(3, 'b', normal, 2000),
      entry(4, 'a', normal, 2000),
      entry(9, 'b', normal, 1000),
    ];
    expect(ids(orderQueue(jobs, ctx({ a: 0.2, b: 0.2 })))).toEqual([3, 4, 5, 9]);
  });

  it('a low job that waited long reaches normal and then goes by share and submit time; never above normal', () => {
    const aged = entry(1, 'a', low, 1000 * MIN);
    const freshNormal = entry(2, 'a', normal, 0);
    const waitedNormal = entry(3, 'b', normal, 30 * MIN); // 900: above the aged low job's cap
    expect(effectivePriority(aged, NOW)).toBe(normal);
    expect(ids(orderQueue([freshNormal, waitedNormal, aged], ctx({ a: 0.5, b: 0.9 })))).toEqual([3, 1, 2]);
    // Still below a high job, however long it waited.
    expect(ids(orderQueue([aged, entry(4, 'a', high, 0)], ctx()))).toEqual([4, 1]);
  });

  it('aging lets a waiting low job overtake a fresher low job of a lighter tenant', () => {
    const waited = entry(1, 'heavy', low, 30 * MIN); // 500
    const fresh = entry(2, 'light', low, 0); // 100
    expect(ids(orderQueue([fresh, waited], ctx({ heavy: 0.9, light: 0 })))).toEqual([1, 2]);
  });

  it('the order changes with time through aging', () => {
    const jobs = [entry(1, 'a', low, 29 * MIN), entry(2, 'a', low + 5, 0)];
    expect(ids(orderQueue(jobs, ctx({}, NOW)))).toEqual([2, 1]); // 100 vs 105
    expect(ids(orderQueue(jobs, ctx({}, NOW + MIN)))).toEqual([1, 2]); // 500 vs 105
  });

  it('does not change its input and returns the same objects', () => {
    const jobs = [entry(1, 'a', low, 0), entry(2, 'a', high, 0)];
    const copy = [...jobs];
    const ordered = orderQueue(jobs, ctx());
    expect(jobs).toEqual(copy);
    expect(ordered[0]).toBe(jobs[1]);
  });

  it('keeps extra fields (JobRequest-shaped entries)', () => {
    const jobs = [
      { ...entry(1, 'a', low, 0), cpuMilli: 5 },
      { ...entry(2, 'a', high, 0), cpuMilli: 7 },
    ];
    expect(orderQueue(jobs, ctx()).map((j) => j.cpuMilli)).toEqual([7, 5]);
  });

  it('rejects an invalid dominant share naming the tenant', () => {
    expect(() => orderQueue([entry(1, 'a', low, 0)], ctx({ a: Number.NaN }))).toThrow(/tenant a/);
    expect(() => orderQueue([entry(1, 'a', low, 0)], ctx({ a: -0.1 }))).toThrow(/tenant a/);
  });
});

describe('compareQueueEntries', () => {
  it('is negative when a goes first, and antisymmetric', () => {
    const a = entry(1, 'a', high, 0);
    const b = entry(2, 'a', normal, 0);
    expect(compareQueueEntries(a, b, ctx())).toBeLessThan(0);
    expect(compareQueueEntries(b, a, ctx())).toBeGreaterThan(0);
    expect(compareQueueEntries(a, a, ctx())).toBe(0);
  });

  it('breaks ties between equal ids by base priority, then tenant', () => {
    // Same effective priority (both capped at normal), same share, same time, same id.
    const agedLow = entry(1, 'a', low, 10_000 * MIN);
    const agedMid = entry(1, 'a', 400, 10_000 * MIN);
    expect(compareQueueEntries(agedMid, agedLow, ctx())).toBeLessThan(0);
    expect(compareQueueEntries(entry(1, 'a', low, 0), entry(1, 'b', low, 0), ctx())).toBeLessThan(0);
  });
});

describe('compareQueueOrder', () => {
  const job = (id: number, priority: number, submittedAtMs: number): JobRequest => ({
    id,
    tenant: 't',
    priority,
    submittedAtMs,
    cpuMilli: 0,
    hostMemoryMiB: 0,
    gpu: { gpuCount: 1, gpuMilli: 100, gpuMemoryMiB: null, mode: 'auto' },
  });

  it('orders by priority (high first), then submit time, then id', () => {
    const jobs = [
      job(5, 500, 20),
      job(4, 100, 0),
      job(3, 500, 10),
      job(2, 900, 99),
      job(1, 500, 20),
      job(6, 1000, 1_000),
    ];
    expect([...jobs].sort(compareQueueOrder).map((j) => j.id)).toEqual([6, 2, 3, 1, 5, 4]);
    expect(
      [...jobs]
        .reverse()
        .sort(compareQueueOrder)
        .map((j) => j.id),
    ).toEqual([6, 2, 3, 1, 5, 4]);
  });

  it('is 0 only for the same job', () => {
    expect(compareQueueOrder(job(1, 500, 0), job(1, 500, 0))).toBe(0);
    expect(Math.sign(compareQueueOrder(job(1, 500, 0), job(2, 500, 0)))).toBe(-1);
    expect(Math.sign(compareQueueOrder(job(2, 501, 0), job(1, 500, 0)))).toBe(-1);
  });
});
