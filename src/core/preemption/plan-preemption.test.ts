import { describe, expect, it } from 'vitest';
import { statusMessage } from '../model/status-message.js';
import type { GpuDevice } from '../model/gpu-device.js';
import { PRIORITY_CLASSES } from '../model/priority.js';
import { type GpuRequest, type JobRequest } from '../model/request.js';
import type { PreemptionCandidate, PreemptionOptions } from './eligibility.js';
import { maxPreemptionOracleCalls, planPreemption, type PreemptionPlan } from './plan-preemption.js';
import { candidate, candidateOf, gpu, job, placeAll, recording, server, snapshot } from './testing/fixtures.js';

const { low, normal, high, critical } = PRIORITY_CLASSES;
const HOUR_MS = 3_600_000;
const NOW_MS = 10 * HOUR_MS;

interface Running {
  readonly id: number;
  readonly request: Partial<GpuRequest>;
  readonly priority: number;
  readonly tenant?: string;
  /** Candidate fields on top of those of the job. */
  readonly extra?: Partial<PreemptionCandidate>;
}

interface Case {
  readonly gpus: readonly GpuDevice[];
  readonly running: readonly Running[];
  readonly preemptor: { request: Partial<GpuRequest>; priority: number; tenant?: string; reclaiming?: boolean };
  readonly options?: Partial<PreemptionOptions>;
}

/** Places the running jobs on a server, then plans for the preemptor with the server's what-if as the oracle. */
function planOnServer(c: Case): { plan: PreemptionPlan; preemptor: JobRequest; s: ReturnType<typeof server> } {
  const s = server(c.gpus);
  const jobs = c.running.map((r) => job(r.id, r.request, { priority: r.priority, tenant: r.tenant ?? 'b' }));
  placeAll(s, jobs);
  const preemptor = job(99, c.preemptor.request, { priority: c.preemptor.priority, tenant: c.preemptor.tenant ?? 'a' });
  expect(s.tryPlace(preemptor).kind).toBe('waiting');
  const before = snapshot(s);
  const plan = planPreemption({
    preemptor: {
      jobId: preemptor.id,
      priority: preemptor.priority,
      tenant: preemptor.tenant,
      reclaiming: c.preemptor.reclaiming ?? false,
    },
    candidates: jobs.map((j, i) => candidateOf(j, { startedAtMs: 0, ...c.running[i]!.extra })),
    fitsWithout: (ids) => s.fitsWithout(preemptor, ids),
    options: c.options ?? {},
    nowMs: NOW_MS,
  });
  expect(snapshot(s)).toEqual(before);
  return { plan, preemptor, s };
}

const whole: Partial<GpuRequest> = { gpuMilli: 1000 };

describe('planPreemption on a OneNodeCluster (device-level fit)', () => {
  const victimCases: [string, Case, number[]][] = [
    [
      'a critical job and a full GPU with one low job: that job',
      {
        gpus: [gpu(0)],
        running: [{ id: 1, request: whole, priority: low }],
        preemptor: { request: whole, priority: critical },
      },
      [1],
    ],
    [
      'one A100-80GB running a low 0.6 job; a high 0.8 job: that job',
      {
        gpus: [gpu(0)],
        running: [{ id: 1, request: { gpuMilli: 600 }, priority: low }],
        preemptor: { request: { gpuMilli: 800 }, priority: high },
      },
      [1],
    ],
    [
      'two A100-80GB with a low 0.6 job each: 0.8 free in sum, but on no one GPU; a high 0.8 job takes the cheaper',
      {
        gpus: [gpu(0), gpu(1)],
        running: [
          { id: 1, request: { gpuMilli: 600 }, priority: low, extra: { lostWorkGpuSeconds: 900 } },
          { id: 2, request: { gpuMilli: 600 }, priority: low, extra: { lostWorkGpuSeconds: 300 } },
        ],
        preemptor: { request: { gpuMilli: 800 }, priority: high },
      },
      [2],
    ],
    [
      'a high 0.3 job with more memory than is free (compute is free): the low job',
      {
        gpus: [gpu(0)],
        running: [{ id: 1, request: { gpuMilli: 500, gpuMemoryMiB: 60_000 }, priority: low }],
        preemptor: { request: { gpuMilli: 300, gpuMemoryMiB: 30_000 }, priority: high },
      },
      [1],
    ],
    [
      'fewest victims before less lost work: one 1.0 job (100 GPU-s) over two 0.5 jobs (10 GPU-s each)',
      {
        gpus: [gpu(0), gpu(1)],
        running: [
          { id: 1, request: { gpuMilli: 500 }, priority: low, extra: { lostWorkGpuSeconds: 10 } },
          { id: 2, request: { gpuMilli: 500 }, priority: low, extra: { lostWorkGpuSeconds: 10 } },
          { id: 3, request: whole, priority: low, extra: { lostWorkGpuSeconds: 100 } },
        ],
        preemptor: { request: whole, priority: critical },
      },
      [3],
    ],
    [
      'two victims when no single one frees a GPU: both 0.5 jobs of one GPU',
      {
        gpus: [gpu(0)],
        running: [
          { id: 1, request: { gpuMilli: 500 }, priority: low },
          { id: 2, request: { gpuMilli: 500 }, priority: normal },
        ],
        preemptor: { request: whole, priority: critical },
      },
      [1, 2],
    ],
    [
      'less lost work among equal counts: 30 GPU-s over 50 GPU-s',
      {
        gpus: [gpu(0), gpu(1)],
        running: [
          { id: 1, request: whole, priority: low, extra: { lostWorkGpuSeconds: 50 } },
          { id: 2, request: whole, priority: normal, extra: { lostWorkGpuSeconds: 30 } },
        ],
        preemptor: { request: whole, priority: critical },
      },
      [2],
    ],
    [
      'equal lost work: the lower priority',
      {
        gpus: [gpu(0), gpu(1)],
        running: [
          { id: 1, request: whole, priority: normal, extra: { lostWorkGpuSeconds: 30 } },
          { id: 2, request: whole, priority: low, extra: { lostWorkGpuSeconds: 30 } },
        ],
        preemptor: { request: whole, priority: critical },
      },
      [2],
    ],
    [
      'equal lost work and priority: the lower job id',
      {
        gpus: [gpu(0), gpu(1)],
        running: [
          { id: 2, request: whole, priority: low, extra: { lostWorkGpuSeconds: 30 } },
          { id: 1, request: whole, priority: low, extra: { lostWorkGpuSeconds: 30 } },
        ],
        preemptor: { request: whole, priority: critical },
      },
      [1],
    ],
    [
      'minRunSeconds 60: the cheaper job that started 30 s ago is spared',
      {
        gpus: [gpu(0), gpu(1)],
        running: [
          { id: 1, request: whole, priority: low, extra: { lostWorkGpuSeconds: 10, startedAtMs: NOW_MS - 30_000 } },
          { id: 2, request: whole, priority: low, extra: { lostWorkGpuSeconds: 50 } },
        ],
        preemptor: { request: whole, priority: critical },
        options: { minRunSeconds: 60 },
      },
      [2],
    ],
    [
      'minRunSeconds 60: a job that has run exactly 60 s may be taken',
      {
        gpus: [gpu(0)],
        running: [{ id: 1, request: whole, priority: low, extra: { startedAtMs: NOW_MS - 60_000 } }],
        preemptor: { request: whole, priority: critical },
        options: { minRunSeconds: 60 },
      },
      [1],
    ],
    [
      'maxPreemptionsPerJob (default 5): the cheaper job preempted 5 times is spared',
      {
        gpus: [gpu(0), gpu(1)],
        running: [
          { id: 1, request: whole, priority: low, extra: { lostWorkGpuSeconds: 10, preemptionCount: 5 } },
          { id: 2, request: whole, priority: low, extra: { lostWorkGpuSeconds: 50, preemptionCount: 4 } },
        ],
        preemptor: { request: whole, priority: critical },
      },
      [2],
    ],
    [
      'maxPreemptionsPerJob 6: the job preempted 5 times may be taken again',
      {
        gpus: [gpu(0), gpu(1)],
        running: [
          { id: 1, request: whole, priority: low, extra: { lostWorkGpuSeconds: 10, preemptionCount: 5 } },
          { id: 2, request: whole, priority: low, extra: { lostWorkGpuSeconds: 50 } },
        ],
        preemptor: { request: whole, priority: critical },
        options: { maxPreemptionsPerJob: 6 },
      },
      [1],
    ],
    [
      'a reclaim takes only the borrower, even a high one, not a high or equal-priority non-borrower',
      {
        gpus: [gpu(0), gpu(1), gpu(2)],
        running: [
          {
            id: 1,
            request: whole,
            priority: high,
            tenant: 'b',
            extra: { overQuotaBorrower: true, lostWorkGpuSeconds: 100 },
          },
          { id: 2, request: whole, priority: high, tenant: 'c', extra: { lostWorkGpuSeconds: 0 } },
          { id: 3, request: whole, priority: normal, tenant: 'd', extra: { lostWorkGpuSeconds: 0 } },
        ],
        preemptor: { request: whole, priority: normal, tenant: 'a', reclaiming: true },
      },
      [1],
    ],
  ];
  it.each(victimCases)('%s', (_name, c, victims) => {
    const { plan, preemptor, s } = planOnServer(c);
    expect(plan).toMatchObject({ kind: 'victims', victimIds: victims });
    for (const id of victims) s.release(id);
    expect(s.tryPlace(preemptor).kind).toBe('placed');
  });

  const noneCases: [string, Case, string][] = [
    [
      'an equal-priority job never preempts',
      {
        gpus: [gpu(0)],
        running: [{ id: 1, request: whole, priority: normal }],
        preemptor: { request: whole, priority: normal },
      },
      'no running job may be preempted for job 99; ineligible: 1 not of lower priority (and not a ' +
        'reclaimable borrower)',
    ],
    [
      'a higher-priority job is never a victim',
      {
        gpus: [gpu(0)],
        running: [{ id: 1, request: whole, priority: critical }],
        preemptor: { request: whole, priority: high },
      },
      'no running job may be preempted for job 99; ineligible: 1 not of lower priority (and not a ' +
        'reclaimable borrower)',
    ],
    [
      'a lower-priority job marked not preemptible is no victim',
      {
        gpus: [gpu(0)],
        running: [{ id: 1, request: whole, priority: low, extra: { preemptible: false } }],
        preemptor: { request: whole, priority: critical },
      },
      'no running job may be preempted for job 99; ineligible: 1 not preemptible (and not a reclaimable borrower)',
    ],
    [
      'a high job (not preemptible by default) is no victim of a critical one',
      {
        gpus: [gpu(0)],
        running: [{ id: 1, request: whole, priority: high }],
        preemptor: { request: whole, priority: critical },
      },
      'no running job may be preempted for job 99; ineligible: 1 not preemptible (and not a reclaimable borrower)',
    ],
    [
      'a job that would not fit even on the empty GPU (more memory than the A100 has)',
      {
        gpus: [gpu(0)],
        running: [{ id: 1, request: { gpuMilli: 500 }, priority: low }],
        preemptor: { request: { gpuMilli: 500, gpuMemoryMiB: 90_000 }, priority: critical },
      },
      'job 99 would not fit even with all 1 eligible victim(s) removed',
    ],
    [
      'a job that would not fit without a job that may not be preempted',
      {
        gpus: [gpu(0), gpu(1)],
        running: [
          { id: 1, request: whole, priority: low },
          { id: 2, request: whole, priority: critical },
        ],
        preemptor: { request: { gpuMilli: 1000, gpuCount: 2 }, priority: critical },
      },
      'job 99 would not fit even with all 1 eligible victim(s) removed; ineligible: 1 not of lower ' +
        'priority (and not a reclaimable borrower)',
    ],
    [
      'every cheaper job too young',
      {
        gpus: [gpu(0)],
        running: [{ id: 1, request: whole, priority: low, extra: { startedAtMs: NOW_MS - 59_999 } }],
        preemptor: { request: whole, priority: critical },
        options: { minRunSeconds: 60 },
      },
      'no running job may be preempted for job 99; ineligible: 1 running for less than 60 s',
    ],
    [
      'every job preempted too often',
      {
        gpus: [gpu(0)],
        running: [{ id: 1, request: whole, priority: low, extra: { preemptionCount: 2 } }],
        preemptor: { request: whole, priority: critical },
        options: { maxPreemptionsPerJob: 2 },
      },
      'no running job may be preempted for job 99; ineligible: 1 preempted 2 time(s) already',
    ],
    [
      'without reclaiming, the borrower of higher priority is no victim',
      {
        gpus: [gpu(0)],
        running: [{ id: 1, request: whole, priority: high, tenant: 'b', extra: { overQuotaBorrower: true } }],
        preemptor: { request: whole, priority: normal, tenant: 'a', reclaiming: false },
      },
      'no running job may be preempted for job 99; ineligible: 1 not of lower priority (and not a ' +
        'reclaimable borrower)',
    ],
    [
      'a reclaim never takes a borrower of its own tenant (of equal priority)',
      {
        gpus: [gpu(0)],
        running: [{ id: 1, request: whole, priority: normal, tenant: 'a', extra: { overQuotaBorrower: true } }],
        preemptor: { request: whole, priority: normal, tenant: 'a', reclaiming: true },
      },
      'no running job may be preempted for job 99; ineligible: 1 not of lower priority (and not a ' +
        'reclaimable borrower)',
    ],
  ];
  it.each(noneCases)('none: %s', (_name, c, reason) => {
    const plan = planOnServer(c).plan;
    expect([plan.kind, plan.kind === 'none' ? statusMessage(plan.reason) : null]).toEqual(['none', reason]);
  });
});

/** An oracle over abstract "units": candidate i frees units[i]; the preemptor needs `need` in all. */
function unitsOracle(units: ReadonlyMap<number, number>, need: number) {
  return (ids: readonly number[]) => ids.reduce((sum, id) => sum + (units.get(id) ?? 0), 0) >= need;
}

const PREEMPTOR = { jobId: 0, priority: critical, tenant: 'a', reclaiming: false } as const;

describe('planPreemption search (abstract oracle)', () => {
  it('prefers the cheapest pair when no single victim fits, and passes ascending ids', () => {
    // Units: 1→1, 2→1, 3→2 (lost 50), 4→1 (lost 1). Need 2: job 3 alone fits → one victim.
    // Need 3: pairs {3,x} fit; the cheapest is {3,4} (51) over {1,3} (60) and {2,3} (70).
    const candidates = [
      candidate(1, { lostWorkGpuSeconds: 10 }),
      candidate(2, { lostWorkGpuSeconds: 20 }),
      candidate(3, { lostWorkGpuSeconds: 50 }),
      candidate(4, { lostWorkGpuSeconds: 1 }),
    ];
    const units = new Map([
      [1, 1],
      [2, 1],
      [3, 2],
      [4, 1],
    ]);
    expect(planPreemption({ preemptor: PREEMPTOR, candidates, fitsWithout: unitsOracle(units, 2), nowMs: 0 })).toEqual({
      kind: 'victims',
      victimIds: [3],
      lostWorkGpuSeconds: 50,
    });
    const { oracle, calls } = recording(unitsOracle(units, 3));
    expect(planPreemption({ preemptor: PREEMPTOR, candidates, fitsWithout: oracle, nowMs: 0 })).toEqual({
      kind: 'victims',
      victimIds: [3, 4],
      lostWorkGpuSeconds: 51,
    });
    for (const ids of calls) expect(ids).toEqual([...ids].sort((a, b) => a - b));
    expect(calls[0]).toEqual([1, 2, 3, 4]);
    expect(calls[1]).toEqual([]);
  });

  it('returns none without victims when the job fits already', () => {
    const fits = planPreemption({
      preemptor: PREEMPTOR,
      candidates: [candidate(1)],
      fitsWithout: () => true,
      nowMs: 0,
    });
    expect(fits).toEqual({
      kind: 'none',
      reason: { code: 'fits-without-preemption', lasting: false, details: { preemptorJobId: 0 } },
    });
    expect(fits.kind === 'none' && statusMessage(fits.reason)).toBe('job 0 fits without preemption');
  });

  it('no candidates: none, and the oracle is never asked', () => {
    const { oracle, calls } = recording(() => true);
    const plan = planPreemption({ preemptor: PREEMPTOR, candidates: [], fitsWithout: oracle, nowMs: 0 });
    expect(plan.kind === 'none' && statusMessage(plan.reason)).toBe('no running job may be preempted for job 0');
    expect(calls).toEqual([]);
  });

  it('beyond three victims: greedy over the cost order, within the bound', () => {
    // 20 candidates of one unit each, lost work 20 − i: the cheapest five are 16…20.
    const candidates = Array.from({ length: 20 }, (_, i) => candidate(i + 1, { lostWorkGpuSeconds: 20 - i }));
    const units = new Map(candidates.map((c) => [c.jobId, 1]));
    const { oracle, calls } = recording(unitsOracle(units, 5));
    expect(planPreemption({ preemptor: PREEMPTOR, candidates, fitsWithout: oracle, nowMs: 0 })).toEqual({
      kind: 'victims',
      victimIds: [16, 17, 18, 19, 20],
      lostWorkGpuSeconds: 15,
    });
    expect(calls.length).toBeLessThanOrEqual(maxPreemptionOracleCalls(20));
    expect(new Set(calls.map((ids) => ids.join(','))).size).toBe(calls.length);
  });

  it('greedy drops victims that are not needed (minimality): useless cheap candidates go', () => {
    // The 12 cheapest free nothing; jobs 13, 14, 15 free one unit each; need 3. The exhaustive search
    // (pairs and triples among the 12 cheapest) finds nothing; greedy takes all 15, then drops 1…12.
    const candidates = Array.from({ length: 15 }, (_, i) => candidate(i + 1, { lostWorkGpuSeconds: i }));
    const units = new Map([
      [13, 1],
      [14, 1],
      [15, 1],
    ]);
    const { oracle, calls } = recording(unitsOracle(units, 3));
    expect(planPreemption({ preemptor: PREEMPTOR, candidates, fitsWithout: oracle, nowMs: 0 })).toEqual({
      kind: 'victims',
      victimIds: [13, 14, 15],
      lostWorkGpuSeconds: 39,
    });
    expect(calls.length).toBeLessThanOrEqual(maxPreemptionOracleCalls(15));
  });

  it(
    'is deterministic: the same input gives the same plan and the same questions, whatever the candidate ' + 'order',
    () => {
      const candidates = Array.from({ length: 16 }, (_, i) =>
        candidate(i + 1, { lostWorkGpuSeconds: (i * 7) % 5, priority: 100 + (i % 3) }),
      );
      const units = new Map(candidates.map((c) => [c.jobId, c.jobId % 4]));
      const run = (list: readonly PreemptionCandidate[]) => {
        const { oracle, calls } = recording(unitsOracle(units, 9));
        return {
          plan: planPreemption({ preemptor: PREEMPTOR, candidates: list, fitsWithout: oracle, nowMs: 0 }),
          calls,
        };
      };
      expect(run([...candidates].reverse())).toEqual(run(candidates));
    },
  );

  it('oracle-call bound: 0, 3, 319 and 3n + 283 for n ≥ 12', () => {
    expect(maxPreemptionOracleCalls(0)).toBe(0);
    expect(maxPreemptionOracleCalls(1)).toBe(3);
    expect(maxPreemptionOracleCalls(3)).toBe(2 + 3 + 3 + 1 + 0 + 2);
    expect(maxPreemptionOracleCalls(12)).toBe(319);
    expect(maxPreemptionOracleCalls(20)).toBe(343);
    expect(maxPreemptionOracleCalls(50)).toBe(433);
  });

  it.each([
    ['a repeated job id', { candidates: [candidate(1), candidate(1)] }, 'candidate job 1 listed twice'],
    [
      'NaN lost work',
      { candidates: [candidate(1, { lostWorkGpuSeconds: Number.NaN })] },
      'candidate job 1: lostWorkGpuSeconds must be finite and ≥ 0, got NaN',
    ],
    [
      'negative lost work',
      { candidates: [candidate(1, { lostWorkGpuSeconds: -1 })] },
      'candidate job 1: lostWorkGpuSeconds must be finite and ≥ 0, got -1',
    ],
    [
      'a non-finite priority',
      { candidates: [candidate(1, { priority: Number.POSITIVE_INFINITY })] },
      'candidate job 1: priority must be finite, got Infinity',
    ],
    ['a negative minRunSeconds', { options: { minRunSeconds: -1 } }, 'minRunSeconds must be ≥ 0, got -1'],
    [
      'a NaN maxPreemptionsPerJob',
      { options: { maxPreemptionsPerJob: Number.NaN } },
      'maxPreemptionsPerJob must be ≥ 0, got NaN',
    ],
    ['a non-finite nowMs', { nowMs: Number.NaN }, 'nowMs must be finite, got NaN'],
  ])('throws RangeError for %s', (_name, override, message) => {
    const input = { preemptor: PREEMPTOR, candidates: [candidate(1)], fitsWithout: () => true, nowMs: 0, ...override };
    expect(() => planPreemption(input)).toThrow(new RangeError(message));
  });
});
