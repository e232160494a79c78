/**
 * Port: the control plane's durable state (tenants, tokens, jobs with their transitions and
 * attempts, GPU cordons). The store is the truth: the server rebuilds everything else from it after
 * a restart. Every method that writes does so in one transaction: it either fully happens or not
 * at all. Methods are synchronous (the embedded SQLite store is; a remote store would wrap this
 * port behind a queue).
 *
 * Implementations: adapters/store/sqlite-store.ts (production) and adapters/store/memory-store.ts
 * (tests, simulator); both pass adapters/store/store.contract.ts.
 */
import type { GpuRequest, JobEventReason, JobState, Placement, PriorityClassName } from '../../core/index.js';
import type { ProcessHandle } from './process-launcher.js';

/** A tenant: a team or user whose jobs and tokens belong together. */
export interface TenantRecord {
  readonly name: string;
  readonly createdAtMs: number;
  /** GPU-equivalents the tenant is guaranteed (0 by default). */
  readonly guaranteedGpuEquivalents: number;
  /** Most GPU-equivalents the tenant may use, borrowing included; null = no limit (the default). */
  readonly limitGpuEquivalents: number | null;
  /** The tenant's caps and per-token limits (docs/security.md, "Caps and limits"). */
  readonly maxPriorityClass: PriorityClassName;
  /** Requests per second each of its tokens may make; null = the server's default. */
  readonly requestsPerSecond: number | null;
  /** Requests each of its tokens may make at once above the rate (the bucket's size); null = the server's default. */
  readonly requestBurst: number | null;
  /** Event streams (`GET /api/v1/events`) each of its tokens may hold open; null = the server's default. */
  readonly eventStreamsPerToken: number | null;
}

/**
 * A tenant's caps and limits: the highest priority class its tokens may submit at (a number above
 * that class's value is refused; `critical` allows any), and per-token request rate, burst and
 * event-stream limits (null = the server's defaults). New tenants get `normal` and the defaults.
 */
export type TenantLimits = Pick<
  TenantRecord,
  'maxPriorityClass' | 'requestsPerSecond' | 'requestBurst' | 'eventStreamsPerToken'
>;

/** The limits of a new tenant. */
export const DEFAULT_TENANT_LIMITS: TenantLimits = {
  maxPriorityClass: 'normal',
  requestsPerSecond: null,
  requestBurst: null,
  eventStreamsPerToken: null,
};

/**
 * Role of a bearer token (docs/security.md has the table of what each may do): `admin` everything;
 * `tenant-admin` its tenant's jobs and tokens; `member` submits and acts on its own jobs, reads its
 * tenant's; `viewer` reads its tenant's jobs. Tokens stored before roles existed (`tenant`) became
 * `tenant-admin`, which keeps what they could do.
 */
export type TokenRole = 'admin' | 'tenant-admin' | 'member' | 'viewer';

/** Every token role, in order of decreasing rights. */
export const TOKEN_ROLES: readonly TokenRole[] = ['admin', 'tenant-admin', 'member', 'viewer'];

/** A bearer token as stored: only the SHA-256 digest of the secret, never the secret. */
export interface TokenRecord {
  readonly id: number;
  /** Lower-case hex SHA-256 of the token string. */
  readonly digest: string;
  readonly role: TokenRole;
  /** Owning tenant; null for admin tokens. */
  readonly tenant: string | null;
  readonly label: string;
  readonly createdAtMs: number;
  /** When the token stops working, ms since the epoch; null: never. */
  readonly expiresAtMs: number | null;
  /** When it was revoked, ms since the epoch; null while it is not. A revoked token never works again. */
  readonly revokedAtMs: number | null;
  /** When its secret was last replaced (same id and label, new digest), ms since the epoch; null: never. */
  readonly rotatedAtMs: number | null;
  /**
   * Whether `gpushare serve` made it as the admin token of its admin token file (see `AdminService.ensureAdminToken`).
   */
  readonly createdByServer: boolean;
}

/** What `createToken` stores: a token without id; expiry and server origin default to none and false. */
export type NewToken = Omit<TokenRecord, 'id' | 'revokedAtMs' | 'rotatedAtMs' | 'expiresAtMs' | 'createdByServer'> & {
  readonly expiresAtMs?: number | null;
  readonly createdByServer?: boolean;
};

/** Filter of `listTokens`. */
export interface TokenFilter {
  /** Only this tenant's tokens. */
  readonly tenant?: string;
}

/**
 * QoS targets a job declares (docs/qos.md), seconds, each positive and finite: `stepSeconds` per
 * training step, `latencySeconds` per request. A report above a target misses it.
 */
export interface QosTargets {
  readonly stepSeconds?: number;
  readonly latencySeconds?: number;
}

/** What a submit stores (validated and defaulted by the app layer). */
export interface NewJob {
  readonly name: string;
  readonly tenant: string;
  /** argv; `command[0]` was resolved to an executable at submit. */
  readonly command: readonly string[];
  /**
   * Absolute path; null: a private working directory of the job's own, made at launch (JobFiles.prepareWorkDirectory).
   */
  readonly workingDirectory: string | null;
  readonly environment: Readonly<Record<string, string>>;
  /** Higher is more important. */
  readonly priority: number;
  /** Wall-clock limit of one attempt in seconds; null for none. */
  readonly timeLimitSeconds: number | null;
  /** How many times a failed attempt is retried. */
  readonly retries: number;
  /** Whether the job may be preempted for a more important one (default: priority below `high`). */
  readonly preemptible: boolean;
  readonly cpuMilli: number;
  readonly hostMemoryMiB: number;
  readonly gpu: GpuRequest;
  /** QoS targets; absent or null for none. */
  readonly qos?: QosTargets | null;
  /**
   * The stored token (its id) that submitted the job: its owner for a `member`; absent or null when unknown (an admin's
   * or a job stored before owners were recorded).
   */
  readonly submittedByTokenId?: number | null;
}

/** A job with its current state. */
export interface JobRecord extends NewJob {
  readonly id: number;
  /** QoS targets; null for none. */
  readonly qos: QosTargets | null;
  /** The token that submitted the job; null when unknown. */
  readonly submittedByTokenId: number | null;
  /**
   * Lower-case hex SHA-256 of the report token of the current attempt (`GPUSHARE_JOB_TOKEN`), set at
   * launch and cleared when the attempt ends; null when none is valid. Never shown by the API.
   */
  readonly reportTokenDigest: string | null;
  readonly state: JobState;
  /**
   * Why the job is in its state (`time-limit`, `lost`, `exited`, …), or the stop gpushare asked
   * for (`cancel-requested`, `preemption-requested`), as a code with details; null when none.
   */
  readonly reason: JobEventReason | null;
  readonly submittedAtMs: number;
  readonly updatedAtMs: number;
  /** Where it runs or ran last; null before its first placement. */
  readonly placement: Placement | null;
  /** Attempts started so far (1-based number of the current or last attempt; 0 before the first). */
  readonly attempt: number;
  /** The live process of the current attempt; null when none runs. */
  readonly process: ProcessHandle | null;
  /**
   * Name of the job's private folder under `<data-dir>/jobs/` (JobFiles), made and recorded at its
   * first launch: `<id>-<16 hex digits>`, or `<id>` for jobs launched before schema version 4; null
   * before the first launch.
   */
  readonly folder: string | null;
  /** Start of the current or last attempt, ms since the epoch. */
  readonly startedAtMs: number | null;
  /** End of the job (terminal states only). */
  readonly endedAtMs: number | null;
  readonly exitCode: number | null;
  readonly signal: string | null;
}

/**
 * One stored state transition, or a note without one (a QoS violation or recovery, stored by
 * `addJobEvent`): then `fromState` equals `toState`, the state the job was in.
 */
export interface JobEvent {
  readonly jobId: number;
  readonly atMs: number;
  /** null for the submit event. */
  readonly fromState: JobState | null;
  readonly toState: JobState;
  readonly reason: JobEventReason | null;
}

/** One attempt (one run of the command). */
export interface AttemptRecord {
  readonly jobId: number;
  /** 1-based. */
  readonly attempt: number;
  readonly startedAtMs: number;
  readonly endedAtMs: number | null;
  readonly exitCode: number | null;
  readonly signal: string | null;
  /** Why it ended: `exited`, `time-limit`, `cancelled`, `lost`, ...; null while it runs. */
  readonly endReason: JobEventReason | null;
}

/** Mutable fields of a job a change may set. */
export type JobPatch = Partial<
  Pick<
    JobRecord,
    | 'placement'
    | 'attempt'
    | 'process'
    | 'startedAtMs'
    | 'endedAtMs'
    | 'exitCode'
    | 'signal'
    | 'reason'
    | 'reportTokenDigest'
    | 'folder'
  >
>;

/**
 * One change to one job. When `to` is given the state changes and a `JobEvent` is stored with
 * `reason`. When `expectState` is given and the job is in another state, the whole batch fails
 * with `StoreConflictError` and nothing is written.
 */
export interface JobChange {
  readonly jobId: number;
  readonly atMs: number;
  readonly expectState?: JobState;
  readonly to?: JobState;
  readonly reason?: JobEventReason | null;
  readonly patch?: JobPatch;
  /** Starts an attempt record (`startedAtMs` = `atMs`). */
  readonly startAttempt?: number;
  /** Ends the attempt of that number. */
  readonly endAttempt?: {
    readonly attempt: number;
    readonly exitCode: number | null;
    readonly signal: string | null;
    readonly endReason: JobEventReason;
  };
}

/**
 * Filter of `listJobs` (and of every other listing or bulk action over jobs). Every field is
 * optional and they combine with AND; the answer is always by ascending id. Order of application:
 * the selectors (`tenant`, `states`, `namePattern`, `submittedSinceMs`, `afterId`), then `newest`,
 * then `limit`. Paging: pass the last id of a page as `afterId` of the next.
 */
export interface JobFilter {
  /** Only this tenant's jobs. */
  readonly tenant?: string;
  /** Only jobs in these states (an empty list matches nothing). */
  readonly states?: readonly JobState[];
  /**
   * Only jobs whose name matches this pattern (src/lib/name-pattern.ts: the whole name, `*` any run
   * of characters, case-sensitive; 1 to 256 characters, else `listJobs` throws RangeError).
   */
  readonly namePattern?: string;
  /** Only jobs submitted at or after this time, ms since the epoch. */
  readonly submittedSinceMs?: number;
  /** Only jobs with an id greater than this (the cursor of the next page). */
  readonly afterId?: number;
  /** Only the newest N matching jobs (highest ids), still returned by ascending id. A positive integer. */
  readonly newest?: number;
  /** At most this many jobs, the lowest ids first (a page). A positive integer. */
  readonly limit?: number;
}

/**
 * The peak GPU usage measured for one job over all its attempts (docs/server.md, "Measured peaks"):
 * from the usage poller's nvidia-smi samples and the job's own reports, never from simulated GPUs.
 */
export interface JobUsagePeak {
  readonly jobId: number;
  /** Most device memory the job used on any one of its GPUs, MiB (a whole number); null: never measured. */
  readonly gpuMemoryMiB: number | null;
  /**
   * Highest GPU utilization attributable to the job (its GPU's while it was the only job there, or
   * its own report), percent 0..100; null: never measured.
   */
  readonly gpuUtilizationPct: number | null;
  /** When a value last rose, ms since the epoch. */
  readonly updatedAtMs: number;
}

/** Values one sample or report saw for a job; a null value leaves the stored one as it is. */
export interface UsagePeakUpdate {
  readonly jobId: number;
  /** Device memory used on one GPU, MiB, a whole number ≥ 0; null: not seen. */
  readonly gpuMemoryMiB: number | null;
  /** Utilization, percent 0..100; null: not seen. */
  readonly gpuUtilizationPct: number | null;
}

/** Thrown when a write conflicts with what is stored (duplicate name, unexpected state). */
export class StoreConflictError extends Error {
  override readonly name = 'StoreConflictError';
}

/** The state store port. */
export interface StateStore {
  /**
   * Creates a tenant with guarantee 0, no limit and `DEFAULT_TENANT_LIMITS`. @throws StoreConflictError when it exists
   */
  createTenant(name: string, atMs: number): TenantRecord;
  /** Sets a tenant's caps and limits (all of them). @throws StoreConflictError for an unknown tenant */
  setTenantLimits(name: string, limits: TenantLimits): TenantRecord;
  /** Sets a tenant's quota. @throws StoreConflictError for an unknown tenant */
  setTenantQuota(
    name: string,
    quota: { guaranteedGpuEquivalents: number; limitGpuEquivalents: number | null },
  ): TenantRecord;
  getTenant(name: string): TenantRecord | null;
  listTenants(): TenantRecord[];
  /**
   * Stores a token (ids increase, never reused). @throws StoreConflictError for a duplicate digest or an unknown tenant
   */
  createToken(token: NewToken): TokenRecord;
  /** The token whose current digest this is (revoked and expired ones too: the caller decides), or null. */
  findTokenByDigest(digest: string): TokenRecord | null;
  getToken(id: number): TokenRecord | null;
  /** Tokens by ascending id. */
  listTokens(filter?: TokenFilter): TokenRecord[];
  /**
   * Marks a token revoked at `atMs`; a token revoked before keeps its first time.
   * @returns the token as stored now
   * @throws StoreConflictError for an unknown id
   */
  revokeToken(id: number, atMs: number): TokenRecord;
  /**
   * Replaces a token's digest (same id, label, role, expiry) and sets `rotatedAtMs`: the old
   * digest stops matching at once.
   * @throws StoreConflictError for an unknown id or a digest another token has
   */
  rotateToken(id: number, newDigest: string, atMs: number): TokenRecord;
  /**
   * Inserts a job in state `pending` with its submit event; ids increase and are never reused (the
   * SQLite store keeps that promise across a restored backup too: docs/store.md).
   */
  insertJob(job: NewJob, atMs: number): JobRecord;
  getJob(id: number): JobRecord | null;
  /** Jobs by ascending id. */
  listJobs(filter?: JobFilter): JobRecord[];
  /** Transitions of one job, oldest first. */
  listEvents(jobId: number): JobEvent[];
  /** Attempts of one job, by number. */
  listAttempts(jobId: number): AttemptRecord[];
  /**
   * Applies all changes in one transaction. @throws StoreConflictError (nothing written) on a state mismatch or an
   * unknown job
   */
  applyJobChanges(changes: readonly JobChange[]): void;
  /**
   * Stores an event that changes nothing (`fromState` = `toState` = the job's state), e.g. a QoS
   * violation; the job record is left as it is.
   * @throws StoreConflictError for an unknown job, or when the job is not in `expectState` (when given)
   */
  addJobEvent(jobId: number, atMs: number, reason: JobEventReason, expectState?: JobState): void;
  /** The job whose current report token has this digest (see `JobRecord.reportTokenDigest`), or null. */
  findJobByReportTokenDigest(digest: string): JobRecord | null;
  /**
   * Raises the stored usage peaks of jobs to the values given, where those are higher (or none was
   * stored), in one transaction; `updatedAtMs` becomes `atMs` for a peak that rose. A peak that
   * does not rise is not written.
   * @throws StoreConflictError (nothing written) for an unknown job
   */
  raiseUsagePeaks(updates: readonly UsagePeakUpdate[], atMs: number): void;
  /** A job's usage peak, or null when nothing was ever measured for it. */
  getUsagePeak(jobId: number): JobUsagePeak | null;
  /** UUIDs of cordoned GPUs. */
  listCordonedGpus(): string[];
  setGpuCordoned(uuid: string, cordoned: boolean, atMs: number): void;
  /**
   * Writes a consistent copy of the whole store, while it is in use, to `path`: a new file (mode
   * 0600) in a folder reached without `..` and without symbolic links another user could have placed
   * (adapters/store/caller-path.ts; docs/security.md "Paths a caller names").
   * @returns the backup's size in bytes
   * @throws GpushareError 400 naming `path` for a refused path or an existing file (nothing is
   *   written); the system's error when the folder cannot be written
   */
  backup(path: string): Promise<number>;
  close(): void;
}
