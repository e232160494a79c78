/**
 * Measures GPU usage at a fixed interval (config `usagePollIntervalSeconds`, default 5) and keeps
 * the latest sample in a {@link LatestUsage}. Polls never overlap: a poll that is still running
 * when the next is due makes that one skip. A failed measurement clears the sample (readers then
 * fall back to the inventory's values) and is logged once until a measurement succeeds again.
 * Each sample also goes to `onSample` (the per-job peaks: usage-peaks.ts) with the input it measured.
 */
import type { Clock, Timer } from '../ports/clock.js';
import type { GpuUsageSample, GpuUsageSampler, UsageInput } from '../ports/gpu-usage.js';
import type { Logger } from '../scheduling/plane-deps.js';
import type { LatestUsage } from './latest-usage.js';

/** What a poller needs. */
export interface UsagePollerDeps {
  readonly sampler: GpuUsageSampler;
  /** The GPUs and running jobs to measure, read at each poll. */
  readonly input: () => UsageInput;
  /** Where the latest sample goes. */
  readonly sink: LatestUsage;
  /** Called with each sample and the input it measured, after the sink has it (must not throw). */
  readonly onSample?: (input: UsageInput, sample: GpuUsageSample) => void;
  /** Time between polls, ms (> 0). */
  readonly intervalMs: number;
  readonly clock: Clock;
  readonly logger: Logger;
}

/** Polls a sampler into a sink. */
export class UsagePoller {
  private timer: Timer | null = null;
  private inFlight: Promise<void> | null = null;
  private failing = false;
  private stopped = false;

  /** @throws RangeError when `intervalMs` is not a positive finite number */
  constructor(private readonly deps: UsagePollerDeps) {
    if (!(deps.intervalMs > 0) || !Number.isFinite(deps.intervalMs))
      throw new RangeError(`usage poll interval must be a positive number of ms, got ${deps.intervalMs}`);
  }

  /** Polls once now, then every interval. */
  start(): void {
    if (this.timer || this.stopped) return;
    void this.pollOnce();
    this.timer = this.deps.clock.every(this.deps.intervalMs, () => void this.pollOnce());
  }

  /**
   * One measurement into the sink; resolves when it is stored (never rejects). A poll in flight is joined, not
   * repeated.
   */
  pollOnce(): Promise<void> {
    this.inFlight ??= this.measure().finally(() => (this.inFlight = null));
    return this.inFlight;
  }

  /** Stops polling and waits for a poll in flight. */
  async stop(): Promise<void> {
    this.stopped = true;
    this.timer?.cancel();
    this.timer = null;
    await this.inFlight;
  }

  private async measure(): Promise<void> {
    try {
      const input = this.deps.input();
      const sample = await this.deps.sampler.sample(input);
      if (this.stopped) return;
      this.deps.sink.set(sample);
      this.deps.onSample?.(input, sample);
      if (this.failing) this.deps.logger.info({ source: sample.source }, 'GPU usage measurement works again');
      this.failing = false;
    } catch (error) {
      this.deps.sink.set(null);
      if (!this.failing)
        this.deps.logger.warn(
          { err: error },
          'measuring GPU usage failed; usage metrics fall back to the inventory until it works again',
        );
      this.failing = true;
    }
  }
}
