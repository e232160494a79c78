/**
 * The GPU actions of the control plane, recorded in the audit log from its events
 * (plane-events.ts): `gpu.allocate` (a pass placed a job on GPUs), `job.launch` (an attempt
 * started), `job.preempt` (a pass chose a job to preempt), `job.checkpoint` (a preempted job's
 * attempt ended on the checkpoint signal; it resumes from its checkpoint) and `mig.reconfigure`
 * (MIG instances destroyed or created for a launch). The actor is `scheduler` for what a pass
 * decides and `server` for what a launch does; role `server`.
 */
import type { JobRecord } from '../ports/state-store.js';
import type { PlaneEvent } from '../scheduling/plane-events.js';
import type { AuditRecord } from './audit-recorder.js';
import type { JsonValue, NewAuditEntry } from '../ports/audit-log.js';
import type { JobEventReason } from '../../core/index.js';

const OK = { result: 'ok', httpStatus: null, message: null } as const;

/** What {@link auditPlaneEvents} needs. */
export interface PlaneAuditDeps {
  readonly record: AuditRecord;
  /** A job as stored now (its tenant and placement), null when unknown. */
  readonly job: (id: number) => JobRecord | null;
  /** The clock, ms since the epoch (for events that carry no time). */
  readonly nowMs: () => number;
}

/**
 * A reason as an audit summary keeps it: its code and details (the audit view writes its line for
 * each viewer, src/adapters/http/audit-view-redaction.ts); null for none.
 */
function codedReason(reason: JobEventReason | null): JsonValue {
  return reason === null ? null : ({ code: reason.code, details: reason.details } as unknown as JsonValue);
}

/** A listener for `PlaneEvents.on` that records the GPU actions (see the module comment). */
export function auditPlaneEvents(deps: PlaneAuditDeps): (event: PlaneEvent) => void {
  const entry = (fields: Omit<NewAuditEntry, 'outcome' | 'role'>): void =>
    deps.record({ ...fields, role: 'server', outcome: OK });
  return (event) => {
    if (event.type === 'job') {
      const base = { atMs: event.atMs, tenant: event.tenant, target: `job ${event.jobId}` };
      if (event.to === 'scheduled') {
        const placement = deps.job(event.jobId)?.placement ?? null;
        const gpus = placement?.gpus.map((g) => g.index) ?? [];
        entry({
          ...base,
          actor: 'scheduler',
          action: 'gpu.allocate',
          summary: { gpus, mode: placement?.mode ?? event.mode, reason: codedReason(event.reason) },
        });
      } else if (event.to === 'running') {
        entry({
          ...base,
          actor: 'server',
          action: 'job.launch',
          summary: { attempt: deps.job(event.jobId)?.attempt ?? null, reason: codedReason(event.reason) },
        });
      } else if (event.to === 'preempted' && event.from === 'running') {
        entry({
          ...base,
          actor: 'server',
          action: 'job.checkpoint',
          summary: { attempt: deps.job(event.jobId)?.attempt ?? null, reason: codedReason(event.reason) },
        });
      }
    } else if (event.type === 'preemption') {
      for (const victimId of event.victimIds) {
        entry({
          atMs: event.atMs,
          tenant: deps.job(victimId)?.tenant ?? null,
          target: `job ${victimId}`,
          actor: 'scheduler',
          action: 'job.preempt',
          summary: { preemptorJobId: event.preemptorId, reason: codedReason(event.reason) },
        });
      }
    } else if (event.type === 'mig-reconfigured') {
      const job = event.jobId === undefined ? null : deps.job(event.jobId);
      entry({
        atMs: deps.nowMs(),
        tenant: job?.tenant ?? null,
        target: `gpu ${event.gpuIndices.join(',')}`,
        actor: 'server',
        action: 'mig.reconfigure',
        summary: { gpus: [...event.gpuIndices], reconfigured: event.count, jobId: event.jobId ?? null },
      });
    }
  };
}
