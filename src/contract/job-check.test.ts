/**
 * The fast job checks (job-check.ts) against zod's verdicts: a job with any one field, or any one
 * value nested in its placement, GPU request or QoS, replaced by any JSON value.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { sampleJob } from '../adapters/http-client/testing/api-fixtures.js';
import { JobSchema } from './api.js';
import { checkJob, JOB_FIELD_CHECKS } from './job-check.js';
import { JOB_FIELDS, type JobField } from './job-fields.js';

/** zod's verdict on one job holding `fields` (and id). */
const zodAccepts = (job: unknown, fields: readonly JobField[]): boolean =>
  JobSchema.pick(
    Object.fromEntries(['id', ...fields].map((f) => [f, true])) as Partial<Record<JobField, true>>,
  ).safeParse(job).success;

/** Ours for the same: `id` and `fields` each pass their check. */
const oursAccepts = (job: Record<string, unknown>, fields: readonly JobField[]): boolean =>
  ['id' as const, ...fields].every((field) => JOB_FIELD_CHECKS[field](job[field]));

const QOS_STATUS = {
  kind: 'step',
  targetSeconds: 1,
  lastObservedSeconds: null,
  lastReportAt: null,
  reports: 0,
  violating: false,
  missingSince: null,
  violations: 0,
};
const BASES = [
  sampleJob(),
  sampleJob({ placement: null, state: 'pending', reason: 'waiting' }),
  sampleJob({ qos: { targets: { stepSeconds: 1 }, status: [QOS_STATUS as never] }, pid: 42 }),
  sampleJob({ qos: { targets: { latencySeconds: 0.5, stepSeconds: 86_400 }, status: [] }, pid: null }),
];
const valueArb = fc.oneof(
  fc.jsonValue(),
  fc.constantFrom(
    ...Object.values(sampleJob()),
    ...Object.values(QOS_STATUS),
    'pending',
    'mps',
    'standard',
    'hardware',
    'latency',
    1.5,
    -3,
    0,
    86_400.5,
    undefined,
  ),
);

/** A copy of `value` with the value at `path` replaced by `replacement` (deleted when undefined). */
function replaced(value: unknown, path: readonly (string | number)[], replacement: unknown): unknown {
  if (path.length === 0) return replacement;
  const [head, ...rest] = path;
  const copy = (Array.isArray(value) ? [...value] : { ...(value as object) }) as Record<string | number, unknown>;
  const inner = replaced(copy[head!], rest, replacement);
  if (inner === undefined && rest.length === 0 && !Array.isArray(copy)) delete copy[head!];
  else copy[head!] = inner;
  return copy;
}

/** Every path into `value` (objects and arrays), the root's own keys excluded. */
function nestedPaths(value: unknown, prefix: (string | number)[] = []): (string | number)[][] {
  if (typeof value !== 'object' || value === null) return [];
  const keys: (string | number)[] = Array.isArray(value) ? value.map((_, i) => i) : Object.keys(value);
  return keys.flatMap((key) => [[...prefix, key], ...nestedPaths((value as never)[key], [...prefix, key])]);
}

describe('job checks', () => {
  it('has a check for every job field', () => {
    expect(Object.keys(JOB_FIELD_CHECKS).sort()).toEqual([...JOB_FIELDS].sort());
  });

  it("gives zod's verdict for a job with any one field replaced by any JSON value", () => {
    fc.assert(
      fc.property(
        fc.constantFrom(...BASES),
        fc.constantFrom(...JOB_FIELDS),
        valueArb,
        fc.subarray([...JOB_FIELDS]),
        (base, field, value, fields) => {
          const job = replaced(base, [field], value) as Record<string, unknown>;
          expect(oursAccepts(job, fields)).toBe(zodAccepts(job, fields));
        },
      ),
      { numRuns: 2000 },
    );
  });

  it("gives zod's verdict for a job with any value inside gpu, placement or qos replaced, or a key added", () => {
    const paths = BASES.flatMap((base) =>
      ['gpu', 'placement', 'qos']
        .flatMap((field) => nestedPaths(base[field as JobField], [field]))
        .map((path) => ({ base, path })),
    );
    expect(paths.length).toBeGreaterThan(30);
    fc.assert(
      fc.property(fc.constantFrom(...paths), valueArb, fc.boolean(), ({ base, path }, value, addKey) => {
        const at = addKey ? [...path.slice(0, -1), 'extra'] : path;
        const job = replaced(base, at, value) as Record<string, unknown>;
        expect('value' in checkJob(job)).toBe(JobSchema.safeParse(job).success);
      }),
      { numRuns: 3000 },
    );
  });

  it('checkJob names the first bad field and keeps the job as it came', () => {
    const job = { ...sampleJob(), extra: 1 };
    expect(checkJob(job)).toEqual({ value: job });
    expect(checkJob({ ...job, gpu: { ...job.gpu, mode: 'fast' } })).toEqual({ problem: 'gpu: not a valid gpu' });
    expect(checkJob([job])).toEqual({ problem: 'body: expected an object' });
  });
});
