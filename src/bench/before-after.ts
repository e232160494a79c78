/**
 * `npm run bench -- --baseline-ref REF`: the same measurements of two builds in one run, the
 * baseline (REF checked out and built by baseline.ts) and this checkout, alternately in the order
 * before, after, after, before, … so that a drift of the machine's load hits both alike:
 *
 *  1. the packing replay, one run per policy (seed 42, default trace), in a process of its own
 *     (replay-probe.ts);
 *  2. the 7 policies × seeds 42-51 grid through runGrid on two worker threads (replay-probe.ts);
 *  3. the standalone server benchmark (server-bench.ts: 10,000 submits, pass p50/p99 with the
 *     queue in place), each build's own `bin/gpushare serve` with its defaults (a build from
 *     before TLS serves plain HTTP; the report says which side spoke what).
 *
 * Each figure is the median over the rounds of its build; the ratio is after ÷ before (for times,
 * below 1 is faster; for submits/s, above 1 is faster).
 */
import { execFileSync } from 'node:child_process';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { prepareBaseline } from './baseline.js';
import { num, times } from './format.js';
import { median } from '../lib/statistics.js';
import { formatTable } from '../lib/text-table.js';
import { runServerBench, type ServerBenchOptions } from './server-bench.js';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const PROBE = fileURLToPath(new URL('./replay-probe.js', import.meta.url));

/** One build's figures of one round. */
interface RoundFigures {
  readonly policySeconds: Readonly<Record<string, number>>;
  readonly gridSeconds: number;
  readonly submitsPerSecond: number;
  readonly passP50Ms: number;
  readonly passP99Ms: number;
  readonly maxPendingConsidered: number;
  /** How the server benchmark's client spoke to this build's server. */
  readonly scheme: 'http' | 'https';
}

/** The comparison: every round's figures per build, and the report lines. */
export interface BeforeAfterResult {
  readonly ref: string;
  readonly commit: string;
  readonly rounds: number;
  readonly before: readonly RoundFigures[];
  readonly after: readonly RoundFigures[];
  readonly lines: readonly string[];
}

type Probe = { policies: Record<string, number> } | { gridSeconds: number };

function probe(dist: string, mode: 'policies' | 'grid'): Probe {
  const out = execFileSync(process.execPath, [PROBE, dist, mode], {
    encoding: 'utf8',
    maxBuffer: 1 << 20,
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  return JSON.parse(out.trim().split('\n').pop()!) as Probe;
}

async function measure(
  root: string,
  server: ServerBenchOptions,
  progress: (message: string) => void,
): Promise<RoundFigures> {
  const dist = join(root, 'dist');
  const policies = probe(dist, 'policies');
  if (!('policies' in policies)) throw new Error('replay-probe: expected policies');
  const grid = probe(dist, 'grid');
  if (!('gridSeconds' in grid)) throw new Error('replay-probe: expected gridSeconds');
  const s = await runServerBench({ ...server, bin: join(root, 'bin', 'gpushare') }, progress);
  return {
    policySeconds: policies.policies,
    gridSeconds: grid.gridSeconds,
    submitsPerSecond: s.submit.requestsPerSecond,
    passP50Ms: s.scheduler.p50PassMs,
    passP99Ms: s.scheduler.p99PassMs,
    maxPendingConsidered: s.scheduler.maxPendingConsidered,
    scheme: s.scheme,
  };
}

/**
 * Measures the build of `ref` and this checkout's build (`npm run build` already done) `rounds`
 * times each.
 * @throws Error when the ref cannot be built or a probe fails
 */
export async function runBeforeAfter(
  ref: string,
  rounds: number,
  server: ServerBenchOptions,
  progress: (message: string) => void,
): Promise<BeforeAfterResult> {
  const baseline = prepareBaseline(ref, progress);
  const before: RoundFigures[] = [];
  const after: RoundFigures[] = [];
  try {
    for (let round = 0; round < rounds; round++) {
      const order = round % 2 === 0 ? (['before', 'after'] as const) : (['after', 'before'] as const);
      for (const which of order) {
        progress(`before/after round ${round + 1}/${rounds}: ${which}…`);
        const figures = await measure(which === 'before' ? baseline.root : ROOT, server, progress);
        (which === 'before' ? before : after).push(figures);
        progress(
          `${which}: grid ${num(figures.gridSeconds, 1)} s, ${num(figures.submitsPerSecond, 0)} ` +
            `submits/s, pass p50 ${num(figures.passP50Ms, 2)} ms, p99 ${num(figures.passP99Ms, 2)} ms`,
        );
      }
    }
  } finally {
    baseline.remove();
  }
  return { ref, commit: baseline.commit, rounds, before, after, lines: report(ref, baseline.commit, before, after) };
}

function report(
  ref: string,
  commit: string,
  before: readonly RoundFigures[],
  after: readonly RoundFigures[],
): string[] {
  const rows: string[][] = [];
  const add = (name: string, pick: (f: RoundFigures) => number, digits: number, unit: string): void => {
    const b = median(before.map(pick));
    const a = median(after.map(pick));
    rows.push([
      name,
      `${num(b, digits)}${unit}`,
      `${num(a, digits)}${unit}`,
      times(a / b, 3),
      before
        .map(pick)
        .map((v) => num(v, digits))
        .join(', '),
      after
        .map(pick)
        .map((v) => num(v, digits))
        .join(', '),
    ]);
  };
  for (const policy of Object.keys(before[0]!.policySeconds))
    add(`replay ${policy} (s)`, (f) => f.policySeconds[policy] ?? Number.NaN, 3, '');
  add('replay, all 7 policies (s)', (f) => Object.values(f.policySeconds).reduce((s, v) => s + v, 0), 2, '');
  add('grid 7 × 10, 2 workers (s)', (f) => f.gridSeconds, 1, '');
  add('server submits/s', (f) => f.submitsPerSecond, 0, '');
  add('server pass p50 (ms)', (f) => f.passP50Ms, 2, '');
  add('server pass p99 (ms)', (f) => f.passP99Ms, 2, '');
  add('server pending in one pass (max)', (f) => f.maxPendingConsidered, 0, '');
  const schemes = (figures: readonly RoundFigures[]): string =>
    [...new Set(figures.map((f) => f.scheme.toUpperCase()))].join('/');
  return [
    `Before/after: ${ref} (${commit.slice(0, 10)}) against this checkout, ${before.length} round(s) each, ` +
      `alternating; medians; ratio = after ÷ before`,
    `server transport: before ${schemes(before)}, after ${schemes(after)} (each build's default)`,
    formatTable([['figure', 'before', 'after', 'after ÷ before', 'before, each round', 'after, each round'], ...rows], {
      right: [false, true, true, true, false, false],
    }),
  ];
}
