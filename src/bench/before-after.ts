/**
 * `npm run bench -- --baseline-ref REF`: the same measurements of two builds in one run, the
 * baseline (REF checked out and built by baseline.ts) and this checkout, alternately in the order
 * before, after, after, before, … so that a drift of the machine's load hits both alike:
 *
 *  1. `replay`: the packing replay, one run per policy (seed 42, default trace), and the 7 policies
 *     × seeds 42-51 grid through runGrid on two worker threads, each in a process of its own
 *     (replay-probe.ts);
 *  2. `server`: the standalone server benchmark (server-bench.ts: 10,000 submits, pass p50/p99 with
 *     the queue in place), each build's own `bin/gpushare serve` with its defaults (a build from
 *     before TLS serves plain HTTP; the report says which side spoke what);
 *  3. `pass`: the scheduling pass at 10,000 pending (pass-bench.ts), p99 per phase;
 *  4. `extender`: filter + prioritize at 5,000 nodes (extender-bench.ts), p50 and p99 per pod;
 *  5. `bind`: pods bound per second through a real kube-scheduler with the extender and without it
 *     (bind-throughput.ts; n/a without the Kubernetes components).
 *
 * 3-5 run in a process of their own per build and round (bench-probe.ts, from this checkout, calling
 * the build's own benchmark code); a build without that benchmark shows `n/a`. Each figure is the
 * median over the rounds of its build; the ratio is after ÷ before (for times, below 1 is faster;
 * for rates, above 1 is faster). `--only` picks sections (before-after-sections.ts).
 */
import { execFileSync } from 'node:child_process';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { prepareBaseline } from './baseline.js';
import { COMPARE_HEADER, compareRow } from './before-after-rows.js';
import type { ComparedSection } from './before-after-sections.js';
import { num } from './format.js';
import { formatTable } from '../lib/text-table.js';
import { runServerBench, type ServerBenchOptions } from './server-bench.js';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const REPLAY_PROBE = fileURLToPath(new URL('./replay-probe.js', import.meta.url));
const BENCH_PROBE = fileURLToPath(new URL('./bench-probe.js', import.meta.url));

/** What bench-probe.ts prints: named figures, or why there are none. */
type ProbeAnswer = { readonly figures: Readonly<Record<string, number>> } | { readonly skipped: string };

/** The sections bench-probe.ts measures. */
const PROBED = ['pass', 'extender', 'bind'] as const;

/** One build's figures of one round; a section not asked for is absent. */
interface RoundFigures {
  readonly replay?: { readonly policySeconds: Readonly<Record<string, number>>; readonly gridSeconds: number };
  readonly server?: {
    readonly submitsPerSecond: number;
    readonly passP50Ms: number;
    readonly passP99Ms: number;
    readonly maxPendingConsidered: number;
    /** How the server benchmark's client spoke to this build's server. */
    readonly scheme: 'http' | 'https';
  };
  readonly pass?: ProbeAnswer;
  readonly extender?: ProbeAnswer;
  readonly bind?: ProbeAnswer;
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

/** Runs `probe` (a script of this checkout) with `args` in a process of its own; its last line of stdout, as JSON. */
function runProbe(probe: string, args: readonly string[]): unknown {
  const out = execFileSync(process.execPath, [probe, ...args], {
    encoding: 'utf8',
    maxBuffer: 1 << 20,
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  return JSON.parse(out.trim().split('\n').pop()!) as unknown;
}

async function measure(
  root: string,
  sections: ReadonlySet<ComparedSection>,
  server: ServerBenchOptions,
  progress: (message: string) => void,
): Promise<RoundFigures> {
  const dist = join(root, 'dist');
  let figures: RoundFigures = {};
  if (sections.has('replay')) {
    const policies = runProbe(REPLAY_PROBE, [dist, 'policies']) as { policies?: Record<string, number> };
    if (!policies.policies) throw new Error('replay-probe: expected policies');
    const grid = runProbe(REPLAY_PROBE, [dist, 'grid']) as { gridSeconds?: number };
    if (grid.gridSeconds === undefined) throw new Error('replay-probe: expected gridSeconds');
    figures = { replay: { policySeconds: policies.policies, gridSeconds: grid.gridSeconds } };
  }
  if (sections.has('server')) {
    const s = await runServerBench({ ...server, bin: join(root, 'bin', 'gpushare') }, progress);
    figures = {
      ...figures,
      server: {
        submitsPerSecond: s.submit.requestsPerSecond,
        passP50Ms: s.scheduler.p50PassMs,
        passP99Ms: s.scheduler.p99PassMs,
        maxPendingConsidered: s.scheduler.maxPendingConsidered,
        scheme: s.scheme,
      },
    };
  }
  for (const section of PROBED) {
    if (sections.has(section)) figures = { ...figures, [section]: runProbe(BENCH_PROBE, [dist, section]) };
  }
  return figures;
}

/** One line of what a round measured, for the progress log. */
function summary(f: RoundFigures): string {
  const parts: string[] = [];
  if (f.replay) parts.push(`grid ${num(f.replay.gridSeconds, 1)} s`);
  if (f.server) parts.push(`server pass p99 ${num(f.server.passP99Ms, 2)} ms`);
  for (const section of PROBED) {
    const answer = f[section];
    if (answer !== undefined)
      parts.push(
        'skipped' in answer
          ? `${section} n/a`
          : `${section} ${Object.entries(answer.figures)
              .map(([k, v]) => `${k} ${num(v, 2)}`)
              .join(', ')}`,
      );
  }
  return parts.join('; ');
}

/**
 * Measures the build of `ref` and this checkout's build (`npm run build` already done) `rounds`
 * times each, the sections `sections` only.
 * @throws Error when the ref cannot be built or a probe fails (a probe that skips is not a failure)
 */
export async function runBeforeAfter(
  ref: string,
  rounds: number,
  sections: ReadonlySet<ComparedSection>,
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
        const figures = await measure(which === 'before' ? baseline.root : ROOT, sections, server, progress);
        (which === 'before' ? before : after).push(figures);
        progress(`${which}: ${summary(figures)}`);
      }
    }
  } finally {
    baseline.remove();
  }
  return { ref, commit: baseline.commit, rounds, before, after, lines: report(ref, baseline.commit, before, after) };
}

/** A figure of a probe's answer; null when the probe skipped or lacks it. */
function probed(answer: ProbeAnswer | undefined, key: string): number | null {
  return answer !== undefined && 'figures' in answer ? (answer.figures[key] ?? null) : null;
}

function report(
  ref: string,
  commit: string,
  before: readonly RoundFigures[],
  after: readonly RoundFigures[],
): string[] {
  const rows: string[][] = [];
  const add = (name: string, pick: (f: RoundFigures) => number | null | undefined, digits: number): void => {
    const values = (figures: readonly RoundFigures[]): (number | null)[] => figures.map((f) => pick(f) ?? null);
    rows.push(compareRow(name, values(before), values(after), digits));
  };
  const first = before[0] ?? {};
  if (first.replay) {
    for (const policy of Object.keys(first.replay.policySeconds))
      add(`replay ${policy} (s)`, (f) => f.replay?.policySeconds[policy], 3);
    add(
      'replay, all 7 policies (s)',
      (f) => (f.replay ? Object.values(f.replay.policySeconds).reduce((s, v) => s + v, 0) : null),
      2,
    );
    add('grid 7 × 10, 2 workers (s)', (f) => f.replay?.gridSeconds, 1);
  }
  if (first.server) {
    add('server submits/s', (f) => f.server?.submitsPerSecond, 0);
    add('server pass p50 (ms)', (f) => f.server?.passP50Ms, 2);
    add('server pass p99 (ms)', (f) => f.server?.passP99Ms, 2);
    add('server pending in one pass (max)', (f) => f.server?.maxPendingConsidered, 0);
  }
  if (first.pass) {
    add('pass at 10,000 pending, nothing changed p99 (ms)', (f) => probed(f.pass, 'nothingChangedP99Ms'), 3);
    add('pass at 10,000 pending, one job ended p99 (ms)', (f) => probed(f.pass, 'oneJobEndedP99Ms'), 3);
    add('pass at 10,000 pending, full pass p99 (ms)', (f) => probed(f.pass, 'fullPassP99Ms'), 2);
  }
  if (first.extender) {
    add('extender 5,000 nodes, p50 per pod (ms)', (f) => probed(f.extender, 'p50Ms'), 2);
    add('extender 5,000 nodes, p99 per pod (ms)', (f) => probed(f.extender, 'p99Ms'), 2);
  }
  if (first.bind) {
    add('bind: pods/s with the extender', (f) => probed(f.bind, 'withExtenderPodsPerSecond'), 1);
    add('bind: pods/s without it', (f) => probed(f.bind, 'withoutExtenderPodsPerSecond'), 1);
    add('bind: with ÷ without', (f) => probed(f.bind, 'ratio'), 3);
  }
  const schemes = (figures: readonly RoundFigures[]): string =>
    [...new Set(figures.flatMap((f) => (f.server ? [f.server.scheme.toUpperCase()] : [])))].join('/');
  const skipped = (which: string, figures: readonly RoundFigures[]): string[] =>
    PROBED.flatMap((section) => {
      const reasons = new Set(
        figures.flatMap((f) => {
          const answer = f[section];
          return answer !== undefined && 'skipped' in answer ? [answer.skipped] : [];
        }),
      );
      return [...reasons].map((reason) => `${section}, ${which}: n/a (${reason})`);
    });
  return [
    `Before/after: ${ref} (${commit.slice(0, 10)}) against this checkout, ${before.length} round(s) each, ` +
      `alternating; medians; ratio = after ÷ before`,
    ...(first.server
      ? [`server transport: before ${schemes(before)}, after ${schemes(after)} (each build's default)`]
      : []),
    ...skipped('before', before),
    ...skipped('after', after),
    formatTable([[...COMPARE_HEADER], ...rows], { right: [false, true, true, true, false, false] }),
  ];
}
