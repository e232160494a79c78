import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { sampleJob } from '../adapters/http-client/testing/api-fixtures.js';
import { JobTablePageSchema } from './job-list.js';
import { checkJobPage, checkJobTablePage } from './job-page-check.js';

describe('checkJobPage', () => {
  it('names the first problem by its path, and checks the envelope', () => {
    const good = sampleJob({ id: 1 });
    expect(checkJobPage({ jobs: [good, { ...good, id: 2, state: 'sleeping' }], nextAfter: null }, ['state'])).toEqual({
      problem: 'jobs.1.state: not a valid state',
    });
    expect(checkJobPage({ jobs: [{ name: 'x' }], nextAfter: null }, ['name'])).toEqual({
      problem: 'jobs.0.id: not a valid id',
    });
    expect(checkJobPage({ jobs: [good], nextAfter: '3' }, undefined)).toEqual({
      problem: 'nextAfter: expected an integer or null',
    });
    expect(checkJobPage({ nextAfter: null }, undefined)).toEqual({ problem: 'jobs: expected an array' });
    expect(checkJobPage([], undefined)).toEqual({ problem: 'body: expected an object' });
    expect(checkJobPage({ jobs: [good], nextAfter: 7 }, undefined)).toEqual({ page: { jobs: [good], nextAfter: 7 } });
  });
});

describe('checkJobTablePage', () => {
  const page = { columns: ['ID', 'NAME'], rows: [['1', 'a']], nextAfter: null };

  it('names the first problem by its path, and checks the envelope', () => {
    expect(checkJobTablePage(page)).toEqual({ page });
    expect(checkJobTablePage({ ...page, rows: [['1', 'a'], ['2']] })).toEqual({ problem: 'rows.1: expected 2 cells' });
    expect(checkJobTablePage({ ...page, rows: [['1', 2]] })).toEqual({ problem: 'rows.0.1: expected a string' });
    expect(checkJobTablePage({ ...page, columns: [] })).toEqual({
      problem: 'columns: expected a non-empty array of strings',
    });
    expect(checkJobTablePage({ ...page, rows: {} })).toEqual({ problem: 'rows: expected an array' });
    expect(checkJobTablePage({ ...page, nextAfter: 1.5 })).toEqual({
      problem: 'nextAfter: expected an integer or null',
    });
    expect(checkJobTablePage('x')).toEqual({ problem: 'body: expected an object' });
  });

  it('gives the same verdict as JobTablePageSchema on any JSON-like value', () => {
    const cell = fc.oneof(fc.string({ maxLength: 3 }), fc.integer(), fc.constant(null));
    const value = fc.record(
      {
        columns: fc.oneof(fc.array(fc.string({ maxLength: 3 }), { maxLength: 3 }), cell),
        rows: fc.oneof(fc.array(fc.oneof(fc.array(cell, { maxLength: 3 }), cell), { maxLength: 3 }), cell),
        nextAfter: fc.oneof(fc.integer(), fc.double(), fc.constant(null), fc.string({ maxLength: 2 })),
      },
      { requiredKeys: [] },
    );
    fc.assert(
      fc.property(fc.oneof(value, cell), (v) => {
        expect('page' in checkJobTablePage(v)).toBe(JobTablePageSchema.safeParse(v).success);
      }),
      { numRuns: 2000 },
    );
  });
});
