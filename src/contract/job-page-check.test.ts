import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { sampleJob } from '../adapters/http-client/testing/api-fixtures.js';
import { JobSchema } from './api.js';
import { JOB_FIELDS, type JobField } from './job-list.js';
import { checkJobPage, JOB_FIELD_CHECKS } from './job-page-check.js';

/** zod's verdict on one job holding `fields` (and id). */
const zodAccepts = (job: unknown, fields: readonly JobField[]): boolean =>
  JobSchema.pick(
    Object.fromEntries(['id', ...fields].map((f) => [f, true])) as Partial<Record<JobField, true>>,
  ).safeParse(job).success;

describe('checkJobPage', () => {
  it('has a check for every job field', () => {
    expect(Object.keys(JOB_FIELD_CHECKS).sort()).toEqual([...JOB_FIELDS].sort());
  });

  it("gives zod's verdict for a job with any one field replaced by any JSON value", () => {
    const valueArb = fc.oneof(
      fc.jsonValue(),
      fc.constantFrom(...Object.values(sampleJob()), 'pending', 'mps', 'standard', 1.5, -3, undefined),
    );
    const jobArb = fc.constantFrom(
      sampleJob(),
      sampleJob({ placement: null, state: 'pending', reason: 'waiting' }),
      sampleJob({ qos: { targets: { stepSeconds: 1 }, status: [] }, pid: 42 }),
    );
    fc.assert(
      fc.property(
        jobArb,
        fc.constantFrom(...JOB_FIELDS),
        valueArb,
        fc.subarray([...JOB_FIELDS]),
        (base, field, value, fields) => {
          const job: Record<string, unknown> = { ...base, [field]: value };
          if (value === undefined) delete job[field];
          const ours = 'page' in checkJobPage({ jobs: [job], nextAfter: null }, fields);
          expect(ours).toBe(zodAccepts(job, fields));
        },
      ),
      { numRuns: 2000 },
    );
  });

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
