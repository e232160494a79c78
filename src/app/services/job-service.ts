/**
 * The operations the HTTP API exposes, with authorization: admins see everything; a tenant's token
 * sees and acts only on its tenant's jobs, and another tenant's job is "not found" (404), never
 * "forbidden", so job ids leak nothing; nor do reasons, which name another tenant's job only as
 * "another tenant's job" for anyone but an admin.
 */
import { isTerminal, type JobState, JOB_EVENT_CODES, jobEventReason, type StatusViewer } from '../../core/index.js';
import type { GpuView, JobDetailView, JobView, SubmitJob } from '../../contract/api.js';
import type { BulkCancel, BulkCancelResult } from '../../contract/bulk-cancel.js';
import { conflict, draining, gpuNotFound, invalidField, jobNotFound } from '../errors.js';
import { authorize, isAllowed, type Action } from '../auth/authorize.js';
import { checkPriorityCap } from '../auth/priority-cap.js';
import type { Principal } from '../auth/tokens.js';
import type { Clock } from '../ports/clock.js';
import type { JobFiles } from '../ports/job-files.js';
import type { ProcessLauncher } from '../ports/process-launcher.js';
import type { JobRecord, StateStore } from '../ports/state-store.js';
import type { ControlPlane } from '../scheduling/control-plane.js';
import { normalizeSubmit } from './normalize-submit.js';
import { bulkCancel, cancellerDetails } from './bulk-cancel.js';
import { toGpuViews, toJobDetail, toJobView } from './views.js';
import { listJobPage, listJobTablePage, type JobListQuery } from './job-listing.js';
import { ACTIVE_JOB_STATES, type JobPage, type JobTablePage } from '../../contract/job-list.js';
import { viewerFor } from './reason-viewer.js';
import { historyExport, type HistoryQuery } from './history-export.js';

/** What a job's environment values read as for a caller who may not read its logs. */
export const HIDDEN_VALUE = '(hidden)';

/** Most bytes one logs call returns. */
export const MAX_LOG_CHUNK_BYTES = 1 << 20;

/** What the job operations use. */
export interface JobServiceDeps {
  readonly plane: ControlPlane;
  readonly store: StateStore;
  readonly clock: Clock;
  readonly files: JobFiles;
  /** The host's file system as jobs see it (working directories, programs). */
  readonly launcher: Pick<ProcessLauncher, 'workingDirectoryProblem' | 'resolveExecutable'>;
  readonly settings: { readonly hostCpuMilli: number; readonly hostMemoryMiB: number };
  /** The server's environment (its PATH is where programs are looked up). */
  readonly serverEnvironment: Readonly<Record<string, string | undefined>>;
}

/** API operations over one control plane. */
export class JobService {
  private readonly plane: ControlPlane;

  constructor(private readonly deps: JobServiceDeps) {
    this.plane = deps.plane;
  }

  /**
   * Validates, stores (pending) and queues a job; a non-admin's priority is capped by its tenant's `maxPriorityClass`.
   * @throws GpushareError (400/403/422/503)
   */
  submit(principal: Principal, body: SubmitJob): JobView {
    authorize(principal, 'job.submit', { tenant: body.tenant ?? principal.tenant });
    if (this.plane.draining) throw draining();
    const { store, settings, serverEnvironment, launcher, clock } = this.deps;
    const { job: newJob, workingDirectoryReason } = normalizeSubmit(body, {
      principal,
      knownTenants: store.listTenants().map((t) => t.name),
      workingDirectoryProblem: (path, tenant) => launcher.workingDirectoryProblem(path, tenant),
      resolveExecutable: (argv0, cwd, env, tenant) => launcher.resolveExecutable(argv0, cwd, env, tenant),
      serverPath: serverEnvironment.PATH ?? '/usr/local/bin:/usr/bin:/bin',
      gpus: this.plane.roster.devices(),
      host: { cpuMilli: settings.hostCpuMilli, hostMemoryMiB: settings.hostMemoryMiB },
    });
    const tenant = store.getTenant(newJob.tenant);
    if (tenant !== null) checkPriorityCap(principal, tenant, newJob.priority);
    const job = store.insertJob(newJob, clock.nowMs());
    // A note the job's history keeps (gpushare show): it runs in a private working directory, and why.
    if (workingDirectoryReason !== null) store.addJobEvent(job.id, clock.nowMs(), workingDirectoryReason, 'pending');
    this.plane.submitted(job);
    return toJobView(job, this.plane, this.viewerFor(principal));
  }

  /**
   * How many of the jobs the caller may see are in each active state (its tenant's, for anyone
   * but an admin): counted over the stored records, no view built. @throws GpushareError 403
   */
  activeCounts(principal: Principal): Partial<Record<JobState, number>> {
    authorize(principal, 'job.read');
    const counts: Partial<Record<JobState, number>> = {};
    const tenant = principal.role === 'admin' ? undefined : (principal.tenant ?? undefined);
    for (const job of this.deps.store.listJobs({
      ...(tenant === undefined ? {} : { tenant }),
      states: ACTIVE_JOB_STATES,
    }))
      counts[job.state] = (counts[job.state] ?? 0) + 1;
    return counts;
  }

  /**
   * A page of the jobs the caller may see (job-listing.ts: selectors, page, fields; another
   * tenant's jobs are an empty page for anyone but an admin). @throws GpushareError 403
   */
  listPage(principal: Principal, query: JobListQuery): JobPage {
    return listJobPage(this.deps, principal, query, this.viewerFor(principal));
  }

  /**
   * A page of the job table (`view=table`): the rows of the same jobs as {@link listPage}, ages
   * from the server's clock. @throws GpushareError 403
   */
  listTablePage(principal: Principal, query: JobListQuery): JobTablePage {
    return listJobTablePage(this.deps, principal, query, this.viewerFor(principal), this.deps.clock.nowMs());
  }

  /**
   * The jobs the caller may read that ran and ended, as CSV chunks of the history export
   * (history-export.ts). @throws GpushareError 403 at once
   */
  history(principal: Principal, query: HistoryQuery): Iterable<string> {
    return historyExport(this.deps.store, principal, query);
  }

  /**
   * One job with its history. Its environment's values (often secrets) only to those who may read
   * its logs (an admin, its tenant's tenant-admin, the member who submitted it); others see the
   * names, each value `(hidden)`. @throws GpushareError 404
   */
  get(principal: Principal, id: number): JobDetailView {
    const job = this.visibleJob(principal, id, 'job.read');
    const { store } = this.deps;
    const detail = toJobDetail(
      job,
      { events: store.listEvents(id), attempts: store.listAttempts(id), usagePeak: store.getUsagePeak(id) },
      this.plane,
      this.viewerFor(principal),
    );
    if (isAllowed(principal, 'job.logs', { jobId: id, tenant: job.tenant, ownerTokenId: job.submittedByTokenId }))
      return detail;
    return {
      ...detail,
      environment: Object.fromEntries(Object.keys(detail.environment).map((name) => [name, HIDDEN_VALUE])),
    };
  }

  /**
   * Cancels a job: pending jobs at once; running ones are stopped and end as `cancelled`. @throws GpushareError 404,
   * 409
   */
  async cancel(principal: Principal, id: number): Promise<JobView> {
    const job = this.visibleJob(principal, id, 'job.cancel');
    if (isTerminal(job.state)) throw conflict(`job ${id} already ended (${job.state})`);
    const { store, clock } = this.deps;
    const nowMs = () => clock.nowMs();
    const who = cancellerDetails(principal);
    const cancelled = jobEventReason(JOB_EVENT_CODES.cancelled, who);
    if (job.state === 'pending' || job.state === 'preempted') {
      store.applyJobChanges([
        {
          jobId: id,
          atMs: nowMs(),
          expectState: job.state,
          to: 'cancelled',
          reason: cancelled,
          patch: { endedAtMs: nowMs() },
        },
      ]);
      this.plane.dequeue(id);
    } else {
      store.applyJobChanges([
        {
          jobId: id,
          atMs: nowMs(),
          expectState: job.state,
          patch: { reason: jobEventReason(JOB_EVENT_CODES.cancelRequested, who) },
        },
      ]);
      // Answer at once: the stop (signal, grace period, kill) goes on in the background.
      void this.plane.stopJob(id, { kind: 'cancelled', reason: cancelled });
    }
    return toJobView(store.getJob(id)!, this.plane, this.viewerFor(principal));
  }

  /**
   * Cancels the jobs a selector names, each as {@link cancel} would, in one store transaction
   * (bulk-cancel.ts). @throws GpushareError 403 (a caller who may cancel nothing), 409
   */
  cancelMany(principal: Principal, request: BulkCancel): BulkCancelResult {
    return bulkCancel({ plane: this.plane, store: this.deps.store, clock: this.deps.clock }, principal, request);
  }

  /**
   * Who `principal` is as a reader of reasons: an admin sees every job and tenant; anyone else
   * another tenant's job as "another tenant's job" (reason-viewer.ts).
   */
  viewerFor(principal: Principal): StatusViewer {
    return viewerFor(principal, (id) => this.deps.store.getJob(id)?.tenant ?? null);
  }

  /** Reads log text of one attempt from a byte offset. @throws GpushareError 404 */
  logs(
    principal: Principal,
    id: number,
    query: { stream: 'stdout' | 'stderr'; attempt?: number; offset: number },
  ): { attempt: number; text: string; nextOffset: number; ended: boolean } {
    const job = this.visibleJob(principal, id, 'job.logs');
    if (query.attempt !== undefined && (query.attempt > job.attempt || query.attempt < 1)) {
      throw invalidField(
        'attempt',
        `job ${id} has ${job.attempt === 0 ? 'not started yet' : `attempts 1..${job.attempt}`}, got ${query.attempt}`,
      );
    }
    const attempt = query.attempt ?? Math.max(1, job.attempt);
    const attemptEnded =
      isTerminal(job.state) ||
      attempt < job.attempt ||
      (attempt === job.attempt && (job.state === 'pending' || job.state === 'preempted'));
    // Only the folder the store records as this job's own (none before its first launch).
    const folder = job.folder;
    const size = folder === null ? null : this.deps.files.logSize(folder, attempt, query.stream);
    if (folder === null || size === null) return { attempt, text: '', nextOffset: query.offset, ended: attemptEnded };
    const length = Math.max(0, Math.min(size - query.offset, MAX_LOG_CHUNK_BYTES));
    const buffer = this.deps.files.readLog(folder, attempt, query.stream, query.offset, length);
    const nextOffset = query.offset + buffer.length;
    return { attempt, text: buffer.toString('utf8'), nextOffset, ended: attemptEnded && nextOffset >= size };
  }

  /**
   * Every GPU with its jobs. A tenant sees every GPU and its totals, but only its own jobs in the
   * lists: other tenants' jobs are counted in the allocation, never named.
   */
  gpus(principal: Principal): GpuView[] {
    authorize(principal, 'gpu.read');
    const views = toGpuViews(this.plane, (id) => this.deps.store.getJob(id));
    if (principal.role === 'admin') return views;
    return views.map((gpu) => ({ ...gpu, jobs: gpu.jobs.filter((j) => j.tenant === principal.tenant) }));
  }

  /** Takes a GPU out of service (no new jobs) or back. @throws GpushareError 403, 404 */
  setCordon(principal: Principal, index: number, cordoned: boolean): GpuView {
    authorize(principal, 'gpu.cordon');
    const gpu = this.plane.roster.inventoryGpus().find((g) => g.index === index);
    if (!gpu)
      throw gpuNotFound(
        index,
        this.plane.roster.inventoryGpus().map((g) => g.index),
      );
    const { store, clock } = this.deps;
    store.setGpuCordoned(gpu.uuid, cordoned, clock.nowMs());
    this.plane.updateGpus(null, store.listCordonedGpus());
    return this.gpus(principal).find((g) => g.index === index)!;
  }

  /** The job, when `principal` may do `action` to it. @throws GpushareError 404 (unknown or another tenant's), 403 */
  private visibleJob(principal: Principal, id: number, action: Action): JobRecord {
    const job = this.deps.store.getJob(id);
    if (!job) throw jobNotFound(id);
    authorize(principal, action, { jobId: id, tenant: job.tenant, ownerTokenId: job.submittedByTokenId });
    return job;
  }
}
