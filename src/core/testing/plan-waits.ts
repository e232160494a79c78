/**
 * Test helpers over a Plan's waits (a Plan lists them; tests look them up by job id).
 */
import type { Plan } from '../framework/plan.js';
import type { WaitReason } from '../model/status.js';

/** Why job `jobId` waits in `plan`; undefined when the pass did not leave it waiting (or did not visit it). */
export function waitOf(plan: Plan, jobId: number): WaitReason | undefined {
  return plan.waiting.find((w) => w.jobId === jobId)?.reason;
}

/** The ids of the jobs `plan` left waiting, in its order. */
export function waitingIds(plan: Plan): number[] {
  return plan.waiting.map((w) => w.jobId);
}
