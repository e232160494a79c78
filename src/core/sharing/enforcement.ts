/**
 * What holds a job to its GPU share, per resource (docs/sharing-modes.md "What is enforced"):
 *
 * | mode | GPU memory | compute |
 * |---|---|---|
 * | `mig` | `hardware` (the MIG instance's memory slices) | `hardware` (its compute slices) |
 * | `exclusive` | `exclusive` (the whole GPU is the job's) | `exclusive` |
 * | `mps`, client of the GPU's running MPS daemon | `driver-per-process` (CUDA_MPS_PINNED_DEVICE_MEM_LIMIT caps each
 * CUDA process of the job, not the job as a whole) | `driver-per-process` (CUDA_MPS_ACTIVE_THREAD_PERCENTAGE, per
 * process) |
 * | `mps` without a daemon | `not-enforced` (scheduler accounting only) | `not-enforced` |
 * | `timeslice` | `not-enforced` (jobs share the GPU's memory) | `time-slice` (the server freezes the other jobs in
 * turn) |
 */
import type { EffectiveMode } from '../model/request.js';

/** How one resource of a GPU share is enforced, strongest first. */
export const ENFORCEMENT_LEVELS = [
  'hardware',
  'exclusive',
  'driver-per-process',
  'time-slice',
  'not-enforced',
] as const;
/** One of `ENFORCEMENT_LEVELS`. */
export type EnforcementLevel = (typeof ENFORCEMENT_LEVELS)[number];

/** What enforces a GPU share's memory and compute. */
export interface ShareEnforcement {
  readonly gpuMemory: EnforcementLevel;
  readonly compute: EnforcementLevel;
}

/**
 * The enforcement of a share in `mode`. `mpsClient`: the job runs as a client of its GPU's MPS
 * daemon, which is running (ignored for other modes). Pure.
 */
export function enforcementOf(mode: EffectiveMode, mpsClient: boolean): ShareEnforcement {
  switch (mode) {
    case 'mig':
      return { gpuMemory: 'hardware', compute: 'hardware' };
    case 'exclusive':
      return { gpuMemory: 'exclusive', compute: 'exclusive' };
    case 'mps':
      return mpsClient
        ? { gpuMemory: 'driver-per-process', compute: 'driver-per-process' }
        : { gpuMemory: 'not-enforced', compute: 'not-enforced' };
    case 'timeslice':
      return { gpuMemory: 'not-enforced', compute: 'time-slice' };
  }
}

/**
 * The enforcement of a GPU holding jobs of `mode`: per resource, the weakest level among its jobs
 * (`jobs`: each job's enforcement). Null for a GPU without jobs.
 */
export function weakestEnforcement(jobs: readonly ShareEnforcement[]): ShareEnforcement | null {
  if (jobs.length === 0) return null;
  const weakest = (pick: (e: ShareEnforcement) => EnforcementLevel): EnforcementLevel =>
    jobs.map(pick).reduce((a, b) => (ENFORCEMENT_LEVELS.indexOf(b) > ENFORCEMENT_LEVELS.indexOf(a) ? b : a));
  return { gpuMemory: weakest((e) => e.gpuMemory), compute: weakest((e) => e.compute) };
}
