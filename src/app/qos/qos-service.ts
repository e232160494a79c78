/**
 * `POST /api/v1/jobs/:id/qos-reports`: a running job's report, with authorization: its progress
 * against its QoS targets (docs/qos.md) and the GPU memory and utilization it uses (its usage peak,
 * docs/server.md "Measured peaks"). A job's report token may report only for its own job (403
 * otherwise, also checked route-wide by src/app/auth/job-scope.ts); a tenant token for its tenant's
 * jobs (another tenant's job is 404, as everywhere); an admin token for any job.
 */
import { conflict, forbidden, invalidField, jobNotFound } from '../errors.js';
import { authorize } from '../auth/authorize.js';
import type { Principal } from '../auth/tokens.js';
import type { ControlPlane } from '../scheduling/control-plane.js';
import type { Logger } from '../scheduling/plane-deps.js';
import type { Clock } from '../ports/clock.js';
import type { JobRecord, StateStore } from '../ports/state-store.js';
import { toQosStatusView, toUsagePeakView } from '../services/views.js';
import type { QosReportBody, QosReportResult } from '../../contract/api.js';
import { publishQosChanges } from './qos-publish.js';
import { QOS_KINDS, QOS_REPORT_FIELDS, qosTrackedJobOf } from './qos-tracker.js';

/** Reports of running jobs. */
export class QosService {
  constructor(
    private readonly plane: ControlPlane,
    private readonly store: StateStore,
    private readonly clock: Clock,
    private readonly logger: Logger,
  ) {}

  /**
   * Records a report for job `jobId`: progress values are judged against the job's targets (a
   * violation or recovery is stored as a job event, emitted and logged); usage values raise the
   * job's stored usage peak where they are higher.
   * @returns the job's QoS state and usage peak after the report
   * @throws GpushareError 403 (another job's token), 404 (no such job visible to the caller), 409
   *   (the job is not running), 422 (a progress value for a kind the job declares no target for)
   */
  report(principal: Principal, jobId: number, body: QosReportBody): QosReportResult {
    if (principal.role === 'job' && principal.jobId !== jobId)
      throw forbidden(`this job token belongs to job ${principal.jobId} and cannot report for job ${jobId}`);
    const job = this.store.getJob(jobId);
    if (!job) throw jobNotFound(jobId);
    authorize(principal, 'job.report', { jobId, tenant: job.tenant, ownerTokenId: job.submittedByTokenId });
    if (job.state !== 'running')
      throw conflict(`job ${jobId} is ${job.state}: reports are accepted only while it runs`);
    const progress = QOS_KINDS.some((kind) => body[QOS_REPORT_FIELDS[kind]] !== undefined);
    if (progress && !job.qos)
      throw invalidField(
        'qos',
        `job ${jobId} declares no QoS target (submit it with --qos-step-seconds or --qos-latency-seconds); ` +
          'it may report gpuMemoryUsedMiB and gpuUtilizationPct',
      );
    if (job.qos) this.trackQos(job);
    const atMs = this.clock.nowMs();
    if (progress) this.reportProgress(job, body, atMs);
    const usage = body.gpuMemoryUsedMiB !== undefined || body.gpuUtilizationPct !== undefined;
    const { peak, raised } = usage
      ? this.plane.peaks.report(
          { jobId, gpuMemoryMiB: body.gpuMemoryUsedMiB ?? null, gpuUtilizationPct: body.gpuUtilizationPct ?? null },
          atMs,
        )
      : { peak: this.store.getUsagePeak(jobId), raised: false };
    return {
      jobId,
      status: this.plane.qos.statusesOf(jobId).map(toQosStatusView),
      usagePeak: toUsagePeakView(peak),
      peakRaised: raised,
    };
  }

  /** Starts tracking a running job's QoS targets, unless it is tracked already. */
  private trackQos(job: JobRecord): void {
    const tracked = qosTrackedJobOf(job);
    if (tracked && !this.plane.qos.isTracked(job.id)) this.plane.qos.track(tracked);
  }

  /**
   * Judges progress values against the job's targets.
   * @throws GpushareError 422 for a kind it declares no target for
   */
  private reportProgress(job: JobRecord, body: QosReportBody, atMs: number): void {
    const { qos } = this.plane;
    const declared = qos.kindsOf(job.id);
    for (const kind of QOS_KINDS) {
      const field = QOS_REPORT_FIELDS[kind];
      if (body[field] !== undefined && !declared.includes(kind))
        throw invalidField(
          field,
          `job ${job.id} declares no ${kind} target; it may report ` +
            `${declared.map((k) => QOS_REPORT_FIELDS[k]).join(', ')}`,
          declared.map((k) => QOS_REPORT_FIELDS[k]),
        );
    }
    const changes = qos.report(job.id, body, atMs);
    for (const kind of QOS_KINDS)
      if (body[QOS_REPORT_FIELDS[kind]] !== undefined)
        this.plane.events.emit({ type: 'qos', jobId: job.id, tenant: job.tenant, kind: 'report', qosKind: kind, atMs });
    publishQosChanges(
      {
        store: this.store,
        logger: this.logger,
        events: this.plane.events,
        requestPass: () => this.plane.reschedule('qos-changed'),
      },
      changes,
    );
  }
}
