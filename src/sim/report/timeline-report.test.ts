import { describe, expect, it } from 'vitest';
import { buildTargetWorkload, PRIORITY_CLASSES } from '../../core/index.js';
import { runTimelineOnce } from '../timeline/run-timeline.js';
import type { TimelineJob } from '../timeline/timeline-jobs.js';
import { summarizeTimelineRuns } from '../timeline/timeline-summary.js';
import type { TimelineReport } from '../timeline/timeline-types.js';
import { formatTimelineTables } from './timeline-console-table.js';
import { renderTimelineHtmlReport } from './timeline-html-report.js';

const request = {
  cpuMilli: 1000,
  hostMemoryMiB: 1024,
  gpuCount: 1,
  gpuMilli: 1000,
  gpuMemoryMiB: 0,
  allowedGpuModels: [],
};
const JOBS: TimelineJob[] = [
  { id: 0, name: 'a', request, priority: PRIORITY_CLASSES.low, arrivalSeconds: 0, durationSeconds: 3600 },
  { id: 1, name: 'b', request, priority: PRIORITY_CLASSES.critical, arrivalSeconds: 1000, durationSeconds: 500 },
];

function report(): TimelineReport {
  const input = {
    nodes: [{ name: 'n<0>', cpuMilli: 8000, hostMemoryMiB: 65536, gpuCount: 1, gpuModel: 'T4' }],
    workload: { jobs: JOBS, skippedMissingTimes: 0, skippedNegativeDuration: 0 },
    targetWorkload: buildTargetWorkload([request]),
  };
  const runs = [1, 2].map((seed) =>
    runTimelineOnce(input, 'best-fit', seed, {
      gpus: null,
      preemption: true,
      checkpointIntervalSeconds: 1800,
      workloadSource: 'trace',
    }),
  );
  return {
    replay: 'timeline',
    cluster: { source: 'nodes-file', gpus: 1, nodes: 1 },
    inputs: {
      nodesFile: 'nodes<1>.csv',
      podsFile: 'pods.csv',
      pods: 2,
      timedPods: 2,
      skippedMissingTimes: 0,
      skippedNegativeDuration: 0,
    },
    settings: {
      policies: ['best-fit'],
      seeds: [1, 2],
      arrivalSpeedup: 1,
      preemption: true,
      checkpointIntervalSeconds: 1800,
      minRunSeconds: 0,
      maxPreemptionsPerJob: 5,
      workloadSource: 'trace',
      qosPriority: {},
      queueAging: { agingIntervalMs: 1_800_000, agingStep: 400 },
    },
    offeredLoadDefinition: 'load',
    runs,
    summary: summarizeTimelineRuns(runs),
    generatedAt: '2025-01-01T00:00:00.000Z',
  };
}

describe('timeline reports', () => {
  it('runs give the hand-computed waits (1 GPU, critical preempts low)', () => {
    const [run] = report().runs;
    expect(run!.byClass.critical.waitSeconds).toEqual({ p50: 0, p95: 0, p99: 0 });
    expect(run!.byClass.low.jctSeconds.p50).toBe(5100);
    expect(run!.byClass.low.lostWorkGpuHours).toBeCloseTo(1000 / 3600, 12);
    expect(run!.offeredLoadPct).toBeCloseTo((100 * 4100) / 1000, 9);
    expect(run!.makespanSeconds).toBe(5100);
    expect(run!.meanAllocationPct).toBeCloseTo(100, 9);
  });

  it('formats the console tables', () => {
    const lines = formatTimelineTables(report()).split('\n');
    expect(lines[0]).toMatch(
      new RegExp(
        /^policy +seed +nodes +GPUs +jobs +unplaceable +offered load /.source +
          /% +alloc % \(arrivals\) +alloc % \(all\) +makespan h +wall s$/.source,
      ),
    );
    expect(lines[2]).toMatch(/^best-fit +1 +1 +1 +2 +0 +410\.0 +100\.0 +100\.0 +1\.4 +\d+\.\d\d$/);
    expect(lines).toContain('mean over seeds:');
    expect(
      lines.some((l) => /^best-fit +1 +low +1 +1 +500 \/ 500 \/ 500 +5100 \/ 5100 \/ 5100 +1 +0\.3$/.test(l)),
    ).toBe(true);
    expect(
      lines.some((l) => /^best-fit +1-2 +critical +1\.0 +0 \/ 0 \/ 0 +500 \/ 500 \/ 500 +0\.0 +0\.0$/.test(l)),
    ).toBe(true);
    expect(lines.some((l) => / high /.test(l))).toBe(false);
    for (const l of lines) expect(l).toBe(l.trimEnd());
  });

  it('renders a self-contained, escaped HTML page with both charts', () => {
    const html = renderTimelineHtmlReport(report());
    expect(html.startsWith('<!doctype html>')).toBe(true);
    expect(html).toContain('nodes&lt;1&gt;.csv');
    expect(html).not.toContain('nodes<1>');
    expect(html).toContain('id="chart-alloc-arrivals-title"');
    expect(html).toContain('data-series="critical"');
    expect(html).not.toMatch(/<script|https?:\/\//);
  });
});
