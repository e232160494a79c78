/**
 * An in-memory state store for tests and the simulator. Behaves like the SQLite store (same
 * checks, same errors, same ordering). What goes in is copied through JSON, as the SQLite store
 * stores it, so a caller sees exactly what SQLite would give back and cannot change stored state
 * by mutating its own objects later; what comes out is the stored record itself, deep-frozen
 * (as the SQLite store's records are), and a write replaces records instead of changing them.
 * A write either fully happens or throws before changing anything.
 */
import { writeSync } from 'node:fs';
import type { JobState } from '../../core/index.js';
import {
  type AttemptRecord,
  type JobChange,
  type JobEvent,
  type JobFilter,
  type JobRecord,
  type JobUsagePeak,
  type NewJob,
  type StateStore,
  StoreConflictError,
  DEFAULT_TENANT_LIMITS,
  type TenantRecord,
  type TokenRecord,
} from '../../app/ports/state-store.js';
import { writeCallerFile } from './caller-path.js';
import { deepFreeze } from './deep-freeze.js';
import { planJobChanges, reasonUpdate } from './plan-job-changes.js';
import { compileNamePattern } from '../../lib/name-pattern.js';
import { raisedPeak } from '../../app/usage/raised-peak.js';

/** `format` field of a memory-store backup file. */
export const MEMORY_STORE_BACKUP_FORMAT = 'gpushare-memory-store';

/** The JSON document `backup` writes (version 1). */
export interface MemoryStoreBackup {
  readonly format: typeof MEMORY_STORE_BACKUP_FORMAT;
  readonly version: 1;
  readonly tenants: TenantRecord[];
  readonly tokens: TokenRecord[];
  readonly jobs: JobRecord[];
  readonly events: JobEvent[];
  readonly attempts: AttemptRecord[];
  readonly cordonedGpus: { readonly uuid: string; readonly cordonedAtMs: number }[];
}

/** A deep-frozen copy through JSON (what a round trip through the SQLite store's JSON columns gives). */
function frozenCopy<T>(value: T): T {
  return deepFreeze(JSON.parse(JSON.stringify(value)) as T);
}

/** Creates an empty in-memory state store. */
export function createMemoryStore(): StateStore {
  const tenants = new Map<string, TenantRecord>();
  /** By id; insertion order is id order. */
  const tokens = new Map<number, TokenRecord>();
  /** Token id by current digest. */
  const tokenIdByDigest = new Map<string, number>();
  /** By id; insertion order is id order. */
  const jobs = new Map<number, JobRecord>();
  const events = new Map<number, JobEvent[]>();
  const attempts = new Map<number, Map<number, AttemptRecord>>();
  const cordons = new Map<string, number>();
  const peaks = new Map<number, JobUsagePeak>();
  let lastJobId = 0;
  let lastTokenId = 0;
  let closed = false;

  const open = (): void => {
    if (closed) throw new TypeError('The memory store is closed');
  };
  const requireTenant = (name: string): void => {
    if (!tenants.has(name)) throw new StoreConflictError(`tenant ${name} does not exist`);
  };
  const byKey =
    <T>(key: (item: T) => string) =>
    (a: T, b: T): number =>
      key(a) < key(b) ? -1 : key(a) > key(b) ? 1 : 0;
  const attemptsOf = (jobId: number): Map<number, AttemptRecord> => {
    let ofJob = attempts.get(jobId);
    if (ofJob === undefined) attempts.set(jobId, (ofJob = new Map()));
    return ofJob;
  };

  /** Applies one checked change (it cannot fail). */
  const applyChange = (change: JobChange, fromState: JobState, toState: JobState): void => {
    const { jobId, atMs } = change;
    const job = jobs.get(jobId);
    if (job === undefined) throw new Error(`unreachable: job ${jobId} was checked`);
    if (change.startAttempt !== undefined) {
      attemptsOf(jobId).set(
        change.startAttempt,
        deepFreeze({
          jobId,
          attempt: change.startAttempt,
          startedAtMs: atMs,
          endedAtMs: null,
          exitCode: null,
          signal: null,
          endReason: null,
        }),
      );
    }
    if (change.endAttempt !== undefined) {
      const end = change.endAttempt;
      const attempt = attemptsOf(jobId).get(end.attempt);
      if (attempt === undefined) throw new Error(`unreachable: attempt ${end.attempt} of job ${jobId} was checked`);
      attemptsOf(jobId).set(
        end.attempt,
        deepFreeze({
          ...attempt,
          endedAtMs: atMs,
          exitCode: end.exitCode,
          signal: end.signal,
          endReason: end.endReason,
        }),
      );
    }
    const patch = frozenCopy(change.patch ?? {});
    const reason = reasonUpdate(change);
    jobs.set(
      jobId,
      deepFreeze({
        ...job,
        ...(patch.placement !== undefined && { placement: patch.placement }),
        ...(patch.attempt !== undefined && { attempt: patch.attempt }),
        ...(patch.process !== undefined && { process: patch.process }),
        ...(patch.startedAtMs !== undefined && { startedAtMs: patch.startedAtMs }),
        ...(patch.endedAtMs !== undefined && { endedAtMs: patch.endedAtMs }),
        ...(patch.exitCode !== undefined && { exitCode: patch.exitCode }),
        ...(patch.signal !== undefined && { signal: patch.signal }),
        ...(patch.reportTokenDigest !== undefined && { reportTokenDigest: patch.reportTokenDigest }),
        ...(patch.folder !== undefined && { folder: patch.folder }),
        ...(reason.set && { reason: reason.reason }),
        state: toState,
        updatedAtMs: atMs,
      }),
    );
    if (change.to !== undefined) {
      events
        .get(jobId)
        ?.push(deepFreeze({ jobId, atMs, fromState, toState: change.to, reason: change.reason ?? null }));
    }
  };

  const store: StateStore = {
    createTenant(name, atMs) {
      open();
      if (tenants.has(name)) throw new StoreConflictError(`tenant ${name} already exists`);
      const tenant = frozenCopy<TenantRecord>({
        name,
        createdAtMs: atMs,
        guaranteedGpuEquivalents: 0,
        limitGpuEquivalents: null,
        ...DEFAULT_TENANT_LIMITS,
      });
      tenants.set(name, tenant);
      return tenant;
    },
    setTenantLimits(name, limits) {
      open();
      const current = tenants.get(name);
      if (current === undefined) throw new StoreConflictError(`tenant ${name} does not exist`);
      const tenant = frozenCopy<TenantRecord>({
        ...current,
        maxPriorityClass: limits.maxPriorityClass,
        requestsPerSecond: limits.requestsPerSecond,
        requestBurst: limits.requestBurst,
        eventStreamsPerToken: limits.eventStreamsPerToken,
      });
      tenants.set(name, tenant);
      return tenant;
    },
    setTenantQuota(name, quota) {
      open();
      const current = tenants.get(name);
      if (current === undefined) throw new StoreConflictError(`tenant ${name} does not exist`);
      const tenant = frozenCopy<TenantRecord>({
        ...current,
        guaranteedGpuEquivalents: quota.guaranteedGpuEquivalents,
        limitGpuEquivalents: quota.limitGpuEquivalents,
      });
      tenants.set(name, tenant);
      return tenant;
    },
    getTenant(name) {
      open();
      return tenants.get(name) ?? null;
    },
    listTenants() {
      open();
      return [...tenants.values()].sort(byKey((t) => t.name));
    },
    createToken(token) {
      open();
      if (tokenIdByDigest.has(token.digest)) throw new StoreConflictError('a token with this digest already exists');
      if (token.tenant !== null) requireTenant(token.tenant);
      const record = frozenCopy<TokenRecord>({
        id: lastTokenId + 1,
        digest: token.digest,
        role: token.role,
        tenant: token.tenant,
        label: token.label,
        createdAtMs: token.createdAtMs,
        expiresAtMs: token.expiresAtMs ?? null,
        revokedAtMs: null,
        rotatedAtMs: null,
        createdByServer: token.createdByServer === true,
      });
      lastTokenId = record.id;
      tokens.set(record.id, record);
      tokenIdByDigest.set(record.digest, record.id);
      return record;
    },
    findTokenByDigest(digest) {
      open();
      const id = tokenIdByDigest.get(digest);
      return id === undefined ? null : (tokens.get(id) ?? null);
    },
    getToken(id) {
      open();
      return tokens.get(id) ?? null;
    },
    listTokens(filter = {}) {
      open();
      return [...tokens.values()].filter((t) => filter.tenant === undefined || t.tenant === filter.tenant);
    },
    revokeToken(id, atMs) {
      open();
      const current = tokens.get(id);
      if (current === undefined) throw new StoreConflictError(`token ${id} does not exist`);
      if (current.revokedAtMs !== null) return current;
      const record = frozenCopy<TokenRecord>({ ...current, revokedAtMs: atMs });
      tokens.set(id, record);
      return record;
    },
    rotateToken(id, newDigest, atMs) {
      open();
      const current = tokens.get(id);
      const other = tokenIdByDigest.get(newDigest);
      if (other !== undefined) throw new StoreConflictError(`a token with this digest already exists (token ${other})`);
      if (current === undefined) throw new StoreConflictError(`token ${id} does not exist`);
      const record = frozenCopy<TokenRecord>({ ...current, digest: newDigest, rotatedAtMs: atMs });
      tokens.set(id, record);
      tokenIdByDigest.delete(current.digest);
      tokenIdByDigest.set(newDigest, id);
      return record;
    },
    insertJob(job: NewJob, atMs: number) {
      open();
      requireTenant(job.tenant);
      const spec = JSON.parse(JSON.stringify(job)) as NewJob;
      const record: JobRecord = deepFreeze({
        id: lastJobId + 1,
        name: spec.name,
        tenant: spec.tenant,
        command: spec.command,
        workingDirectory: spec.workingDirectory,
        environment: spec.environment,
        priority: spec.priority,
        timeLimitSeconds: spec.timeLimitSeconds,
        retries: spec.retries,
        preemptible: spec.preemptible,
        cpuMilli: spec.cpuMilli,
        hostMemoryMiB: spec.hostMemoryMiB,
        gpu: spec.gpu,
        qos: spec.qos ?? null,
        reportTokenDigest: null,
        submittedByTokenId: spec.submittedByTokenId ?? null,
        state: 'pending',
        reason: null,
        submittedAtMs: atMs,
        updatedAtMs: atMs,
        placement: null,
        attempt: 0,
        process: null,
        folder: null,
        startedAtMs: null,
        endedAtMs: null,
        exitCode: null,
        signal: null,
      });
      lastJobId = record.id;
      jobs.set(record.id, record);
      events.set(record.id, [
        deepFreeze({ jobId: record.id, atMs, fromState: null, toState: 'pending', reason: null }),
      ]);
      return record;
    },
    getJob(id) {
      open();
      return jobs.get(id) ?? null;
    },
    listJobs(filter: JobFilter = {}) {
      open();
      const states = filter.states === undefined ? null : new Set(filter.states);
      const name = filter.namePattern === undefined ? null : compileNamePattern(filter.namePattern);
      const out: JobRecord[] = [];
      // Ids increase, so the map's insertion order is ascending id order.
      for (const job of jobs.values()) {
        if (filter.tenant !== undefined && job.tenant !== filter.tenant) continue;
        if (states !== null && !states.has(job.state)) continue;
        if (filter.submittedSinceMs !== undefined && job.submittedAtMs < filter.submittedSinceMs) continue;
        if (filter.afterId !== undefined && job.id <= filter.afterId) continue;
        if (name !== null && !name.matches(job.name)) continue;
        out.push(job);
        if (filter.newest === undefined && filter.limit !== undefined && out.length >= filter.limit) break;
      }
      const newest = filter.newest === undefined ? out : out.slice(-filter.newest);
      return filter.limit === undefined ? newest : newest.slice(0, filter.limit);
    },
    listEvents(jobId) {
      open();
      return [...(events.get(jobId) ?? [])];
    },
    listAttempts(jobId) {
      open();
      return [...(attempts.get(jobId)?.values() ?? [])].sort((a, b) => a.attempt - b.attempt);
    },
    applyJobChanges(changes) {
      open();
      const planned = planJobChanges(changes, {
        jobState: (jobId) => jobs.get(jobId)?.state ?? null,
        hasAttempt: (jobId, attempt) => attempts.get(jobId)?.has(attempt) ?? false,
      });
      for (const { change, fromState, toState } of planned) applyChange(change, fromState, toState);
    },
    addJobEvent(jobId, atMs, reason, expectState) {
      open();
      const job = jobs.get(jobId);
      if (job === undefined) throw new StoreConflictError(`job ${jobId} does not exist`);
      if (expectState !== undefined && job.state !== expectState)
        throw new StoreConflictError(`job ${jobId} is ${job.state}, expected ${expectState}`);
      events.get(jobId)?.push(deepFreeze({ jobId, atMs, fromState: job.state, toState: job.state, reason }));
    },
    findJobByReportTokenDigest(digest) {
      open();
      for (const job of jobs.values()) if (job.reportTokenDigest === digest) return job;
      return null;
    },
    raiseUsagePeaks(updates, atMs) {
      open();
      for (const { jobId } of updates)
        if (!jobs.has(jobId)) throw new StoreConflictError(`job ${jobId} does not exist`);
      for (const update of updates) {
        const next = raisedPeak(peaks.get(update.jobId) ?? null, update, atMs);
        if (next !== null) peaks.set(update.jobId, deepFreeze(next));
      }
    },
    getUsagePeak(jobId) {
      open();
      return peaks.get(jobId) ?? null;
    },
    listCordonedGpus() {
      open();
      return [...cordons.keys()].sort();
    },
    setGpuCordoned(uuid, cordoned, atMs) {
      open();
      if (!cordoned) cordons.delete(uuid);
      else if (!cordons.has(uuid)) cordons.set(uuid, atMs);
    },
    async backup(path) {
      open();
      const document: MemoryStoreBackup = {
        format: MEMORY_STORE_BACKUP_FORMAT,
        version: 1,
        tenants: store.listTenants(),
        tokens: [...tokens.values()],
        jobs: store.listJobs(),
        events: [...events.values()].flat(),
        attempts: [...attempts.keys()].flatMap((jobId) => store.listAttempts(jobId)),
        cordonedGpus: [...cordons.entries()]
          .sort(byKey(([uuid]) => uuid))
          .map(([uuid, cordonedAtMs]) => ({ uuid, cordonedAtMs })),
      };
      const text = `${JSON.stringify(document, null, 2)}\n`;
      // it holds token digests and job environments: a private file (caller-path.ts)
      const bytes = Buffer.from(text, 'utf8');
      return writeCallerFile(path, 'path', (fd) => {
        for (let done = 0; done < bytes.length;) done += writeSync(fd, bytes, done, bytes.length - done);
      });
    },
    close() {
      closed = true;
    },
  };
  return store;
}
