/**
 * A tenant's line of any reason never shows another tenant's job id or tenant name: for every code
 * with details that name jobs and tenants of several tenants, and for the real waits, explanations
 * and preemptions of random clusters (quotas, QoS protection, one tenant per MPS GPU, backfill,
 * preemption). Job ids are 6-digit numbers and tenant names random words, so that no other figure
 * of a line (GPU indices, amounts, priorities, times) can be mistaken for one.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { ActiveJob, ClusterSnapshot } from './cluster.js';
import { JOB_EVENT_CODES, STATUS_CODES, status, type Status, type StatusDetails } from './status.js';
import { statusMessage } from './status-message.js';
import { tenantViewer } from './status-viewer.js';
import { waitMessage } from './wait-message.js';
import { QueueIndex } from '../queue/queue-index.js';
import { SeededRng } from '../random/rng.js';
import { SchedulingSession } from '../schedule.js';
import { unvisitedWait } from '../pass/unvisited-waits.js';
import { aClusterNode, aGpuDevice, aJob } from '../testing/builders.js';
import type { JobRequest } from './request.js';

const tenantName = fc.stringMatching(/^[a-z]{6,10}$/).map((word) => `t-${word}`);

/** The words of `line` that would give away a job or tenant `viewer` may not see. */
function leaks(line: string, foreignJobIds: readonly number[], foreignTenants: readonly string[]): string[] {
  const found: string[] = [];
  for (const id of foreignJobIds) if (new RegExp(`(^|[^0-9])${id}([^0-9]|$)`).test(line)) found.push(`job ${id}`);
  // A whole name: another tenant's name may begin with this one's (t-abcdef and t-abcdefg).
  for (const tenant of foreignTenants)
    if (new RegExp(`(^|[^a-z-])${tenant}([^a-z]|$)`).test(line)) found.push(`tenant ${tenant}`);
  return found;
}

/** Details naming jobs and tenants in every field a line of any code reads. */
const detailsArbitrary = (jobIds: readonly number[], tenants: readonly string[]): fc.Arbitrary<StatusDetails> => {
  const jobId = fc.constantFrom(...jobIds);
  const tenant = fc.constantFrom(...tenants);
  const gpu = fc.record({ node: fc.constantFrom('n0', 'n1'), gpuIndex: fc.nat(7), jobId, tenant });
  return fc
    .record({
      blockedJobId: jobId,
      jobId,
      jobIds: fc.array(jobId, { minLength: 1, maxLength: 4 }),
      jobs: fc.array(
        tenant.map((t) => `${t}/pod`),
        { minLength: 1, maxLength: 3 },
      ),
      victimIds: fc.array(jobId, { minLength: 1, maxLength: 4 }),
      gpus: fc.array(gpu, { minLength: 1, maxLength: 3 }),
      preemptorJobId: jobId,
      preemptorPriority: fc.constantFrom(100, 500, 900, 1000),
      preemptorTenant: tenant,
      tenant,
      by: fc.constantFrom('admin', 'tenant'),
      timeLimitSeconds: fc.option(fc.integer({ min: 1, max: 9999 })),
      reservedStartMs: fc.option(fc.integer({ min: 0, max: 2_000_000_000_000 })),
    })
    .map((d) => ({ ...d, mig: status('mps-tenant', false, d), whole: status('backfill', false, d) }));
};

describe('a tenant reads no other tenant', () => {
  it('for every code, whatever jobs and tenants its details name', () => {
    fc.assert(
      fc.property(
        fc.uniqueArray(tenantName, { minLength: 3, maxLength: 3 }),
        fc.uniqueArray(fc.integer({ min: 100_000, max: 999_999 }), { minLength: 6, maxLength: 6 }),
        fc.constantFrom(...STATUS_CODES),
        fc.context(),
        (tenants, jobIds, code, ctx) => {
          const own = tenants[0]!;
          const tenantOf = (id: number): string => tenants[jobIds.indexOf(id) % tenants.length]!;
          const viewer = tenantViewer(own, (id) => (jobIds.includes(id) ? tenantOf(id) : null));
          const foreignJobs = jobIds.filter((id) => tenantOf(id) !== own);
          fc.assert(
            fc.property(detailsArbitrary(jobIds, tenants), (details) => {
              const failure = status(JOB_EVENT_CODES.preempted, false, details);
              const line = statusMessage(status(code, false, { ...details, failure }), viewer);
              ctx.log(line);
              expect(leaks(line, foreignJobs, tenants.slice(1))).toEqual([]);
            }),
            { numRuns: 20 },
          );
        },
      ),
      { numRuns: 150 },
    );
  });

  it('for the waits, explanations and preemptions of random clusters', () => {
    const cluster = fc.record({
      tenants: fc.uniqueArray(tenantName, { minLength: 3, maxLength: 3 }),
      gpusPerNode: fc.array(fc.integer({ min: 1, max: 4 }), { minLength: 1, maxLength: 3 }),
      // Per GPU: free, held exclusive, or held by 1-2 MPS jobs; the holders' tenants.
      holders: fc.array(fc.record({ kind: fc.constantFrom('free', 'exclusive', 'mps'), tenant: fc.nat(2) }), {
        minLength: 12,
        maxLength: 12,
      }),
      pending: fc.array(
        fc.record({
          tenant: fc.nat(2),
          mode: fc.constantFrom('exclusive', 'mps', 'timeslice') as fc.Arbitrary<'exclusive' | 'mps' | 'timeslice'>,
          gpuMilli: fc.constantFrom(200, 500, 1000),
          gpuCount: fc.constantFrom(1, 1, 2),
          priority: fc.constantFrom(100, 500, 900, 1000),
          timeLimitSeconds: fc.option(fc.constantFrom(60, 3600)),
        }),
        { minLength: 1, maxLength: 8 },
      ),
      limit: fc.option(fc.constantFrom(0.5, 1, 2)),
      violator: fc.boolean(),
      seed: fc.nat(),
    });
    fc.assert(
      fc.property(cluster, (c) => {
        const tenantOfJob = new Map<number, string>();
        const nodes = c.gpusPerNode.map((count, n) =>
          aClusterNode(
            `n${n}`,
            Array.from({ length: count }, (_, i) => aGpuDevice(i)),
          ),
        );
        const active: ActiveJob[] = [];
        let nextActive = 100_000;
        let slot = 0;
        for (const node of nodes)
          for (const gpu of node.gpus) {
            const holder = c.holders[slot++ % c.holders.length]!;
            if (holder.kind === 'free') continue;
            const shares = holder.kind === 'mps' ? [300, 300] : [1000];
            for (const gpuMilli of shares) {
              const request = aJob(nextActive++, {
                tenant: c.tenants[holder.tenant]!,
                priority: 100,
                gpu: { gpuMilli, mode: holder.kind === 'mps' ? 'mps' : 'exclusive' },
              });
              tenantOfJob.set(request.id, request.tenant);
              active.push({
                request,
                assignment: {
                  jobId: request.id,
                  node: node.name,
                  cpuMilli: request.cpuMilli,
                  hostMemoryMiB: request.hostMemoryMiB,
                  placement: {
                    mode: holder.kind === 'mps' ? 'mps' : 'exclusive',
                    gpus: [
                      {
                        index: gpu.index,
                        uuid: gpu.uuid,
                        gpuMilli,
                        accountedGpuMilli: gpuMilli,
                        gpuMemoryMiB: holder.kind === 'mps' ? 20480 : 81920,
                        mig: null,
                      },
                    ],
                  },
                },
                preemptible: true,
                startedAtMs: 0,
                preemptionCount: 0,
                stopping: false,
              });
            }
          }
        const pending: JobRequest[] = c.pending.map((p, i) => {
          const job = aJob(200_000 + i, {
            tenant: c.tenants[p.tenant]!,
            priority: p.priority,
            ...(p.timeLimitSeconds === null ? {} : { timeLimitSeconds: p.timeLimitSeconds }),
            gpu: {
              gpuCount: p.gpuCount,
              gpuMilli: p.gpuMilli,
              mode: p.mode,
              gpuMemoryMiB: p.mode === 'mps' ? 8192 : null,
            },
          });
          tenantOfJob.set(job.id, job.tenant);
          return job;
        });
        const snapshot: ClusterSnapshot = { nodes, active };
        const session = new SchedulingSession(snapshot, new SeededRng(c.seed));
        const index = new QueueIndex();
        for (const job of pending) index.add(job);
        const violator = active.find((a) => a.assignment.placement.mode === 'exclusive');
        const plan = session.schedule(index, {
          nowMs: 3_600_000,
          active,
          rules: {
            tenants: c.tenants.map((tenant) => ({
              tenant,
              guaranteedGpuEquivalents: 0,
              limitGpuEquivalents: c.limit,
            })),
            qosViolators:
              c.violator && violator
                ? [
                    {
                      jobId: violator.request.id,
                      priority: 2000,
                      node: violator.assignment.node,
                      gpuIndices: violator.assignment.placement.gpus.map((g) => g.index),
                    },
                  ]
                : [],
            preemption: { minRunSeconds: 0, maxPreemptionsPerJob: 3 },
          },
        });
        const lines: { tenant: string; line: string }[] = [];
        for (const job of pending) {
          const visited = plan.waiting.find((w) => w.jobId === job.id)?.reason;
          const reason = visited ?? (plan.unvisited === null ? null : unvisitedWait(plan.unvisited, job));
          if (reason === null) continue;
          const viewer = tenantViewer(job.tenant, (id) => tenantOfJob.get(id) ?? null);
          lines.push({ tenant: job.tenant, line: waitMessage(session.explainWait(job, reason), viewer) });
        }
        if (plan.preemption !== null) {
          const preemptor = pending.find((j) => j.id === plan.preemption!.preemptorId)!;
          for (const victimId of plan.preemption.victimIds) {
            const tenant = tenantOfJob.get(victimId)!;
            const viewer = tenantViewer(tenant, (id) => tenantOfJob.get(id) ?? null);
            const details = {
              preemptorJobId: preemptor.id,
              preemptorPriority: preemptor.priority,
              preemptorTenant: preemptor.tenant,
            };
            for (const code of [JOB_EVENT_CODES.preemptionRequested, JOB_EVENT_CODES.preempted])
              lines.push({ tenant, line: statusMessage(status(code, false, details) as Status, viewer) });
          }
        }
        for (const { tenant, line } of lines) {
          const foreignJobs = [...tenantOfJob].filter(([, t]) => t !== tenant).map(([id]) => id);
          expect(
            leaks(
              line,
              foreignJobs,
              c.tenants.filter((t) => t !== tenant),
            ),
            line,
          ).toEqual([]);
        }
      }),
      { numRuns: 300 },
    );
  });
});
