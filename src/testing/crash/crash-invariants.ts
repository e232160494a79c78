/**
 * The invariants the crash harness checks after every recovery (docs/crash-testing.md): no job
 * lost, none running twice, no GPU over-committed, every finished job's outcome kept, tokens and
 * tenants intact, acknowledged cancels and revokes carried out, nothing stuck, `audit verify`
 * passing. A violation is a code with structured details.
 */
import { isTerminal } from '../../core/index.js';
import type { JobState } from '../../core/index.js';
import type { TenantRecord, TokenRecord } from '../../app/ports/state-store.js';
import { openSqliteStore } from '../../adapters/store/sqlite-store.js';
import { readAdminTokenFile } from '../../main/admin-token-file.js';
import { verifyDataDirAudit } from '../../main/audit-verify.js';
import { join } from 'node:path';
import type { CrashWorld } from './crash-world.js';

/** One broken invariant. */
export interface Violation {
  readonly code:
    | 'recovery-failed'
    | 'job-lost'
    | 'job-id-reused'
    | 'outcome-changed'
    | 'finished-job-relaunched'
    | 'job-running-twice'
    | 'process-orphaned'
    | 'gpu-over-committed'
    | 'token-changed'
    | 'tenant-changed'
    | 'admin-token-unusable'
    | 'cancel-lost'
    | 'revoke-lost'
    | 'job-stuck'
    | 'audit-verify-failed';
  readonly details: Readonly<Record<string, unknown>>;
}

/** What the scenario was told had happened (calls that returned before the crash). */
export interface Acknowledged {
  /** Jobs submitted and not forgotten by a restore from backup. */
  readonly jobIds: Set<number>;
  /** Every job id ever handed out (a restore never takes one back). */
  readonly everJobIds: Set<number>;
  readonly cancelledJobIds: Set<number>;
  readonly revokedTokenIds: Set<number>;
  readonly tenants: Set<string>;
}

/** An empty acknowledgement record. */
export function noAcknowledgements(): Acknowledged {
  return {
    jobIds: new Set(),
    everJobIds: new Set(),
    cancelledJobIds: new Set(),
    revokedTokenIds: new Set(),
    tenants: new Set(),
  };
}

/** A finished or active job as the store file held it. */
interface JobFacts {
  readonly state: JobState;
  readonly exitCode: number | null;
  readonly signal: string | null;
  readonly reasonCode: string | null;
}

/** What the store file holds at the crash (its committed state), read on a connection of its own. */
export interface StoreSnapshot {
  readonly jobs: ReadonlyMap<number, JobFacts>;
  readonly tokens: readonly TokenRecord[];
  readonly tenants: readonly TenantRecord[];
}

/** Reads the committed state of the store of `dataDir`. */
export function snapshotStore(dataDir: string): StoreSnapshot {
  const store = openSqliteStore(join(dataDir, 'gpushare.db'), { readonly: true });
  try {
    const jobs = new Map<number, JobFacts>();
    for (const job of store.listJobs({}))
      jobs.set(job.id, {
        state: job.state,
        exitCode: job.exitCode,
        signal: job.signal,
        reasonCode: job.reason?.code ?? null,
      });
    return { jobs, tokens: store.listTokens(), tenants: store.listTenants() };
  } finally {
    store.close();
  }
}

/**
 * The invariants of a recovered, settled server: against the store's state at the crash
 * (`snapshot`), what was acknowledged, and the attempts started before the crash
 * (`attemptsAtCrash`, an index into the launcher's attempts).
 */
export function checkRecovered(
  world: CrashWorld,
  snapshot: StoreSnapshot,
  acks: Acknowledged,
  attemptsAtCrash: number,
): Violation[] {
  const violations: Violation[] = [];
  const { store, host } = world;
  const jobs = new Map(store.listJobs({}).map((job) => [job.id, job]));
  for (const id of new Set([...snapshot.jobs.keys(), ...acks.jobIds]))
    if (!jobs.has(id)) violations.push({ code: 'job-lost', details: { jobId: id, acknowledged: acks.jobIds.has(id) } });
  for (const [id, before] of snapshot.jobs) {
    const now = jobs.get(id);
    if (now === undefined || !isTerminal(before.state)) continue;
    if (now.state !== before.state || now.exitCode !== before.exitCode || now.signal !== before.signal)
      violations.push({
        code: 'outcome-changed',
        details: { jobId: id, before, after: { state: now.state, exitCode: now.exitCode, signal: now.signal } },
      });
  }
  const attempts = host.launcher.attempts;
  for (const attempt of attempts.slice(attemptsAtCrash)) {
    const before = snapshot.jobs.get(attempt.spec.jobId);
    if (before !== undefined && isTerminal(before.state))
      violations.push({ code: 'finished-job-relaunched', details: { jobId: attempt.spec.jobId, state: before.state } });
  }
  const alive = attempts.filter((a) => a.alive && a.outcome === null);
  const aliveByJob = new Map<number, number>();
  for (const attempt of alive) {
    const jobId = attempt.spec.jobId;
    aliveByJob.set(jobId, (aliveByJob.get(jobId) ?? 0) + 1);
    const job = jobs.get(jobId);
    if (job?.state !== 'running' || job.process?.supervisorPid !== attempt.handle.supervisorPid)
      violations.push({
        code: 'process-orphaned',
        details: { jobId, attempt: attempt.spec.attempt, pid: attempt.handle.supervisorPid, state: job?.state ?? null },
      });
  }
  for (const [jobId, count] of aliveByJob)
    if (count > 1) violations.push({ code: 'job-running-twice', details: { jobId, processes: count } });
  violations.push(...overCommitted(world));
  violations.push(...tokenViolations(world, snapshot, acks));
  const tenants = new Map(store.listTenants().map((t) => [t.name, t]));
  for (const before of snapshot.tenants) {
    const now = tenants.get(before.name);
    if (now === undefined || JSON.stringify(now) !== JSON.stringify(before))
      violations.push({ code: 'tenant-changed', details: { tenant: before.name, before, after: now ?? null } });
  }
  for (const name of acks.tenants)
    if (!tenants.has(name)) violations.push({ code: 'tenant-changed', details: { tenant: name, after: null } });
  return violations;
}

/** GPUs holding more than they have, from the store's scheduled and running jobs. */
function overCommitted(world: CrashWorld): Violation[] {
  const violations: Violation[] = [];
  const devices = new Map(world.plane.roster.devices().map((d) => [d.uuid, d]));
  const held = new Map<string, { milli: number; memoryMiB: number; migStarts: Map<number, number> }>();
  for (const job of world.store.listJobs({ states: ['scheduled', 'running'] })) {
    for (const gpu of job.placement?.gpus ?? []) {
      const sum = held.get(gpu.uuid) ?? { milli: 0, memoryMiB: 0, migStarts: new Map<number, number>() };
      held.set(gpu.uuid, sum);
      if (gpu.mig !== null) {
        const other = sum.migStarts.get(gpu.mig.start);
        if (other !== undefined)
          violations.push({
            code: 'gpu-over-committed',
            details: { gpu: gpu.uuid, migStart: gpu.mig.start, jobIds: [other, job.id] },
          });
        sum.migStarts.set(gpu.mig.start, job.id);
        continue;
      }
      sum.milli += gpu.accountedGpuMilli;
      sum.memoryMiB += gpu.gpuMemoryMiB;
    }
  }
  for (const [uuid, sum] of held) {
    const capacity = devices.get(uuid)?.gpuMemoryMiB ?? 0;
    if (sum.milli > 1000 || sum.memoryMiB > capacity)
      violations.push({
        code: 'gpu-over-committed',
        details: { gpu: uuid, gpuMilli: sum.milli, gpuMemoryMiB: sum.memoryMiB, capacityMiB: capacity },
      });
  }
  return violations;
}

/** Tokens changed by the recovery, acknowledged revokes lost, an admin token file that no longer works. */
function tokenViolations(world: CrashWorld, snapshot: StoreSnapshot, acks: Acknowledged): Violation[] {
  const violations: Violation[] = [];
  const tokens = new Map(world.store.listTokens().map((t) => [t.id, t]));
  for (const before of snapshot.tokens) {
    const now = tokens.get(before.id);
    const changed =
      now === undefined ||
      now.digest !== before.digest ||
      now.role !== before.role ||
      now.tenant !== before.tenant ||
      (before.revokedAtMs !== null && now.revokedAtMs !== before.revokedAtMs) ||
      // Only a server-made admin token is revoked by a start (its file lost); no other token is.
      (before.revokedAtMs === null && now.revokedAtMs !== null && !before.createdByServer);
    if (changed)
      violations.push({ code: 'token-changed', details: { tokenId: before.id, before, after: now ?? null } });
  }
  for (const id of acks.revokedTokenIds)
    if (tokens.get(id)?.revokedAtMs == null) violations.push({ code: 'revoke-lost', details: { tokenId: id } });
  const secret = readAdminTokenFile(join(world.host.dataDir, 'admin-token'));
  let role: string | null = null;
  try {
    role = secret === null ? null : world.admin.authenticate(`Bearer ${secret}`).role;
  } catch {
    role = null;
  }
  if (role !== 'admin') violations.push({ code: 'admin-token-unusable', details: { role } });
  return violations;
}

/** After the recovered server ran every job to its end: jobs not ended, acknowledged cancels not carried out. */
export function checkFinished(world: CrashWorld, acks: Acknowledged): Violation[] {
  const violations: Violation[] = [];
  for (const job of world.store.listJobs({}))
    if (!isTerminal(job.state)) violations.push({ code: 'job-stuck', details: { jobId: job.id, state: job.state } });
  for (const id of acks.cancelledJobIds) {
    const state = world.store.getJob(id)?.state ?? null;
    if (state !== 'cancelled') violations.push({ code: 'cancel-lost', details: { jobId: id, state } });
  }
  return violations;
}

/** `gpushare audit verify` of the data directory (after the server stopped). */
export function checkAudit(dataDir: string): Violation[] {
  const report = verifyDataDirAudit(dataDir, { anchorFile: null }, {});
  return report.ok ? [] : [{ code: 'audit-verify-failed', details: { problems: report.problems } }];
}
