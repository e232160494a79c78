/**
 * Which job a GPU process belongs to. The supervisor starts each job's command as the leader of a
 * new session and process group (src/adapters/process/supervisor.ts: `spawn(..., { detached: true })`
 * calls setsid), so the command's pid (`ProcessHandle.jobPid`) is the session id and the process
 * group id of every process the job starts, unless one of them leaves with setsid/setpgid. A
 * process is the job's when its pid, process group id (field 5 of `/proc/<pid>/stat`) or session
 * id (field 6) is the job's pid. Processes of no job (other users, the MPS server) are ignored.
 */
import type { UsageJobInput } from '../../app/ports/gpu-usage.js';

/** The fields of `/proc/<pid>/stat` the mapping reads (see src/adapters/process/proc-identity.ts). */
export interface ProcessIds {
  readonly pid: number;
  /** Process group id. */
  readonly pgrp: number;
  /** Session id. */
  readonly session: number;
}

/**
 * Maps pids to job ids (pure but for `readIds`). A pid whose process is gone (`readIds` returns
 * null) is still matched when it is itself a job's pid.
 * @param pids the pids nvidia-smi reported
 * @param jobs running jobs; those with a null `jobPid` match nothing
 * @param readIds reads a process's ids, null when it does not exist
 * @returns job id by pid, for the pids that belong to a job
 */
export function jobsOfPids(
  pids: readonly number[],
  jobs: readonly UsageJobInput[],
  readIds: (pid: number) => ProcessIds | null,
): Map<number, number> {
  const byLeader = new Map<number, number>();
  for (const job of jobs) if (job.jobPid !== null && job.jobPid > 0) byLeader.set(job.jobPid, job.jobId);
  const result = new Map<number, number>();
  for (const pid of new Set(pids)) {
    const ids = readIds(pid);
    const jobId =
      byLeader.get(pid) ?? (ids === null ? undefined : (byLeader.get(ids.session) ?? byLeader.get(ids.pgrp)));
    if (jobId !== undefined) result.set(pid, jobId);
  }
  return result;
}
