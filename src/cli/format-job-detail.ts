/**
 * The human view of `gpushare show ID`: the request (with whether the job is preemptible), the
 * placement (GPU index, uuid, milli, MiB, MIG profile, mode, simulated), what enforces its memory and
 * compute (`enforced:    memory not enforced, compute time-slice`), the events
 * with times and reasons, the attempts with why each ended (`preempted`, `exited`, `time-limit`,
 * ...; `running` for one still running), its peak measured GPU use and how the job ended.
 */
import type { JobDetailView } from '../contract/api.js';
import { formatGpuMilli, formatGpuRequest, jobAge } from '../contract/job-table.js';
import { formatShareEnforcement } from './format-enforcement.js';
import { formatHostMemoryRequest, formatJobHostLimits } from './format-host-limits.js';
import { formatTextTable } from './text-table.js';
import { escapeControlCharactersDeep } from '../lib/control-characters.js';

function orDash(value: string | number | null | undefined): string {
  return value === null || value === undefined || value === '' ? '-' : String(value);
}

/** Quotes an argv word for display when it holds spaces or shell characters. */
function shellWord(word: string): string {
  return /^[\w@%+=:,./-]+$/.test(word) ? word : `'${word.replace(/'/g, `'\\''`)}'`;
}

function formatRequest(job: JobDetailView): string {
  const memory = job.gpu.gpuMemoryMiB === null ? 'memory in proportion' : `${job.gpu.gpuMemoryMiB} MiB each`;
  const parts = [
    `gpu ${formatGpuRequest(job.gpu)} (${memory}), mode ${job.gpu.mode}`,
    `priority ${job.priority} (${job.priorityClass})`,
    job.preemptible ? 'preemptible' : 'not preemptible',
    `cpu ${job.cpuMilli === 0 ? 'none reserved' : `${job.cpuMilli} milli`}`,
    `host memory ${formatHostMemoryRequest(job.hostMemoryMiB, job.hostLimits)}`,
    `time limit ${job.timeLimitSeconds === null ? 'none' : `${job.timeLimitSeconds} s`}`,
    `retries ${job.retries}`,
  ];
  return parts.join(', ');
}

/**
 * `2 of at most 3`: the attempt, and how many attempts the retries allow. Preempted attempts do not
 * count against the retries, so with preemptions the line names them instead:
 * `3 (2 preempted, not counted against retries 1)`.
 */
function formatAttemptCount(job: JobDetailView): string {
  const preempted = job.attempts.filter((a) => a.endReason === 'preempted').length;
  if (preempted === 0) return `${job.attempt} of at most ${job.retries + 1}`;
  return `${job.attempt} (${preempted} preempted, not counted against retries ${job.retries})`;
}

/** Why an attempt ended (the API's endReason), or `running` while it runs. */
function attemptReason(attempt: JobDetailView['attempts'][number]): string {
  if (attempt.endReason !== null && attempt.endReason !== '') return attempt.endReason;
  return attempt.endedAt === null ? 'running' : '-';
}

function formatPlacement(job: JobDetailView): string[] {
  const placement = job.placement;
  if (placement === null) return ['placement:   none yet'];
  const lines = [
    `placement:   mode ${placement.mode}${placement.simulated ? '  [simulated]' : ''}`,
    `enforced:    ${formatShareEnforcement(placement.enforcement)}`,
  ];
  const rows = placement.gpus.map((gpu) => [
    String(gpu.index),
    gpu.uuid,
    `${gpu.gpuMilli} milli (${formatGpuMilli(gpu.gpuMilli)})` +
      `${gpu.accountedGpuMilli !== gpu.gpuMilli ? `, accounted ${gpu.accountedGpuMilli}` : ''}`,
    `${gpu.gpuMemoryMiB} MiB`,
    gpu.migProfile === null ? '-' : `${gpu.migProfile}${gpu.migDeviceUuid ? ` ${gpu.migDeviceUuid}` : ''}`,
  ]);
  lines.push(...indent(formatTextTable(['GPU', 'UUID', 'SHARE', 'MEMORY', 'MIG'], rows)));
  return lines;
}

/**
 * QoS lines (docs/qos.md): `qos:         step target 0.5 s: latest 0.62 s, VIOLATING, 1 violation(s)
 * so far`, one per target; `no report yet` before the first report, `not running` when the job
 * runs no attempt; nothing when the job declares no target.
 */
function formatQos(job: JobDetailView): string[] {
  if (!job.qos) return [];
  const targets: [string, number | undefined][] = [
    ['step', job.qos.targets.stepSeconds],
    ['latency', job.qos.targets.latencySeconds],
  ];
  return targets
    .filter(([, t]) => t !== undefined)
    .map(([kind, target], i) => {
      const label = i === 0 ? 'qos:         ' : '             ';
      const s = job.qos!.status.find((x) => x.kind === kind);
      if (!s) return `${label}${kind} target ${target} s: not running`;
      if (s.lastObservedSeconds === null)
        return `${label}${kind} target ${target} s: no report yet, ${s.violations} violation(s) so far`;
      const state = s.violating ? 'VIOLATING' : s.missingSince !== null ? `missing since ${s.missingSince}` : 'met';
      return (
        `${label}${kind} target ${target} s: latest ${s.lastObservedSeconds} s, ${state}, ${s.violations} ` +
        `violation(s) so far`
      );
    });
}

/**
 * `peak use:    10240 MiB GPU memory (on one GPU), 72.5% utilization`: the job's usage peak over all its
 * attempts (docs/server.md "Measured peaks"), `-` for a value never measured; `none measured` without one.
 */
function formatPeakUse(job: JobDetailView): string {
  const peak = job.usagePeak;
  if (!peak) return 'peak use:    none measured';
  const memory = peak.gpuMemoryMiB === null ? '-' : `${peak.gpuMemoryMiB} MiB`;
  const utilization = peak.gpuUtilizationPct === null ? '-' : `${peak.gpuUtilizationPct}%`;
  return `peak use:    ${memory} GPU memory (on one GPU), ${utilization} utilization`;
}

function indent(text: string, by = '  '): string[] {
  return text.split('\n').map((line) => `${by}${line}`);
}

/**
 * Formats a job with its history for people.
 * @param job - The job as `GET /jobs/:id` returns it.
 * @param nowMs - Current time in epoch milliseconds (for the age).
 * @returns Lines joined with newlines, without a final newline.
 */
export function formatJobDetail(received: JobDetailView, nowMs: number): string {
  // Every value as the terminal cannot act on it: a name stored before names were checked cannot forge lines.
  const job = escapeControlCharactersDeep(received);
  const ended =
    job.signal !== null ? `signal ${job.signal}` : job.exitCode !== null ? `exit code ${job.exitCode}` : '-';
  const lines = [
    `job ${job.id}: ${job.name}`,
    `tenant:      ${job.tenant}`,
    `state:       ${job.state}${job.reason ? ` (${job.reason})` : ''}`,
    `command:     ${job.command.map(shellWord).join(' ')}`,
    `workdir:     ${job.workingDirectory ?? '(private to the job)'}`,
    ...(job.workingDirectoryReason
      ? [`             ${job.workingDirectoryReason.reason} [${job.workingDirectoryReason.code}]`]
      : []),
    `request:     ${formatRequest(job)}`,
    ...formatQos(job),
    ...formatPlacement(job),
    ...formatJobHostLimits(job.hostLimits),
    formatPeakUse(job),
    `submitted:   ${job.submittedAt} (${jobAge(job, nowMs)} ago)`,
    `started:     ${orDash(job.startedAt)}`,
    `ended:       ${orDash(job.endedAt)}`,
    `attempt:     ${formatAttemptCount(job)}`,
    ...(job.pid !== null && job.pid !== undefined ? [`pid:         ${job.pid} (the command, on the host)`] : []),
    `exit:        ${ended}`,
  ];
  const env = Object.entries(job.environment);
  if (env.length > 0) {
    lines.push('environment:');
    lines.push(...env.map(([key, value]) => `  ${key}=${value}`));
  }
  lines.push('events:');
  lines.push(
    ...(job.events.length === 0
      ? ['  none']
      : indent(
          formatTextTable(
            ['TIME', 'FROM', 'TO', 'REASON'],
            job.events.map((e) => [e.at, orDash(e.from), e.to, orDash(e.reason)]),
          ),
        )),
  );
  lines.push('attempts:');
  lines.push(
    ...(job.attempts.length === 0
      ? ['  none']
      : indent(
          formatTextTable(
            ['#', 'STARTED', 'ENDED', 'EXIT', 'REASON'],
            job.attempts.map((a) => [
              String(a.attempt),
              a.startedAt,
              orDash(a.endedAt),
              a.signal !== null ? `signal ${a.signal}` : orDash(a.exitCode),
              attemptReason(a),
            ]),
          ),
        )),
  );
  return lines.join('\n');
}
