/**
 * An in-memory state store for tests and the simulator. Behaves like the SQLite store (same
 * checks, same errors, same ordering); values are copied in and out through JSON, as the SQLite
 * store stores them, so callers can never mutate stored state and see exactly what SQLite would
 * give back. A write either fully happens or throws before changing anything.
 */
import { writeFileSync } from 'node:fs';
import type { JobState } from '../../core/index.js';
import {
  type AttemptRecord,
  type JobChange,
  type JobEvent,
  type JobFilter,
  type JobRecord,
  type NewJob,
  type StateStore,
  StoreConflictError,
  type TenantRecord,
  type TokenRecord,
} from '../../app/ports/state-store.js';
import { replaceFileAtomically } from './atomic-file.js';
import { planJobChanges, reasonUpdate } from './plan-job-changes.js';

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

type Mutable<T> = { -readonly [K in keyof T]: T[K] };

/** A deep copy through JSON (what a round trip through the SQLite store's JSON columns gives). */
function copy<T>(value: T): T {
  return JSON.parse(JSON.stringify(value)) as T;
}

/** Creates an empty in-memory state store. */
export function createMemoryStore(): StateStore {
  const tenants = new Map<string, TenantRecord>();
  const tokens = new Map<string, TokenRecord>();
  /** By id; insertion order is id order. */
  const jobs = new Map<number, Mutable<JobRecord>>();
  const events = new Map<number, JobEvent[]>();
  const attempts = new Map<number, Map<number, Mutable<AttemptRecord>>>();
  const cordons = new Map<string, number>();
  let lastJobId = 0;
  let lastTokenId = 0;
  let closed = false;

  const open = (): void => {
    if (closed) throw new TypeError('The memory store is closed');
  };
  const requireTenant = (name: string): void => {
    if (!tenants.has(name)) throw new StoreConflictError(`tenant ${name} does not exist`);
  };
  const byKey = <T>(key: (item: T) => string) => (a: T, b: T): number => (key(a) < key(b) ? -1 : key(a) > key(b) ? 1 : 0);

  const applyChange = (change: JobChange, fromState: JobState, toState: JobState): void => {
    const job = jobs.get(change.jobId);
    if (job === undefined) throw new Error(`unreachable: job ${change.jobId} was checked`);
    const { atMs } = change;
    if (change.startAttempt !== undefined) {
      let ofJob = attempts.get(job.id);
      if (ofJob === undefined) attempts.set(job.id, (ofJob = new Map()));
      ofJob.set(change.startAttempt, {
        jobId: job.id, attempt: change.startAttempt, startedAtMs: atMs, endedAtMs: null, exitCode: null, signal: null, endReason: null,
      });
    }
    if (change.endAttempt !== undefined) {
      const end = change.endAttempt;
      const attempt = attempts.get(job.id)?.get(end.attempt);
      if (attempt === undefined) throw new Error(`unreachable: attempt ${end.attempt} of job ${job.id} was checked`);
      Object.assign(attempt, { endedAtMs: atMs, exitCode: end.exitCode, signal: end.signal, endReason: end.endReason });
    }
    const patch = copy(change.patch ?? {});
    if (patch.placement !== undefined) job.placement = patch.placement;
    if (patch.attempt !== undefined) job.attempt = patch.attempt;
    if (patch.process !== undefined) job.process = patch.process;
    if (patch.startedAtMs !== undefined) job.startedAtMs = patch.startedAtMs;
    if (patch.endedAtMs !== undefined) job.endedAtMs = patch.endedAtMs;
    if (patch.exitCode !== undefined) job.exitCode = patch.exitCode;
    if (patch.signal !== undefined) job.signal = patch.signal;
    const reason = reasonUpdate(change);
    if (reason.set) job.reason = reason.reason;
    job.state = toState;
    job.updatedAtMs = atMs;
    if (change.to !== undefined) {
      events.get(job.id)?.push({ jobId: job.id, atMs, fromState, toState: change.to, reason: change.reason ?? null });
    }
  };

  const store: StateStore = {
    createTenant(name, atMs) {
      open();
      if (tenants.has(name)) throw new StoreConflictError(`tenant ${name} already exists`);
      const tenant = { name, createdAtMs: atMs };
      tenants.set(name, tenant);
      return { ...tenant };
    },
    getTenant(name) {
      open();
      const tenant = tenants.get(name);
      return tenant === undefined ? null : { ...tenant };
    },
    listTenants() {
      open();
      return [...tenants.values()].sort(byKey((t) => t.name)).map((t) => ({ ...t }));
    },
    createToken(token) {
      open();
      if (tokens.has(token.digest)) throw new StoreConflictError('a token with this digest already exists');
      if (token.tenant !== null) requireTenant(token.tenant);
      const record: TokenRecord = {
        id: ++lastTokenId, digest: token.digest, role: token.role, tenant: token.tenant, label: token.label, createdAtMs: token.createdAtMs,
      };
      tokens.set(record.digest, record);
      return { ...record };
    },
    findTokenByDigest(digest) {
      open();
      const token = tokens.get(digest);
      return token === undefined ? null : { ...token };
    },
    insertJob(job: NewJob, atMs: number) {
      open();
      requireTenant(job.tenant);
      const spec = copy(job);
      const record: Mutable<JobRecord> = {
        id: ++lastJobId,
        name: spec.name,
        tenant: spec.tenant,
        command: spec.command,
        workingDirectory: spec.workingDirectory,
        environment: spec.environment,
        priority: spec.priority,
        timeLimitSeconds: spec.timeLimitSeconds,
        retries: spec.retries,
        cpuMilli: spec.cpuMilli,
        hostMemoryMiB: spec.hostMemoryMiB,
        gpu: spec.gpu,
        state: 'pending',
        reason: null,
        submittedAtMs: atMs,
        updatedAtMs: atMs,
        placement: null,
        attempt: 0,
        process: null,
        startedAtMs: null,
        endedAtMs: null,
        exitCode: null,
        signal: null,
      };
      jobs.set(record.id, record);
      events.set(record.id, [{ jobId: record.id, atMs, fromState: null, toState: 'pending', reason: null }]);
      return copy(record);
    },
    getJob(id) {
      open();
      const job = jobs.get(id);
      return job === undefined ? null : copy(job);
    },
    listJobs(filter: JobFilter = {}) {
      open();
      const states = filter.states === undefined ? null : new Set(filter.states);
      const out: JobRecord[] = [];
      for (const job of jobs.values()) {
        if (filter.tenant !== undefined && job.tenant !== filter.tenant) continue;
        if (states !== null && !states.has(job.state)) continue;
        out.push(copy(job));
      }
      return out;
    },
    listEvents(jobId) {
      open();
      return (events.get(jobId) ?? []).map((e) => ({ ...e }));
    },
    listAttempts(jobId) {
      open();
      return [...(attempts.get(jobId)?.values() ?? [])].sort((a, b) => a.attempt - b.attempt).map((a) => ({ ...a }));
    },
    applyJobChanges(changes) {
      open();
      const planned = planJobChanges(changes, {
        jobState: (jobId) => jobs.get(jobId)?.state ?? null,
        hasAttempt: (jobId, attempt) => attempts.get(jobId)?.has(attempt) ?? false,
      });
      for (const { change, fromState, toState } of planned) applyChange(change, fromState, toState);
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
        tokens: [...tokens.values()].sort((a, b) => a.id - b.id),
        jobs: store.listJobs(),
        events: [...events.values()].flat(),
        attempts: [...attempts.keys()].flatMap((jobId) => store.listAttempts(jobId)),
        cordonedGpus: [...cordons.entries()].sort(byKey(([uuid]) => uuid)).map(([uuid, cordonedAtMs]) => ({ uuid, cordonedAtMs })),
      };
      const text = `${JSON.stringify(document, null, 2)}\n`;
      await replaceFileAtomically(path, (temporary) => {
        writeFileSync(temporary, text, { flush: true });
      });
    },
    close() {
      closed = true;
    },
  };
  return store;
}
