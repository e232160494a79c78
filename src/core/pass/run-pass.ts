/**
 * One scheduling pass over the pending jobs (docs/fair-share.md): every job is tried in queue
 * order, not only the head, so small jobs use capacity a large blocked job cannot. Quotas are
 * checked before each job; QoS protection keeps a job off the GPUs it names; once a job is blocked
 * for lack of capacity, a later job starts ahead of it only if its time limit ends before the
 * blocked job's reserved start (EASY backfill), and a placement that would take GPUs the blocked
 * job waits for is rolled back.
 *
 * Given the control plane's QueueIndex, the pass takes the jobs one at a time in queue order and,
 * when allowed (`stopEarly`), stops visiting jobs without a time limit once a job is blocked and
 * every GPU is one the blocked job may use: from there on such a job could only wait behind it
 * (the same outcome, without the visit); the jobs with a time limit are still visited in order,
 * since they may backfill. The pass then costs what changed, not the depth of the queue.
 */
import { gpuKey } from '../framework/cluster-state.js';
import { FailedSearches } from '../framework/failed-searches.js';
import type { GpuExclusion } from '../framework/shared-placement.js';
import type { Statement } from '../framework/statement.js';
import { waitReason, WAIT_CODES, type WaitReason } from '../model/status.js';
import type { JobRequest } from '../model/request.js';
import { mayBackfill, NO_BLOCKED_JOB, reservedStartMs, type BackfillReservation } from '../queue/backfill.js';
import type { QueueIndex } from '../queue/queue-index.js';
import { compareQueueOrder, type QueueOrderContext, type SortKey } from '../queue/queue-order.js';
import type { TenantUsage } from '../fairness/tenant-usage.js';
import type { PassRules } from './pass-rules.js';
import type { PlannedWait } from '../framework/plan.js';
import { entryOf, type UnvisitedWaits, type UsageStep } from './unvisited-waits.js';

/** Outcome of one pass (placements are in the statement). */
export interface PassOutcome {
  /** The pending jobs in queue order. */
  readonly order: readonly JobRequest[];
  /** Why each job that was not placed waits. */
  readonly waiting: PlannedWait[];
  /** The first job that could not be placed for lack of capacity (the one backfill protects); null when none. */
  readonly blockedJobId: number | null;
  /** Jobs that wait only because the GPUs they fit on are protected (they are no preemptors). */
  readonly protectedWaiting: ReadonlySet<number>;
  /**
   * Null when every job was visited (`order` and `waiting` hold them all); else the data of why a
   * job the pass did not visit waits (unvisitedWait: its quota, or the blocked job).
   */
  readonly unvisited: UnvisitedWaits | null;
}

/** The order of a pass without rules: priority, submit time, id (compareQueueOrder). */
const PLAIN_ORDER: QueueOrderContext = {
  nowMs: 0,
  dominantShareByTenant: new Map(),
  aging: { agingIntervalMs: 1, agingStep: 0 },
};

/** What a pass runs with. */
export interface PassSettings {
  readonly rules: PassRules | null;
  /** Turns EASY backfill on (needs `rules`); without it every job that fits is placed, in queue order. */
  readonly backfill: boolean;
  /**
   * With a QueueIndex as the pending jobs: stop visiting jobs that can only wait (see the file comment). @defaultValue
   * false
   */
  readonly stopEarly?: boolean;
}

/** Runs the pass on `statement` over `pending`: a list (any order), or a QueueIndex taken lazily in queue order. */
export function runPass(
  statement: Statement,
  pending: readonly JobRequest[] | QueueIndex,
  settings: PassSettings,
): PassOutcome {
  const { rules } = settings;
  const state = statement.state;
  const ctx = rules?.orderContext ?? PLAIN_ORDER;
  const lazy = Array.isArray(pending) ? null : (pending as QueueIndex);
  const list = lazy === null ? (pending as readonly JobRequest[]) : null;
  const sorted = list === null ? null : list.length <= 1 ? list : [...list].sort(rules?.compare ?? compareQueueOrder);
  let merge = lazy?.inOrder(ctx) ?? null;
  let position = 0;
  let lastKey: SortKey | null = null;
  const next = (): JobRequest | undefined => {
    if (sorted !== null) return sorted[position++];
    const taken = merge!.next();
    if (taken === null) return undefined;
    lastKey = taken.key;
    return taken.job;
  };
  const order: JobRequest[] = lazy === null ? (sorted as JobRequest[]) : [];
  const waiting: PlannedWait[] = [];
  // A memo helps only when several jobs are tried (a trace replay places one arrival per pass).
  const failed = (list?.length ?? lazy!.size) > 1 ? new FailedSearches() : null;
  const backfill = settings.backfill && rules !== null ? rules.backfill : null;
  let blocked: JobRequest | null = null;
  let blockedPool = new Set<number>();
  let gpusOutsidePool = false;
  let reservation: BackfillReservation = NO_BLOCKED_JOB;
  const protectedWaiting = new Set<number>();
  // Every job behind the blocked one with the same time limit waits for the same reason: one object
  // per time limit, not one per job (a long queue behind a blocked job is the common case).
  const backfillReasons = new Map<number | null, WaitReason>();
  const behindBlocked = (timeLimitSeconds: number | null): WaitReason => {
    let reason = backfillReasons.get(timeLimitSeconds);
    if (reason === undefined)
      backfillReasons.set(timeLimitSeconds, (reason = backfillReason(blocked!, reservation, timeLimitSeconds)));
    return reason;
  };
  let stopped = false;
  // After the stop: each tenant's usage when the pass stopped, and after each later placement (by
  // the sort key of the job placed), so an unvisited job's quota is checked with the usage it
  // would have met at its place in the queue.
  let usageAtStop: ReadonlyMap<string, TenantUsage> = new Map();
  const usageTrail: UsageStep[] = [];
  for (let job = next(); job !== undefined; job = next()) {
    if (lazy !== null) order.push(job);
    if (
      !stopped &&
      lazy !== null &&
      settings.stopEarly === true &&
      blocked !== null &&
      backfill !== null &&
      !gpusOutsidePool
    ) {
      // Only jobs with a time limit may still start ahead of the blocked job: visit those alone.
      stopped = true;
      usageAtStop = new Map(rules?.usage ?? []);
      merge = lazy.timeLimitedAfter(ctx, lastKey!);
      if (job.timeLimitSeconds == null) {
        order.pop();
        continue;
      }
    }
    const refused = rules?.admit(job) ?? null;
    if (refused !== null) {
      waiting.push(wait(job.id, refused));
      continue;
    }
    const timeLimitSeconds = job.timeLimitSeconds ?? null;
    const mustNotDelay =
      blocked !== null && backfill !== null && !mayBackfill({ timeLimitSeconds }, reservation, backfill.nowMs);
    if (mustNotDelay && !gpusOutsidePool) {
      // Every GPU is one the blocked job may use: nothing can start ahead of it (no search needed).
      waiting.push(wait(job.id, behindBlocked(timeLimitSeconds)));
      continue;
    }
    const guarded = rules?.protectedGpus(job) ?? null;
    const excluded = guarded === null ? null : exclusionOf(guarded, (name) => state.indexOf(name));
    const point = statement.checkpoint();
    // The memo of failed searches assumes every job sees the same GPUs: not kept for exclusions.
    const outcome = statement.place(job, excluded === null ? failed : null, excluded);
    if (outcome.kind === 'waiting' && excluded !== null && state.fits(job)) {
      // It would fit if the protected GPUs took it: it waits for them, and blocks nobody.
      waiting.push(wait(job.id, protectionReason(guarded!)));
      protectedWaiting.add(job.id);
      continue;
    }
    if (
      outcome.kind === 'placed' &&
      mustNotDelay &&
      outcome.placement.gpus.some((g) => blockedPool.has(gpuKey(outcome.nodeIndex, g.index)))
    ) {
      // It would take GPUs the blocked job waits for: undo (EASY backfill). A job on GPUs the
      // blocked job can never use cannot delay it and keeps its place.
      statement.rollback(point);
      waiting.push(wait(job.id, behindBlocked(timeLimitSeconds)));
      continue;
    }
    if (outcome.kind === 'placed') {
      rules?.onPlaced(job, outcome.node, outcome.placement);
      if (stopped && rules !== null) {
        usageTrail.push({ tenant: job.tenant, usage: rules.usage.get(job.tenant)!, after: entryOf(job) });
      }
      continue;
    }
    waiting.push(wait(job.id, outcome.reason));
    if (!blocked) {
      blocked = job;
      if (backfill) {
        blockedPool = state.gpusUsableBy(job);
        gpusOutsidePool = blockedPool.size < state.nodes.reduce((sum, n) => sum + n.devices.size, 0);
        reservation = {
          blocked: true,
          reservedStartMs: reservedStartMs(
            job,
            backfill.running,
            (released) => statement.fitsWithout(job, released),
            backfill.nowMs,
          ),
        };
      }
    }
  }
  const blockedJob = blocked as JobRequest | null;
  const unvisited: UnvisitedWaits | null =
    !stopped || blockedJob === null
      ? null
      : {
          blockedJobId: blockedJob.id,
          reservedStartMs: reservation.blocked ? reservation.reservedStartMs : null,
          order: {
            nowMs: ctx.nowMs,
            aging: ctx.aging ?? null,
            dominantShares: [...ctx.dominantShareByTenant].map(([tenant, share]) => ({ tenant, share })),
          },
          quotas: [...(rules?.quotas.values() ?? [])],
          usage: [...[...usageAtStop].map(([tenant, usage]) => ({ tenant, usage, after: null })), ...usageTrail],
          gpuKinds: rules?.gpuKinds ?? [],
        };
  return { order, waiting, blockedJobId: blockedJob?.id ?? null, protectedWaiting, unvisited };
}

/** The exclusion of protected GPUs, by node index. */
function exclusionOf(
  guarded: ReadonlyMap<string, ReadonlyMap<number, number>>,
  indexOf: (node: string) => number,
): GpuExclusion {
  const keys = new Set<number>();
  for (const [node, gpus] of guarded) for (const index of gpus.keys()) keys.add(gpuKey(indexOf(node), index));
  return (nodeIndex, gpuIndex) => keys.has(gpuKey(nodeIndex, gpuIndex));
}

function backfillReason(
  blocked: JobRequest,
  reservation: BackfillReservation,
  timeLimitSeconds: number | null,
): WaitReason {
  return waitReason(WAIT_CODES.backfill, {
    blockedJobId: blocked.id,
    timeLimitSeconds,
    reservedStartMs: reservation.blocked ? reservation.reservedStartMs : null,
  });
}

/** `qos-protected`: each protected GPU (by node, then index) and the job that misses its QoS target there. */
function protectionReason(guarded: ReadonlyMap<string, ReadonlyMap<number, number>>): WaitReason {
  const gpus: { node: string; gpuIndex: number; jobId: number }[] = [];
  for (const [node, onNode] of [...guarded].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)))
    for (const [gpuIndex, jobId] of [...onNode].sort(([a], [b]) => a - b)) gpus.push({ node, gpuIndex, jobId });
  return waitReason(WAIT_CODES.qosProtected, { gpus });
}

/** A job the pass leaves waiting, and why. */
function wait(jobId: number, reason: WaitReason): PlannedWait {
  return { jobId, reason };
}
