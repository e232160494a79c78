/**
 * `gpushare pack-by-use` as text: what was read and left out, the rule, the results table (one pod
 * per GPU and packed by use, per GPU model, judged on the second half, with the memory floor), how
 * each headroom was chosen, and the goals. The HTML report (pack-by-use-html.ts) shows the same
 * rows and lines.
 */
import { formatTable } from '../../lib/text-table.js';
import type { Judgement } from '../genai/judge-placement.js';
import type { FloorSummary, ModelResult, PackByUseResult } from '../genai/pack-by-use.js';
import type { GoalCheck } from '../genai/pack-goals.js';

const count = (n: number): string => n.toLocaleString('en-US');
const pct = (fraction: number, decimals = 1): string => `${(100 * fraction).toFixed(decimals)}%`;

/** The columns of the results table. */
export const RESULT_HEADER = [
  'GPU model',
  'placement',
  'headroom',
  'GPUs',
  'saved',
  'mean busy %',
  'rule breaks %',
  'GPUs over rule',
  'GPUs ever overloaded',
  'memory overrun GPU-min',
  'memory floor',
] as const;

/** The floor as a cell: `50 (exact)`, or `26–27 (bounds)`. */
export function floorText(floor: FloorSummary): string {
  return floor.exact ? `${floor.upperBound} (exact)` : `${floor.lowerBound}–${floor.upperBound} (bounds)`;
}

function judgementCells(j: Judgement): string[] {
  return [
    count(j.gpus),
    j.meanBusyPct.toFixed(2),
    j.overloadedPct.toFixed(3),
    count(j.gpusBreakingRule),
    count(j.gpusEverOverloaded),
    count(j.memoryOverrunGpuMinutes),
  ];
}

/** The two rows of a model: one pod per GPU, packed by use. */
export function resultRows(m: ModelResult): string[][] {
  const [aloneGpus, ...alone] = judgementCells(m.onePodPerGpu);
  const [packedGpus, ...packed] = judgementCells(m.packed);
  const saved = 1 - m.packed.gpus / m.onePodPerGpu.gpus;
  return [
    [m.model.name, 'one pod per GPU', '—', aloneGpus!, '—', ...alone, floorText(m.floor)],
    [m.model.name, 'packed by use', pct(m.headroom, 0), packedGpus!, pct(saved), ...packed, ''],
  ];
}

const GOAL_TEXT: Readonly<Record<GoalCheck['goal'], (g: GoalCheck) => string>> = {
  'fewer-gpus': (g) => `≥ ${pct(g.bound, 0)} fewer GPUs than one pod per GPU: ${g.verdict} (${pct(g.value)})`,
  'near-floor': (g) =>
    `within ${pct(g.bound, 0)} of the memory floor: ${g.verdict} (${g.value >= 0 ? '+' : ''}${pct(g.value)})`,
  'rule-breaks': (g) => `rule breaks under ${g.bound}%: ${g.verdict} (${g.value.toFixed(3)}%)`,
  'no-memory-overrun': (g) => `no memory overrun: ${g.verdict} (${count(g.value)} GPU-minutes)`,
};

/** A model's goals, one line. */
export function goalsLine(m: ModelResult): string {
  return `goals, ${m.model.name}: ${m.goals.map((g) => GOAL_TEXT[g.goal](g)).join('; ')}`;
}

/** How a model's headroom was chosen, one line. */
export function headroomLine(m: ModelResult): string {
  const choice = m.headroomChoice;
  if (choice === null) return `${m.model.name}: headroom ${pct(m.headroom, 0)} (given)`;
  const tried = choice.trials.map((t) => `${pct(t.headroom, 0)}: ${count(t.memoryOverrunGpuMinutes)}`).join(', ');
  return (
    `${m.model.name}: headroom ${pct(m.headroom, 0)}, ${choice.found ? 'the smallest' : 'none'} of 0%, 5%, … 100% ` +
    `with no memory overrun when ${count(choice.pods)} pods are placed from the first quarter and judged on the ` +
    `second (overrun GPU-minutes by headroom: ${tried})` +
    (choice.found ? '' : '; the largest is used')
  );
}

/** The lines above the table: data, pods, rule. */
export function introLines(r: PackByUseResult, dataName: string): string[] {
  const { trace, selection: s, settings } = r;
  const hours = (h: number) => `${h.toFixed(1)} h`;
  return [
    `GenAI pods (${dataName}): ${count(trace.podsInBothFiles)} in both files, ${count(trace.instants)} minutes ` +
      `${trace.stepSeconds} s apart; placed from the first ${hours(trace.firstHalf.hours)} ` +
      `(${count(trace.firstHalf.instants)} minutes), judged on the last ${hours(trace.secondHalf.hours)} ` +
      `(${count(trace.secondHalf.instants)} minutes)`,
    `pods: ${count(s.placed)} placed and judged; left out: ${count(s.inOneFileOnly)} in one file only, ` +
      `${count(s.absentWhenJudged)} absent from the second half, ${count(s.tooFewFitSamples)} with fewer than ` +
      `${s.minFitSamples} samples of each kind in the first half`,
    `rule: on each GPU the co-located duty cycles add up to more than 100% in at most ${settings.maxOverloadPct}% ` +
      `of the minutes it runs a pod (kept on the first half); a missing sample is the last one for up to ` +
      `${trace.lookbackSteps} minutes`,
  ];
}

/** The whole text report (no final newline). */
export function formatPackByUse(r: PackByUseResult, dataName: string): string {
  const right = RESULT_HEADER.map((_, i) => i >= 2 && i < RESULT_HEADER.length - 1);
  return [
    ...introLines(r, dataName),
    '',
    formatTable([[...RESULT_HEADER], ...r.models.flatMap(resultRows)], { right }),
    '',
    ...r.models.map(headroomLine),
    ...r.models.map(goalsLine),
  ].join('\n');
}
