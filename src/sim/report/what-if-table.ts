/**
 * Plain-text tables of `gpushare what-if` (docs/what-if.md): the GPUs the history needs with and
 * without sharing at its p95 wait, per policy, the recommended policy, the autoscaled pools and the
 * right-sizing advice.
 */
import { formatTable } from '../../lib/text-table.js';
import { escapeControlCharacters } from '../../lib/control-characters.js';
import { describeJob, type WhatIfReport } from '../whatif/run-what-if.js';
import type { AutoscaledFigures } from '../whatif/what-if-autoscaled.js';
import { GPU_PER_HOUR } from '../pool/pool-prices.js';
import { formatFixed } from './html-escape.js';

function gpus(n: number | null): string {
  return n === null ? 'none ≤ 4096' : String(n);
}

function seconds(s: number | null): string {
  return s === null ? '—' : formatFixed(s, 0);
}

/** Saving of `after` against `before`, in %, or '—'. */
export function savingPct(before: number | null, after: number | null): string {
  return before === null || after === null || before === 0
    ? '—'
    : `${formatFixed((100 * (before - after)) / before, 1)}%`;
}

/** The rows of the sizing table: whole GPUs, each policy with sharing, and right-sized requests. */
export function sizingRows(report: WhatIfReport): string[][] {
  const whole = report.whole.gpus;
  const rows = [
    ['whole GPUs (no sharing)', report.whole.policy, gpus(whole), seconds(report.whole.waitP95Seconds), '—'],
    ...report.shared.map((s) => [
      `sharing${s.policy === report.recommendedPolicy ? ' (recommended)' : ''}`,
      s.policy,
      gpus(s.gpus),
      seconds(s.waitP95Seconds),
      savingPct(whole, s.gpus),
    ]),
  ];
  const sized = report.rightSizing.pool;
  if (sized !== null)
    rows.push([
      'right-sized requests',
      sized.policy,
      gpus(sized.gpus),
      seconds(sized.waitP95Seconds),
      savingPct(whole, sized.gpus),
    ]);
  return rows;
}

/** What the reports say when no replayed job has a measured peak. */
export const NO_PEAKS = 'no replayed job has a measured peak (nvidia-smi or the job’s reports)';

/** Columns of the right-sizing table. */
export const ADVICE_HEAD = [
  'workload',
  'measured jobs',
  'GPUs',
  'milli-GPU asked → advised',
  'peak util',
  'memory MiB asked → advised',
  'peak memory MiB',
  'jobs a GPU holds',
  'GPU-h asked → advised',
];

/** The rows of the right-sizing table, one per advised workload. */
export function adviceRows(report: WhatIfReport): string[][] {
  const mib = (v: number | null): string => (v === null ? '—' : formatFixed(v, 0));
  return report.rightSizing.workloads.map((w) => [
    escapeControlCharacters(w.workload),
    `${w.measuredJobs}/${w.jobs}`,
    String(w.gpuCount),
    `${mib(w.gpuMilli.requested)} → ${mib(w.gpuMilli.recommended)}`,
    w.gpuMilli.peak === null ? 'not measured' : `${formatFixed(w.gpuMilli.peak / 10, 1)}%`,
    `${mib(w.gpuMemoryMiB.requested)} → ${mib(w.gpuMemoryMiB.recommended)}`,
    w.gpuMemoryMiB.peak === null ? 'not measured' : mib(w.gpuMemoryMiB.peak),
    `${w.jobsPerGpu.asked} (${w.jobsPerGpu.askedBinding}) → ${w.jobsPerGpu.advised} (${w.jobsPerGpu.advisedBinding})`,
    `${formatGpuHours(w.requestedGpuHours)} → ${formatGpuHours(w.recommendedGpuHours)}`,
  ]);
}

/** What the advised requests save: GPUs with sharing as asked and as advised, with the recommended policy. */
export function rightSizedLine(report: WhatIfReport): string {
  const sized = report.rightSizing.pool;
  const asked = report.shared.find((s) => s.policy === sized?.policy);
  if (sized === null || asked === undefined) return 'right-sized requests: not replayed (no pool meets the target)';
  const saved = sized.gpus === null || asked.gpus === null ? null : asked.gpus - sized.gpus;
  const plural = (n: number): string => `${n} GPU${n === 1 ? '' : 's'}`;
  const outcome =
    saved === null
      ? '—'
      : saved >= 0
        ? `${plural(saved)} saved (${savingPct(asked.gpus, sized.gpus)})`
        : `${plural(-saved)} more (the advice raises requests that peaked above them)`;
  return (
    `right-sized requests need ${gpus(sized.gpus)} GPUs with ${sized.policy}, against ${gpus(asked.gpus)} as asked: ` +
    outcome
  );
}

/** Columns of the autoscaled pools' table. */
export const AUTOSCALED_HEAD = ['requests', 'GPU-hours paid', 'cost USD', 'peak GPUs', 'p95 wait s', 'within target'];

/** The rows of the autoscaled pools' table: whole GPUs, sharing. */
export function autoscaledRows(autoscaled: NonNullable<WhatIfReport['autoscaled']>): string[][] {
  const row = (name: string, a: AutoscaledFigures): string[] => [
    name,
    formatGpuHours(a.gpuHours),
    formatFixed(a.cost, 2),
    String(a.peakGpus),
    formatFixed(a.waitP95Seconds, 0),
    a.withinTarget ? 'yes' : 'no',
  ];
  return [row('whole GPUs', autoscaled.whole), row('sharing', autoscaled.shared)];
}

/** Lines on the rows left out: ends before starts, jobs that fit no node of the shape. */
export function inputLines(report: WhatIfReport): string[] {
  const { inputs, settings } = report;
  const lines: string[] = [];
  if (inputs.skippedNegativeRunTime > 0)
    lines.push(`${inputs.skippedNegativeRunTime} row(s) left out: their end is before their start`);
  if (inputs.unplaceable > 0)
    lines.push(
      `${inputs.unplaceable} job(s) fit no node of ${settings.shape.gpusPerNode} ${settings.shape.gpuModel} GPUs ` +
        `(${settings.shape.cpuMilli / 1000} cores, ${settings.shape.hostMemoryMiB / 1024} GiB) and are left out of ` +
        `the replays, e.g. ${escapeControlCharacters(inputs.unplaceableExamples.map(describeJob).join('; '))}`,
    );
  return lines;
}

/** A duration for people: seconds below two minutes, minutes below two hours, else hours. */
export function formatSpan(seconds: number): string {
  if (seconds < 120) return `${formatFixed(seconds, 1)} s`;
  if (seconds < 7200) return `${formatFixed(seconds / 60, 1)} min`;
  return `${formatFixed(seconds / 3600, 1)} h`;
}

/** GPU-hours with 3 decimals below 10, else 1. */
export function formatGpuHours(hours: number): string {
  return formatFixed(hours, hours < 10 ? 3 : 1);
}

/** Formats the report as text (no trailing newline). */
export function formatWhatIf(report: WhatIfReport): string {
  const { inputs, observed, target, settings } = report;
  const shape = settings.shape;
  const lines = [
    `${inputs.jobs} jobs (${inputs.gpuJobs} with GPUs, ${inputs.tenants} tenant${inputs.tenants === 1 ? '' : 's'}) ` +
      `over ${formatSpan(inputs.spanSeconds)}; asked ${formatGpuHours(observed.requestedGpuHours)} ` +
      `GPU-h (${formatGpuHours(observed.wholeGpuHours)} rounded up to whole GPUs); p95 wait on the server ` +
      `${formatFixed(observed.waitP95Seconds, 0)} s`,
    `sized on ${shape.gpuModel} nodes of ${shape.gpusPerNode} GPUs at p95 wait ≤ ` +
      `${formatFixed(target.waitP95Seconds, 0)} s ` +
      `(${target.source === 'history' ? "the history's own" : '--wait-target'}), ` +
      `seed ${settings.seed}, preemption ${settings.preemption ? 'on' : 'off'}`,
    ...inputLines(report),
    '',
    formatTable([['requests', 'policy', 'GPUs needed', 'p95 wait s', 'fewer GPUs than whole'], ...sizingRows(report)], {
      right: [false, false, true, true, true],
    }),
    '',
    report.recommendedPolicy === null
      ? 'recommended policy: none (no pool up to 4096 GPUs meets the target with sharing)'
      : `recommended policy: ${report.recommendedPolicy} ` +
        '(fewest GPUs with sharing; ties: lower p95 wait in whole seconds, then the order given)',
  ];
  if (report.autoscaled === null && GPU_PER_HOUR[shape.gpuModel] === undefined)
    lines.push('', `autoscaled pool: not replayed (${shape.gpuModel} has no price on the pool report's price list)`);
  if (report.autoscaled !== null) {
    lines.push(
      '',
      `autoscaled pool of ${shape.gpuModel}x${shape.gpusPerNode} nodes (boot ${settings.autoscale?.bootSeconds} s):`,
      formatTable([[...AUTOSCALED_HEAD], ...autoscaledRows(report.autoscaled)], {
        right: [false, true, true, true, true, false],
      }),
    );
  }
  lines.push('');
  if (report.rightSizing.workloads.length === 0) lines.push(`right-sizing: ${NO_PEAKS}`);
  else
    lines.push(
      `right-sizing (observed peak + ${formatFixed(100 * report.rightSizing.headroom, 0)}% headroom; advice only):`,
      formatTable([[...ADVICE_HEAD], ...adviceRows(report)], {
        right: [false, true, true, true, true, true, true, true, true],
      }),
      rightSizedLine(report),
    );
  return lines.join('\n');
}
