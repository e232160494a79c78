import { describe, expect, it } from 'vitest';
import { sampleJob } from '../adapters/http-client/testing/api-fixtures.js';
import { checkJobPage } from './job-page-check.js';

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
