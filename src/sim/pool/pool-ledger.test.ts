import { describe, expect, it } from 'vitest';
import { PoolLedger, StepSeries } from './pool-ledger.js';

describe('StepSeries', () => {
  it('integrates a step function and averages it over intervals', () => {
    const s = new StepSeries();
    s.record(0, 2);
    s.record(10, 4);
    s.record(10, 6); // replaces the value at 10
    s.record(30, 0);
    expect(s.valueAt(5)).toBe(2);
    expect(s.valueAt(10)).toBe(6);
    expect(s.integralTo(20)).toBe(2 * 10 + 6 * 10);
    expect(s.integralTo(40)).toBe(2 * 10 + 6 * 20);
    expect(s.maxTo(40)).toBe(6);
    expect(s.intervalMeans(0, 40, 4)).toEqual([2, 6, 6, 0]);
    expect(() => s.record(20, 1)).toThrow(RangeError);
  });
});

describe('PoolLedger', () => {
  it('pays each node from its request to its removal or the end, for all its GPUs', () => {
    const ledger = new PoolLedger();
    ledger.requested({ name: 'T4x2-0', template: 'T4x2', gpuCount: 2, pricePerHour: 0.7, fromSeconds: 0 });
    ledger.requested({ name: 'G2x8-1', template: 'G2x8', gpuCount: 8, pricePerHour: 19.84, fromSeconds: 1800 });
    ledger.removed('G2x8-1', 5400);
    const totals = ledger.totals(7200);
    // T4: 2 GPUs × 2 h; G2: 8 GPUs × 1 h.
    expect(totals.gpuHours).toBeCloseTo(12, 10);
    expect(totals.cost).toBeCloseTo(0.7 * 2 + 19.84, 10);
    expect(totals).toMatchObject({ nodes: 2, peakGpus: 10 });
    expect(totals.gpuHoursByTemplate).toEqual({ T4x2: 4, G2x8: 8 });
    expect(ledger.paidGpus.intervalMeans(0, 7200, 4)).toEqual([2, 10, 10, 2]);
    expect(ledger.costRate.integralTo(7200) / 3600).toBeCloseTo(totals.cost, 10);
  });

  it('refuses a node paid twice or removed without being paid', () => {
    const ledger = new PoolLedger();
    ledger.requested({ name: 'a', template: 't', gpuCount: 1, pricePerHour: 1, fromSeconds: 0 });
    expect(() => ledger.requested({ name: 'a', template: 't', gpuCount: 1, pricePerHour: 1, fromSeconds: 1 })).toThrow(
      /already paid/,
    );
    expect(() => ledger.removed('b', 1)).toThrow(/not paid/);
  });
});
