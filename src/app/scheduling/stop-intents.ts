/**
 * Why gpushare is stopping running jobs (cancel, time limit, preemption), and the preemptions in
 * flight: a preemptor waits, with the reason `preempting` (its victims), until its victims have
 * checkpointed and exited. One preemption is in flight at a time (docs/preemption.md).
 */
import { WAIT_CODES, waitReason, type WaitReason } from '../../core/index.js';
import type { StopIntent } from './attempt-end.js';

/** Stop intents by job id, and preemptors by id. */
export class StopIntents {
  private readonly intents = new Map<number, StopIntent>();
  private readonly preemptors = new Map<number, readonly number[]>();

  /**
   * Records `intent` for `jobId`. A cancel wins over a preemption in progress (the job must not
   * resume); otherwise the first intent stands.
   * @returns true when the intent was recorded (the job must be stopped now)
   */
  set(jobId: number, intent: StopIntent): boolean {
    const current = this.intents.get(jobId);
    if (current !== undefined && !(intent.kind === 'cancelled' && current.kind === 'preempted')) return false;
    this.intents.set(jobId, intent);
    return true;
  }

  /** Restores an intent stored before a restart. */
  restore(jobId: number, intent: StopIntent): void {
    this.intents.set(jobId, intent);
  }

  get(jobId: number): StopIntent | undefined {
    return this.intents.get(jobId);
  }

  has(jobId: number): boolean {
    return this.intents.has(jobId);
  }

  /** Forgets a job's intent (its attempt ended). */
  delete(jobId: number): void {
    this.intents.delete(jobId);
  }

  /** True while a victim of a preemption is still being stopped. */
  preempting(): boolean {
    for (const intent of this.intents.values()) if (intent.kind === 'preempted') return true;
    return false;
  }

  /** Records a preemption in flight. */
  addPreemptor(preemptorId: number, victimIds: readonly number[]): void {
    this.preemptors.set(preemptorId, victimIds);
  }

  /**
   * The reason of every preemptor whose victims are still checkpointing (`queued` says which jobs
   * still wait); forgets the others.
   */
  preemptorReasons(queued: (jobId: number) => boolean): Map<number, WaitReason> {
    const reasons = new Map<number, WaitReason>();
    for (const [preemptorId, victims] of this.preemptors) {
      const stopping = victims.filter((id) => this.intents.get(id)?.kind === 'preempted');
      if (stopping.length === 0 || !queued(preemptorId)) this.preemptors.delete(preemptorId);
      else reasons.set(preemptorId, waitReason(WAIT_CODES.preempting, { victimIds: stopping }));
    }
    return reasons;
  }
}
