import { describe, expect, it } from 'vitest';
import { JobSchema } from './api.js';
import { JOB_FIELDS } from './job-fields.js';

describe('JOB_FIELDS', () => {
  it("is JobSchema's keys, in JobSchema's order", () => {
    expect(JOB_FIELDS).toEqual(Object.keys(JobSchema.shape));
  });
});
