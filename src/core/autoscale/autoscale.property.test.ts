/**
 * The autoscaler's count is exact for the scheduler's own pass: over random pools, templates and
 * queues, `schedule()` over the existing nodes plus the nodes a decision asks for places every job
 * the decision counted, and with one node fewer of any template it does not. Cases where host CPU,
 * MIG (switched on demand) or GPU memory bind rather than compute, each also shown by an example.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { JobRequest, SharingMode } from '../model/request.js';
import { SeededRng } from '../random/rng.js';
import { schedule, type ScheduleOptions } from '../schedule.js';
import { aJob } from '../testing/builders.js';
import { autoscale } from './autoscale.js';
import { INITIAL_AUTOSCALE_STATE } from './autoscale-state.js';
import { DEFAULT_AUTOSCALE_POLICY, type AutoscaleInput, type PoolNode } from './autoscale-types.js';
import { templateNode, type NodeTemplate } from './node-template.js';
import { trialSnapshot } from './pool-placement.js';

const HYBRID: ScheduleOptions = { modeViews: true, migModeOnDemand: true };

function template(name: string, gpuModel: string, gpuCount: number, hostCpuMilli: number, price: number): NodeTemplate {
  return {
    name,
    gpuModel,
    gpuCount,
    migCapable: gpuModel === 'A100-80GB',
    hostCpuMilli,
    hostMemoryMiB: 512 * 1024,
    pricePerHour: price,
    minCount: 0,
    maxCount: 40,
    bootSeconds: 120,
  };
}

/** Checks the count of `decision` for `input`; returns the number of nodes it asked for. */
function checkCount(input: AutoscaleInput): number {
  const decision = autoscale(input);
  const booting = input.pool
    .filter((p) => p.phase === 'booting')
    .map((p) =>
      templateNode(
        input.templates.find((t) => t.name === p.template)!,
        p.name,
      ),
    );
  const base = {
    nodes: [...input.snapshot.nodes, ...booting],
    active: input.snapshot.active,
    scheduling: input.scheduling ?? {},
    seed: 1,
  };
  const counts = Object.fromEntries(decision.scaleUp.map((s) => [s.template, s.count]));
  const placed = (c: Record<string, number>): Set<number> =>
    new Set(
      schedule({
        snapshot: trialSnapshot(base, input.templates, c),
        pending: input.pending,
        nowMs: 0,
        rng: new SeededRng(1),
        options: base.scheduling,
      }).placements.map((p) => p.jobId),
    );
  const withNodes = placed(counts);
  for (const id of decision.scaleUpJobIds) expect(withNodes.has(id)).toBe(true);
  for (const s of decision.scaleUp) {
    const fewer = placed({ ...counts, [s.template]: s.count - 1 });
    expect(decision.scaleUpJobIds.every((id) => fewer.has(id))).toBe(false);
  }
  expect(decision.scaleUpJobIds.length > 0).toBe(decision.scaleUp.length > 0);
  return decision.scaleUp.reduce((sum, s) => sum + s.count, 0);
}

function input(
  templates: NodeTemplate[],
  pending: JobRequest[],
  scheduling: ScheduleOptions = {},
  pool: PoolNode[] = [],
) {
  return {
    nowMs: 3_600_000,
    snapshot: { nodes: [], active: [] },
    pool,
    pending,
    templates,
    policy: { ...DEFAULT_AUTOSCALE_POLICY, maxNodes: 40 },
    state: INITIAL_AUTOSCALE_STATE,
    scheduling,
  };
}

interface JobSpec {
  readonly mode: SharingMode;
  readonly gpuCount: number;
  readonly gpuMilli: number;
  readonly gpuMemoryGiB: number | null;
  readonly cpuCores: number;
  readonly priority: number;
}

const jobArbitrary = (modes: readonly SharingMode[]): fc.Arbitrary<JobSpec> =>
  fc.record({
    mode: fc.constantFrom(...modes),
    gpuCount: fc.constantFrom(0, 1, 1, 1, 2, 4),
    gpuMilli: fc.constantFrom(100, 250, 300, 500, 600, 1000),
    gpuMemoryGiB: fc.option(fc.constantFrom(10, 20, 40, 70), { nil: null }),
    cpuCores: fc.constantFrom(1, 2, 8, 24),
    priority: fc.constantFrom(100, 500, 900),
  });

function jobsOf(specs: readonly JobSpec[]): JobRequest[] {
  return specs.map((s, i) =>
    aJob(i + 1, {
      submittedAtMs: i,
      priority: s.priority,
      cpuMilli: s.cpuCores * 1000,
      gpu: {
        gpuCount: s.mode === 'mig' ? 1 : s.gpuCount,
        gpuMilli: s.gpuCount === 0 && s.mode !== 'mig' ? 0 : s.gpuMilli,
        gpuMemoryMiB: s.gpuMemoryGiB === null ? null : s.gpuMemoryGiB * 1024,
        mode: s.gpuCount === 0 && s.mode !== 'mig' ? 'mps' : s.mode,
      },
    }),
  );
}

describe('autoscale: the count is exact for schedule()', () => {
  it('for random templates of several models and random queues (CPU, memory and compute bind)', () => {
    const templates = fc.record({
      gpus: fc.array(fc.constantFrom(1, 2, 4, 8), { minLength: 1, maxLength: 3 }),
      cpuCores: fc.array(fc.constantFrom(8, 16, 96), { minLength: 3, maxLength: 3 }),
      models: fc.array(fc.constantFrom('A100-80GB', 'V100M32', 'A10'), { minLength: 3, maxLength: 3 }),
      cpuOnly: fc.boolean(),
    });
    fc.assert(
      fc.property(
        templates,
        fc.array(jobArbitrary(['mps', 'exclusive', 'timeslice']), { maxLength: 14 }),
        (t, specs) => {
          const list = t.gpus.map((g, i) => template(`t${i}`, t.models[i]!, g, t.cpuCores[i]! * 1000, 2 + g * (i + 1)));
          if (t.cpuOnly) list.push(template('cpu', 'A10', 0, 64_000, 1));
          checkCount(input(list, jobsOf(specs)));
        },
      ),
      { numRuns: 60 },
    );
  });

  it('for A100 templates with MIG switched on demand, sharing modes chosen per view, and booting nodes', () => {
    const case_ = fc.record({
      gpus: fc.array(fc.constantFrom(1, 2, 4), { minLength: 1, maxLength: 2 }),
      booting: fc.nat(2),
      specs: fc.array(jobArbitrary(['mig', 'mps', 'exclusive']), { maxLength: 12 }),
    });
    fc.assert(
      fc.property(case_, (c) => {
        const list = c.gpus.map((g, i) => template(`a${i}`, 'A100-80GB', g, 96_000, 3 * g + i));
        const pool: PoolNode[] = Array.from({ length: c.booting }, (_, i) => ({
          name: `boot-${i}`,
          template: 'a0',
          phase: 'booting',
          requestedAtMs: 3_600_000,
        }));
        checkCount(input(list, jobsOf(c.specs), HYBRID, pool));
      }),
      { numRuns: 40 },
    );
  });

  it('host CPU binds: 4 jobs of a quarter GPU and 12 cores need 4 nodes of 2 GPUs and 16 cores', () => {
    const jobs = Array.from({ length: 4 }, (_, i) =>
      aJob(i + 1, { submittedAtMs: 0, cpuMilli: 12_000, gpu: { gpuMilli: 250, mode: 'mps' } }),
    );
    expect(checkCount(input([template('small-cpu', 'A100-80GB', 2, 16_000, 5)], jobs))).toBe(4);
  });

  it('GPU memory binds: 4 jobs of 0.1 GPU and 50 GiB need 4 one-GPU 80 GB nodes', () => {
    const jobs = Array.from({ length: 4 }, (_, i) =>
      aJob(i + 1, { submittedAtMs: 0, gpu: { gpuMilli: 100, gpuMemoryMiB: 50 * 1024, mode: 'mps' } }),
    );
    expect(checkCount(input([template('a100x1', 'A100-80GB', 1, 32_000, 4)], jobs))).toBe(4);
  });

  it('MIG binds: 2 MIG jobs of half a GPU (4g.40gb each) need 2 one-GPU nodes; 7 of 1g.10gb need 1', () => {
    const half = [1, 2].map((id) => aJob(id, { submittedAtMs: 0, gpu: { gpuMilli: 500, mode: 'mig' } }));
    expect(checkCount(input([template('a100x1', 'A100-80GB', 1, 32_000, 4)], half, HYBRID))).toBe(2);
    const small = Array.from({ length: 7 }, (_, i) =>
      aJob(i + 1, { submittedAtMs: 0, gpu: { gpuMilli: 100, gpuMemoryMiB: 9 * 1024, mode: 'mig' } }),
    );
    expect(checkCount(input([template('a100x1', 'A100-80GB', 1, 32_000, 4)], small, HYBRID))).toBe(1);
  });
});
