/**
 * Time-slicing of shared GPUs: on each time-sliced GPU with two or more runnable jobs, one job
 * at a time is thawed for its slice of the period (in proportion to its gpuMilli, see
 * `planTimeslices`) while every other job of that GPU is frozen. Freezing stops new CPU work,
 * hence new GPU work; kernels already queued on the GPU still finish.
 */
import { planTimeslices, type Timeslice } from '../../core/index.js';
import type { Clock, Timer } from '../ports/clock.js';
import type { ProcessHandle, ProcessLauncher } from '../ports/process-launcher.js';

/** A runnable job on a time-sliced GPU. */
export interface RotatedJob {
  readonly jobId: number;
  /** The job's share of the GPU, milli-GPU (> 0): the weight of its slice. */
  readonly gpuMilli: number;
  readonly handle: ProcessHandle;
}

/** Options of {@link TimesliceRotator}. */
export interface TimesliceRotatorOptions {
  /** Length of one rotation over all jobs of a GPU, milliseconds; default 1000. */
  readonly periodMs?: number;
  /** Where failed freezes and thaws are reported (they never throw out of the rotation). */
  readonly logger?: { warn(obj: object, msg?: string): void };
}

/** Diagnostics of one job in a rotation. */
export interface TimesliceJobStats {
  readonly gpuKey: string;
  readonly jobId: number;
  readonly gpuMilli: number;
  /** Slices the job has been given (thawed alone), since it joined the rotation. */
  readonly slices: number;
  /** Wall time of those slices, milliseconds. */
  readonly runMs: number;
}

/** The rotation state of one GPU. All changes run one at a time on `chain`. */
interface Ring {
  jobs: Map<number, RotatedJob>;
  plan: Timeslice[];
  frozen: Set<number>;
  current: number | null;
  turnStartedMs: number;
  timer: Timer | null;
  chain: Promise<void>;
  stats: Map<number, { slices: number; runMs: number }>;
}

/** Rotates the runnable jobs of each time-sliced GPU; see the file comment. */
export class TimesliceRotator {
  private readonly periodMs: number;
  private readonly rings = new Map<string, Ring>();
  private stopped = false;

  /** Throws RangeError when `options.periodMs` is not a positive integer. */
  constructor(
    private readonly launcher: ProcessLauncher,
    private readonly clock: Clock,
    private readonly options: TimesliceRotatorOptions = {},
  ) {
    this.periodMs = options.periodMs ?? 1000;
    if (!Number.isSafeInteger(this.periodMs) || this.periodMs <= 0) {
      throw new RangeError(`periodMs must be a positive integer, got ${this.periodMs}`);
    }
  }

  /**
   * Sets the runnable jobs of GPU `gpuKey`. With 0 or 1 job nothing is frozen (a single job is
   * thawed and runs alone); with 2 or more the rotation starts or continues with the new set.
   * Jobs that left the set are thawed. Resolves once applied; after `stop()` it does nothing.
   * Throws RangeError for a bad `gpuMilli` or a repeated job.
   */
  setRunnable(gpuKey: string, jobs: readonly RotatedJob[]): Promise<void> {
    if (this.stopped) return Promise.resolve();
    const plan = planTimeslices(jobs, this.periodMs);
    let ring = this.rings.get(gpuKey);
    if (ring === undefined) {
      ring = {
        jobs: new Map(),
        plan: [],
        frozen: new Set(),
        current: null,
        turnStartedMs: 0,
        timer: null,
        chain: Promise.resolve(),
        stats: new Map(),
      };
      this.rings.set(gpuKey, ring);
    }
    const target = ring;
    return this.enqueue(target, () => this.apply(gpuKey, target, new Map(jobs.map((j) => [j.jobId, j])), plan));
  }

  /** Takes job `jobId` out of every rotation (thawing it). Resolves once applied; after `stop()` it does nothing. */
  remove(jobId: number): Promise<void> {
    const pending: Promise<void>[] = [];
    for (const [gpuKey, ring] of this.rings) {
      if (!ring.jobs.has(jobId) || this.stopped) continue;
      const jobs = [...ring.jobs.values()].filter((j) => j.jobId !== jobId);
      pending.push(this.setRunnable(gpuKey, jobs));
    }
    return Promise.all(pending).then(() => undefined);
  }

  /** Stops every rotation: clears the timers and thaws every job it froze. Later calls do nothing. */
  async stop(): Promise<void> {
    this.stopped = true;
    for (const ring of this.rings.values()) {
      ring.timer?.cancel();
      ring.timer = null;
      await ring.chain;
      await this.endTurn(ring);
      for (const jobId of [...ring.frozen]) await this.thawJob(ring, jobId);
    }
    this.rings.clear();
  }

  /** Slices given so far to each job now in a rotation, by GPU then job id. */
  stats(): TimesliceJobStats[] {
    const out: TimesliceJobStats[] = [];
    for (const [gpuKey, ring] of [...this.rings].sort(([a], [b]) => a.localeCompare(b))) {
      for (const slice of ring.plan) {
        const s = ring.stats.get(slice.jobId) ?? { slices: 0, runMs: 0 };
        const gpuMilli = ring.jobs.get(slice.jobId)?.gpuMilli ?? 0;
        out.push({ gpuKey, jobId: slice.jobId, gpuMilli, slices: s.slices, runMs: Math.round(s.runMs) });
      }
    }
    return out;
  }

  /** Runs `work` after everything queued on `ring`; errors are reported, never thrown. */
  private enqueue(ring: Ring, work: () => Promise<void>): Promise<void> {
    ring.chain = ring.chain
      .then(work)
      .catch((error: unknown) => this.options.logger?.warn({ err: error }, 'time-slice rotation step failed'));
    return ring.chain;
  }

  /** Applies a new job set to a ring. */
  private async apply(gpuKey: string, ring: Ring, jobs: Map<number, RotatedJob>, plan: Timeslice[]): Promise<void> {
    if (this.stopped) return;
    for (const jobId of [...ring.jobs.keys()]) {
      if (jobs.has(jobId)) continue;
      if (ring.current === jobId) await this.endTurn(ring);
      await this.thawJob(ring, jobId);
      ring.stats.delete(jobId);
    }
    ring.jobs = jobs;
    ring.plan = plan;
    if (jobs.size <= 1) {
      ring.timer?.cancel();
      ring.timer = null;
      await this.endTurn(ring);
      for (const jobId of [...ring.frozen]) await this.thawJob(ring, jobId);
      if (jobs.size === 0) this.rings.delete(gpuKey);
      return;
    }
    if (ring.current === null) {
      await this.startTurn(ring, null);
      return;
    }
    for (const jobId of jobs.keys())
      if (jobId !== ring.current && !ring.frozen.has(jobId)) await this.freezeJob(ring, jobId);
  }

  /** Gives the next live job after `afterJobId` (in plan order) its slice, freezing the others first. */
  private async startTurn(ring: Ring, afterJobId: number | null): Promise<void> {
    const plan = ring.plan;
    const start =
      afterJobId === null
        ? 0
        : Math.max(
            0,
            plan.findIndex((s) => s.jobId > afterJobId),
          );
    for (let k = 0; k < plan.length; k += 1) {
      const slice = plan[(start + k) % plan.length];
      const job = slice === undefined ? undefined : ring.jobs.get(slice.jobId);
      // exited: skip its turn
      if (slice === undefined || job === undefined || !this.launcher.isAlive(job.handle)) continue;
      for (const other of ring.jobs.keys())
        if (other !== slice.jobId && !ring.frozen.has(other)) await this.freezeJob(ring, other);
      await this.thawJob(ring, slice.jobId);
      ring.current = slice.jobId;
      ring.turnStartedMs = this.clock.monotonicMs();
      const s = ring.stats.get(slice.jobId) ?? { slices: 0, runMs: 0 };
      s.slices += 1;
      ring.stats.set(slice.jobId, s);
      ring.timer = this.clock.after(slice.sliceMs, () => {
        ring.timer = null;
        void this.enqueue(ring, async () => {
          if (this.stopped || ring.current === null) return;
          const previous = ring.current;
          await this.endTurn(ring);
          await this.freezeJob(ring, previous);
          await this.startTurn(ring, previous);
        });
      });
      return;
    }
    ring.current = null; // no live job: the next setRunnable restarts the rotation
  }

  /** Ends the current turn (books its run time); the job stays thawed. */
  private async endTurn(ring: Ring): Promise<void> {
    if (ring.current === null) return;
    const s = ring.stats.get(ring.current);
    if (s !== undefined) s.runMs += this.clock.monotonicMs() - ring.turnStartedMs;
    ring.current = null;
  }

  /** Freezes a job of the ring; a failure (e.g. the job exited) is reported, not thrown. */
  private async freezeJob(ring: Ring, jobId: number): Promise<void> {
    const job = ring.jobs.get(jobId);
    if (job === undefined) return;
    try {
      await this.launcher.freeze(job.handle);
      ring.frozen.add(jobId);
    } catch (error) {
      this.options.logger?.warn({ jobId, err: error }, 'time-slice freeze failed');
    }
  }

  /** Thaws a job of the ring if it froze it; a failure is reported, not thrown. */
  private async thawJob(ring: Ring, jobId: number): Promise<void> {
    const job = ring.jobs.get(jobId);
    ring.frozen.delete(jobId);
    if (job === undefined) return;
    try {
      await this.launcher.thaw(job.handle);
    } catch (error) {
      this.options.logger?.warn({ jobId, err: error }, 'time-slice thaw failed');
    }
  }
}
