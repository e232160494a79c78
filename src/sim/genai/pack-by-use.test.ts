import { describe, expect, it } from 'vitest';
import { chooseHeadroom } from './choose-headroom.js';
import { packByUse } from './pack-by-use.js';
import { FOUR_PODS, SMALL_GPU } from './testing/four-pods.js';

describe('packByUse', () => {
  it('chooses the headroom on the first half alone: the smallest without overrun from quarter one to two', () => {
    expect(chooseHeadroom(FOUR_PODS, { start: 0, end: 120 }, SMALL_GPU, 1, 5)).toEqual({
      headroom: 0.05,
      found: true,
      rehearsal: { fit: { start: 0, end: 60 }, judged: { start: 60, end: 120 } },
      pods: 4,
      trials: [
        { headroom: 0, gpus: 3, memoryOverrunGpuMinutes: 60 },
        { headroom: 0.05, gpus: 3, memoryOverrunGpuMinutes: 0 },
      ],
    });
  });

  it('places from the first half, judges on the second, against one pod per GPU and the floor', () => {
    const result = packByUse(FOUR_PODS, { models: [SMALL_GPU], headroom: 'auto', maxOverloadPct: 1 });
    expect(result.trace).toEqual({
      podsInBothFiles: 4,
      instants: 240,
      stepSeconds: 60,
      lookbackSteps: 5,
      firstHalf: { start: 0, end: 120, instants: 120, hours: 2 },
      secondHalf: { start: 120, end: 240, instants: 120, hours: 2 },
    });
    expect(result.selection).toEqual({
      placed: 4,
      inOneFileOnly: 0,
      absentWhenJudged: 0,
      tooFewFitSamples: 0,
      minFitSamples: 60,
    });
    const [model] = result.models;
    // c + a share a GPU (58 + 42 MiB requested); b (53) cannot join them, and d is too busy beside b.
    expect(model!.headroom).toBe(0.05);
    expect(model!.podsPerGpu).toEqual([2, 1]);
    expect(model!.packed).toEqual({
      gpus: 3,
      pods: 4,
      gpuMinutes: 360,
      occupiedGpuMinutes: 360,
      meanBusyPct: 20 / 3,
      overloadedGpuMinutes: 0,
      overloadedPct: 0,
      gpusBreakingRule: 0,
      gpusEverOverloaded: 0,
      memoryOverrunGpuMinutes: 0,
      gpusWithMemoryOverrun: 0,
      peakGpuMemoryMiB: 95,
    });
    expect(model!.onePodPerGpu).toMatchObject({ gpus: 4, meanBusyPct: 5, memoryOverrunGpuMinutes: 0 });
    expect(model!.packedFirstHalf).toMatchObject({ gpus: 3, overloadedGpuMinutes: 0, peakGpuMemoryMiB: 95 });
    expect(model!.floor).toEqual({ lowerBound: 2, upperBound: 2, exact: true, provedBy: 'bounds', searchSteps: 0 });
    expect(model!.goals.map((g) => [g.goal, g.verdict, g.value])).toEqual([
      ['fewer-gpus', 'missed', 0.25],
      ['near-floor', 'missed', 0.5],
      ['rule-breaks', 'met', 0],
      ['no-memory-overrun', 'met', 0],
    ]);
  });

  it('places with a given headroom, and lets d beside b when the rule allows 10% of the minutes', () => {
    const result = packByUse(FOUR_PODS, { models: [SMALL_GPU], headroom: 0, maxOverloadPct: 10 });
    const [model] = result.models;
    expect(model!.headroomChoice).toBeNull();
    // c + a as before (95 MiB); d beside b is over 100% in 10 of 120 minutes (8.3% ≤ 10%).
    expect(model!.podsPerGpu).toEqual([0, 2]);
    expect(model!.packedFirstHalf).toMatchObject({ gpus: 2, overloadedGpuMinutes: 10, gpusBreakingRule: 0 });
    expect(model!.packed).toMatchObject({ gpus: 2, memoryOverrunGpuMinutes: 0, peakGpuMemoryMiB: 95 });
    expect(model!.goals[0]).toEqual({ goal: 'fewer-gpus', verdict: 'met', value: 0.5, bound: 0.5 });
  });
});
