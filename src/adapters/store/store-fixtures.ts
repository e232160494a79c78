/**
 * Sample values for state store tests and benchmarks: a valid job, placements with nested GPUs,
 * a process handle.
 */
import { JOB_EVENT_CODES, jobEventReason, type JobEventReason, type Placement } from '../../core/index.js';
import type { ProcessHandle } from '../../app/ports/process-launcher.js';
import type { NewJob } from '../../app/ports/state-store.js';

/** A valid job for tenant `tenant` (fields overridable). */
export function sampleJob(tenant: string, overrides: Partial<NewJob> = {}): NewJob {
  return {
    name: 'train',
    tenant,
    command: ['/usr/bin/python3', 'train.py', '--epochs', '3', 'ünïcode ✓'],
    workingDirectory: '/home/alice/work',
    environment: { PATH: '/usr/bin:/bin', EMPTY: '', QUOTE: 'a "b" \\ c' },
    priority: 500,
    timeLimitSeconds: 3600,
    retries: 2,
    preemptible: true,
    cpuMilli: 4000,
    hostMemoryMiB: 16384,
    gpu: { gpuCount: 1, gpuMilli: 500, gpuMemoryMiB: null, mode: 'auto' },
    ...overrides,
  };
}

/** A two-GPU MIG placement (nested instances). */
export const MIG_PLACEMENT: Placement = {
  mode: 'mig',
  gpus: [
    {
      index: 0,
      uuid: 'GPU-aaaa',
      gpuMilli: 429,
      accountedGpuMilli: 0,
      gpuMemoryMiB: 40192,
      mig: { profileId: 9, profileName: '3g.40gb', start: 4, size: 4, computeSlices: 3 },
    },
    {
      index: 3,
      uuid: 'GPU-dddd',
      gpuMilli: 429,
      accountedGpuMilli: 0,
      gpuMemoryMiB: 40192,
      mig: { profileId: 9, profileName: '3g.40gb', start: 0, size: 4, computeSlices: 3 },
    },
  ],
};

/** A one-GPU time-sliced placement. */
export const SHARED_PLACEMENT: Placement = {
  mode: 'timeslice',
  gpus: [{ index: 1, uuid: 'GPU-bbbb', gpuMilli: 250, accountedGpuMilli: 125, gpuMemoryMiB: 10240, mig: null }],
};

/** A process handle as the launcher makes one. */
export const HANDLE: ProcessHandle = {
  supervisorPid: 4242,
  supervisorStartTime: '123456789',
  jobPid: null,
  cgroupKey: 'job-1-a1',
  freezerKind: 'cgroup-v2',
  stdoutPath: '/var/lib/gpushare/jobs/1/attempt-1.stdout',
  stderrPath: '/var/lib/gpushare/jobs/1/attempt-1.stderr',
  pidPath: '/var/lib/gpushare/jobs/1/attempt-1.pid',
  outcomePath: '/var/lib/gpushare/jobs/1/attempt-1.outcome.json',
};

/** A reason for store tests, whose content the store only keeps: a `recorded` reason with `text`. */
export function note(text: string): JobEventReason {
  return jobEventReason(JOB_EVENT_CODES.recorded, { text });
}
