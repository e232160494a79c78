/**
 * `POST /api/v1/jobs/:id/qos-reports`: a running job's progress report, with authorization. A
 * job's report token may report only for its own job (403 otherwise, also checked route-wide by
 * src/app/auth/job-scope.ts); a tenant token for its tenant's jobs (another tenant's job is 404,
 * as everywhere); an admin token for any job. See docs/qos.md.
 */
import { conflict, forbidden, invalidField, jobNotFound } from '../errors.js';
import { authorize } from '../auth/authorize.js';
import type { Principal } from '../auth/tokens.js';
import type { ControlPlane } from '../scheduling/control-plane.js';
import type { Logger } from '../scheduling/plane-deps.js';
import type { Clock } from '../ports/clock.js';
import type { StateStore } from '../ports/state-store.js';
import { toQosStatusView } from '../services/views.js';
import type { QosReportBody, QosStatusView } from '../../contract/api.js';
import { publishQosChanges } from './qos-publish.js';
import { QOS_KINDS, QOS_REPORT_FIELDS } from './qos-tracker.js';

/** Progress reports of running jobs. */
export class QosService {
  constructor(
    private readonly plane: ControlPlane,
    private readonly store: StateStore,
    private readonly clock: Clock,
    private readonly logger: Logger,
  ) {}

  /**
   * Records a report for job `jobId` and judges it (a violation or recovery is stored as a job event,
   * emitted and logged).
   * @returns the job's QoS state after the report
   * @throws GpushareError 403 (another job's token), 404 (no such job visible to the caller), 409
   *   (the job is not running), 400 (a value for a kind the job declares no target for)
   */
  report(principal: Principal, jobId: number, body: QosReportBody): { jobId: number; status: QosStatusView[] } {
    if (principal.role === 'job' && principal.jobId !== jobId)
      throw forbidden(`this job token belongs to job ${principal.jobId} and cannot report for job ${jobId}`);
    const job = this.store.getJob(jobId);
    if (!job) throw jobNotFound(jobId);
    authorize(principal, 'job.report', { jobId, tenant: job.tenant, ownerTokenId: job.submittedByTokenId });
    if (job.state !== 'running')
      throw conflict(`job ${jobId} is ${job.state}: reports are accepted only while it runs`);
    if (!job.qos)
      throw invalidField(
        'qos',
        `job ${jobId} declares no QoS target (submit it with --qos-step-seconds or --qos-latency-seconds)`,
      );
    const { qos } = this.plane;
    if (!qos.isTracked(jobId))
      qos.track({
        jobId,
        tenant: job.tenant,
        priority: job.priority,
        gpuIndices: job.placement?.gpus.map((g) => g.index) ?? [],
        targets: job.qos,
      });
    const declared = qos.kindsOf(jobId);
    for (const kind of QOS_KINDS) {
      const field = QOS_REPORT_FIELDS[kind];
      if (body[field] !== undefined && !declared.includes(kind))
        throw invalidField(
          field,
          `job ${jobId} declares no ${kind} target; it may report ` +
            `${declared.map((k) => QOS_REPORT_FIELDS[k]).join(', ')}`,
          declared.map((k) => QOS_REPORT_FIELDS[k]),
        );
    }
    const atMs = this.clock.nowMs();
    const changes = qos.report(jobId, body, atMs);
    for (const kind of QOS_KINDS)
      if (body[QOS_REPORT_FIELDS[kind]] !== undefined)
        this.plane.events.emit({ type: 'qos', jobId, tenant: job.tenant, kind: 'report', qosKind: kind, atMs });
    publishQosChanges(
      {
        store: this.store,
        logger: this.logger,
        events: this.plane.events,
        requestPass: () => this.plane.reschedule('qos-changed'),
      },
      changes,
    );
    return { jobId, status: qos.statusesOf(jobId).map(toQosStatusView) };
  }
}
