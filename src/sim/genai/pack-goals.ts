/**
 * The goals of packing by use (issue 24), checked on the judged half: at least 50% fewer GPUs than
 * one pod per GPU, within 10% of the memory floor, rule breaks under the rule's bound, and no
 * memory overrun. Each is met, missed, or open (the floor is only bracketed and the answer lies
 * inside the bracket).
 */
import type { Judgement } from './judge-placement.js';
import type { MemoryFloor } from './memory-floor.js';

/** Fewer GPUs than one pod per GPU the goal asks for, a fraction. */
export const GOAL_FEWER_GPUS = 0.5;
/** How far above the memory floor the packing may be, a fraction. */
export const GOAL_ABOVE_FLOOR = 0.1;

/** One goal's verdict. */
export interface GoalCheck {
  readonly goal: 'fewer-gpus' | 'near-floor' | 'rule-breaks' | 'no-memory-overrun';
  readonly verdict: 'met' | 'missed' | 'open';
  /**
   * The figure judged: the fraction of GPUs saved, the fraction above the floor's upper bound, the
   * overloaded %, the overrun GPU-minutes.
   */
  readonly value: number;
  /** The bound it is judged against. */
  readonly bound: number;
}

/** The verdict of `met` given `missed` cannot be decided. */
const verdict = (met: boolean, missed = !met) => (met ? 'met' : missed ? 'missed' : 'open');

/**
 * Checks the goals for a packing (`packed`) against one pod per GPU (`alone`) and the `floor`,
 * with the rule's bound `maxOverloadPct`.
 */
export function checkGoals(
  packed: Judgement,
  alone: Judgement,
  floor: Pick<MemoryFloor, 'lowerBound' | 'upperBound'>,
  maxOverloadPct: number,
): GoalCheck[] {
  const saved = alone.gpus === 0 ? 0 : 1 - packed.gpus / alone.gpus;
  const limit = 1 + GOAL_ABOVE_FLOOR + 1e-12; // 55 GPUs are within 10% of 50, in floating point too
  return [
    { goal: 'fewer-gpus', verdict: verdict(saved >= GOAL_FEWER_GPUS), value: saved, bound: GOAL_FEWER_GPUS },
    {
      goal: 'near-floor',
      // Against the floor's bracket: met even at its lower end, missed even at its upper end.
      verdict: verdict(packed.gpus <= limit * floor.lowerBound, packed.gpus > limit * floor.upperBound),
      value: packed.gpus / floor.upperBound - 1,
      bound: GOAL_ABOVE_FLOOR,
    },
    {
      goal: 'rule-breaks',
      verdict: verdict(packed.overloadedPct < maxOverloadPct),
      value: packed.overloadedPct,
      bound: maxOverloadPct,
    },
    {
      goal: 'no-memory-overrun',
      verdict: verdict(packed.memoryOverrunGpuMinutes === 0),
      value: packed.memoryOverrunGpuMinutes,
      bound: 0,
    },
  ];
}
