/**
 * The one-time conversion of reasons stored as text (schema versions 1-10) into coded reasons
 * (schema version 11, docs/decisions/0026): run once by the migration, inside its transaction,
 * and never again; nothing else reads a reason's text. A text that matches none of the forms
 * gpushare wrote becomes `recorded` with the text, shown to admins only.
 */
import { jobEventReason, JOB_EVENT_CODES as C, type JobEventReason } from '../../core/index.js';

/** `an admin` / `tenant a` (+ `: note`) as the cancel reasons wrote them. */
function canceller(words: string): { by: string; tenant: string | null; note: string | null } {
  const colon = words.indexOf(': ');
  const who = colon < 0 ? words : words.slice(0, colon);
  const note = colon < 0 ? null : words.slice(colon + 2);
  if (who === 'an admin') return { by: 'admin', tenant: null, note };
  return { by: 'tenant', tenant: who.startsWith('tenant ') ? who.slice('tenant '.length) : who, note };
}

const PREEMPTOR = /^preempted by job (\d+) \(priority (-?\d+), tenant (.*)\)$/;
const PLACED = /^placed on (.+?) in mode (\w+)(?:: (.*))?$/;
const QOS_VIOLATION = /^QoS violation: (\S+) (\S+) s > target (\S+) s for (\S+) s$/;
const QOS_RECOVERED = /^QoS recovered: (\S+) (\S+) s ≤ target (\S+) s$/;

function preemptorDetails(text: string): Record<string, number | string> | null {
  const m = PREEMPTOR.exec(text);
  return m === null ? null : { preemptorJobId: Number(m[1]), preemptorPriority: Number(m[2]), preemptorTenant: m[3]! };
}

/**
 * The coded reason of a stored text (a job's or a transition's reason, or an attempt's end, whose
 * `exited` takes the attempt's exit code from `exitCode`).
 */
export function legacyReason(text: string, exitCode: number | null = null): JobEventReason {
  let m: RegExpExecArray | null;
  if (text === 'exited') return jobEventReason(C.exited, { exitCode: exitCode ?? 0 });
  if (text === 'lost') return jobEventReason(C.lost);
  if (text === 'time-limit') return jobEventReason(C.timeLimit);
  if (text === 'preempted') return jobEventReason(C.preempted);
  if (text === 're-queued: the server stopped while launching it') return jobEventReason(C.requeuedAfterStop);
  if (text === 're-queued: the disk was full at launch') return jobEventReason(C.requeuedDiskFull);
  if ((m = /^exit code (-?\d+)$/.exec(text))) return jobEventReason(C.exited, { exitCode: Number(m[1]) });
  if ((m = /^killed by (\S+)$/.exec(text))) return jobEventReason(C.killed, { signal: m[1]! });
  if ((m = /^attempt (\d+) started(?: \(pid (\d+)\))?$/.exec(text)))
    return jobEventReason(C.attemptStarted, { attempt: Number(m[1]), pid: m[2] === undefined ? null : Number(m[2]) });
  if ((m = /^attempt (\d+) had started before the restart$/.exec(text)))
    return jobEventReason(C.attemptRecovered, { attempt: Number(m[1]) });
  if ((m = /^retry (\d+) of (\d+) after (.*)$/.exec(text)))
    return jobEventReason(C.retry, { retry: Number(m[1]), retries: Number(m[2]), failure: legacyReason(m[3]!) });
  if ((m = /^cancel requested by (.*)$/.exec(text))) return jobEventReason(C.cancelRequested, canceller(m[1]!));
  if ((m = /^cancelled by (.*)$/.exec(text))) return jobEventReason(C.cancelled, canceller(m[1]!));
  if ((m = /^preemption requested: (.*)$/.exec(text))) {
    const details = preemptorDetails(m[1]!);
    if (details !== null) return jobEventReason(C.preemptionRequested, details);
  }
  const preemptor = preemptorDetails(text);
  if (preemptor !== null) return jobEventReason(C.preempted, preemptor);
  if ((m = /^launch failed: (.*)$/.exec(text))) return jobEventReason(C.launchFailed, { error: m[1]! });
  if (text.startsWith('could not start')) return jobEventReason(C.couldNotStart, { error: text });
  if ((m = QOS_VIOLATION.exec(text)))
    return jobEventReason(C.qosViolation, {
      kind: m[1]!,
      observedSeconds: Number(m[2]),
      targetSeconds: Number(m[3]),
      violationSeconds: Number(m[4]),
    });
  if ((m = QOS_RECOVERED.exec(text)))
    return jobEventReason(C.qosRecovered, { kind: m[1]!, observedSeconds: Number(m[2]), targetSeconds: Number(m[3]) });
  if ((m = PLACED.exec(text))) {
    const gpus = m[1]!.split(', ').map((g) => {
      const gpu = /^GPU (\d+)(?: \((.+)\))?$/.exec(g);
      return { gpuIndex: gpu === null ? -1 : Number(gpu[1]), migProfile: gpu?.[2] ?? null };
    });
    if (gpus.every((g) => g.gpuIndex >= 0))
      return jobEventReason(C.placed, { gpus, mode: m[2]!, modeChoice: m[3] ?? null });
  }
  return jobEventReason(C.recorded, { text });
}
