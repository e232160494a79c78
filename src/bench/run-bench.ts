/**
 * `npm run bench`: throughput and wall-time benchmark of the packing replay on the shipped full
 * Alibaba cluster (openb_node_list_gpu_node.csv, 1213 nodes) and default pod list.
 *
 * Measures, in one process:
 *  1. placements/s (= arrivals / wall seconds of one runPackingReplay, seed 42) for every policy;
 *  2. the no-score-cache FGD baseline over the first 1000 arrivals, the speed-up of the cache,
 *     and whether the cached and uncached runs take identical decisions;
 *  3. the median wall time of 3 `fgd` replays (seed 42) against a 5 s target;
 *  4. the wall time of the 6-policy × 10-seed grid via runGrid against a 120 s target
 *     (skipped with `--quick`);
 *  5. the standalone server (`gpushare serve` as a child process): submits/s and scheduling pass
 *     durations against a `/healthz` baseline (server-bench.ts);
 *  6. start-up of `gpushare --version`, `gpushare submit` and the stand-in nvidia-smi against
 *     `node -e 0` (cli-start-bench.ts);
 *  7. Kubernetes (kubernetes-bench.ts): the extender's filter + prioritize latency with 500 and
 *     5,000 nodes, and pods bound per second through a real kube-scheduler with the extender
 *     against the same scheduler without it;
 *  8. the audit log (audit-bench.ts): `audit verify` over 100,000 entries against reading them;
 *  9. the scheduling pass at depth (pass-bench.ts): 10,000 waiting jobs, nothing changed and one job ended, against a
 *  full pass;
 * 10. what the server runs beside its jobs (supervisor-bench.ts): the resident memory per job of
 *     the supervisor and the sandbox helpers with 50 jobs running, against 10 MiB and the
 *     per-attempt supervisors of the earlier design; the jobs through a kill -9 of the server;
 * 11. submitting while jobs launch (launch-bench.ts): submit p99 while 40 jobs launch against idle
 *     submits, and 2,000 submits that each start a job, in jobs started per second; jobs without
 *     a sandbox (`--single-tenant`, as Slurm runs them), then sandboxed when the host can;
 * 12. bulk cancel (bulk-cancel-bench.ts): one `POST /api/v1/jobs/cancel` of 2,000 pending jobs
 *     against listing them and single cancels, then checks the jobs and the one audit entry;
 * 13. job listing (listing-bench.ts): `gpushare jobs` with 2,000 jobs against one `GET /api/v1/jobs`
 *     and curl, and the time to its first page;
 * 14. placement compared (dra-placement.ts): the same Alibaba trace pods placed on the real
 *     control plane by kube-scheduler with the gpushare extender and by DRA's stock allocator.
 * Prints tables to stdout (progress to stderr) and writes bench-results.json in the cwd.
 *
 * Flags: `--quick` skips the grid; `--only replay` runs 1-4, `--only server` runs 5 only, `--only
 * cli` runs 6 only, `--only kubernetes` runs 7 only, `--only audit` runs 8 only, `--only pass` runs 9 only, `--only
 * supervisor` runs 10 only, `--only launch` runs 11 only, `--only bulk` runs 12 only, `--only listing` runs 13 only,
 * `--only dra` runs 14 only. A
 * partial run replaces only its own sections of an existing bench-results.json.
 * `--baseline-ref REF [--rounds N] [--only NAME…]` instead measures the replay, the grid, the server,
 * the pass at 10,000 pending, the extender at 5,000 nodes and the bind throughput for the build of
 * git REF and this one, alternately, N rounds each (default 5), and prints after ÷ before
 * (before-after.ts); `--only` there takes replay, server, pass, extender, bind or kubernetes
 * (extender and bind).
 */
import { readFile, writeFile } from 'node:fs/promises';
import { availableParallelism, cpus } from 'node:os';
import { resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { POLICY_NAMES } from '../core/index.js';
import { runPackingReplay, type ReplayInput } from '../sim/packing-replay.js';
import { runGrid } from '../sim/run-grid.js';
import type { RunResult } from '../sim/simulation-types.js';
import { readNodeListFile, readPodListFile } from '../sim/traces/alibaba-csv.js';
import { firstDifference, runBoundedReplay, type BoundedReplayResult } from './bounded-replay.js';
import { num, times } from './format.js';
import { mean, median } from '../lib/statistics.js';
import { formatTable } from '../lib/text-table.js';
import { DEFAULT_SERVER_BENCH_OPTIONS, formatServerBench, runServerBench } from './server-bench.js';
import { formatCliStart, runCliStartBench } from './cli-start-bench.js';
import { runBeforeAfter } from './before-after.js';
import { comparedSections, type ComparedSection } from './before-after-sections.js';
import { runKubernetesBench } from './kubernetes-bench.js';
import { runAuditBench } from './audit-bench.js';
import { DEFAULT_PASS_BENCH_OPTIONS, formatPassBench, runPassBench } from './pass-bench.js';
import { formatSupervisorBench, runSupervisorBench } from './supervisor-bench.js';
import {
  DEFAULT_LAUNCH_BENCH_OPTIONS,
  formatLaunchBench,
  formatSandboxedRate,
  runLaunchBench,
} from './launch-bench.js';
import { runBulkCancelBench } from './bulk-cancel-bench.js';
import { formatListingBench, runListingBench } from './listing-bench.js';
import { formatPlacementComparison, measurePlacementComparison } from './dra-placement.js';

const shipped = (name: string): string =>
  fileURLToPath(new URL(`../../data/alibaba-gpu-v2023/${name}`, import.meta.url));
const NODES_FILE = shipped('openb_node_list_gpu_node.csv');
const PODS_FILE = shipped('openb_pod_list_default.csv');
const INFLATION = 1.3;
const SEED = 42;
const BASELINE_ARRIVALS = 1000;
const CACHED_BOUNDED_REPEATS = 3;
const FGD_REPEATS = 3;
const FGD_TARGET_S = 5;
const GRID_POLICIES = ['random', 'dot-product', 'gpu-clustering', 'gpu-packing', 'best-fit', 'fgd'] as const;
const GRID_SEEDS = Array.from({ length: 10 }, (_, i) => 42 + i);
const GRID_TARGET_S = 120;
const MAX_WORKERS = 4;
const RESULTS_FILE = 'bench-results.json';
const BENCHMARKS = [
  'replay',
  'server',
  'cli',
  'kubernetes',
  'audit',
  'pass',
  'supervisor',
  'launch',
  'bulk',
  'listing',
  'dra',
] as const;
/** Jobs of the supervisor benchmark. */
const SUPERVISOR_BENCH_JOBS = 50;
const LISTING_ROUNDS = 15;
const CLI_START_ROUNDS = 15;
type BenchmarkName = (typeof BENCHMARKS)[number];

const progress = (message: string): void => {
  process.stderr.write(`[bench] ${message}\n`);
};
const rate = (arrivals: number, seconds: number): number => arrivals / seconds;

interface PolicyFigure {
  policy: string;
  arrivals: number;
  failedPods: number;
  wallSeconds: number;
  placementsPerSecond: number;
  microsecondsPerPlacement: number;
}

function measurePolicies(input: ReplayInput): PolicyFigure[] {
  return POLICY_NAMES.map((policy) => {
    const r = runPackingReplay(input, policy, SEED);
    progress(`${policy}: ${r.arrivals} arrivals in ${num(r.wallSeconds, 3)} s`);
    return {
      policy,
      arrivals: r.arrivals,
      failedPods: r.failedPods,
      wallSeconds: r.wallSeconds,
      placementsPerSecond: rate(r.arrivals, r.wallSeconds),
      microsecondsPerPlacement: (1e6 * r.wallSeconds) / r.arrivals,
    };
  });
}

function boundedFigure(runs: readonly BoundedReplayResult[]): {
  arrivals: number;
  placed: number;
  loopSeconds: number[];
  medianLoopSeconds: number;
  placementsPerSecond: number;
} {
  const first = runs[0]!;
  const loopSeconds = runs.map((r) => r.loopSeconds);
  const medianLoopSeconds = median(loopSeconds);
  return {
    arrivals: first.arrivals,
    placed: first.placed,
    loopSeconds,
    medianLoopSeconds,
    placementsPerSecond: rate(first.arrivals, medianLoopSeconds),
  };
}

/** The command line of `npm run bench`. */
interface BenchArgs {
  readonly quick: boolean;
  readonly only: ReadonlySet<BenchmarkName>;
  /** `--baseline-ref REF`: compare with the build of REF instead (null: no comparison). */
  readonly baselineRef: string | null;
  /** `--rounds N` of the comparison, 1-10. */
  readonly rounds: number;
  /** What the comparison measures (its `--only` names: before-after-sections.ts). */
  readonly compared: ReadonlySet<ComparedSection>;
}

/**
 * `--quick`, `--only NAME` / `--only=NAME` (repeatable; with `--baseline-ref`, the names of
 * before-after-sections.ts), `--baseline-ref REF`, `--rounds N` (default 5).
 * @throws Error for an unknown flag or name, or a missing or out-of-range value
 */
function parseArgs(argv: readonly string[]): BenchArgs {
  let quick = false;
  let baselineRef: string | null = null;
  let rounds = 5;
  const names: string[] = [];
  const addOnly = (name: string | undefined): void => {
    if (name === undefined) throw new Error(`--only takes one of ${BENCHMARKS.join(', ')}, got nothing`);
    names.push(name);
  };
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i]!;
    if (arg === '--quick') quick = true;
    else if (arg === '--only') addOnly(argv[++i]);
    else if (arg.startsWith('--only=')) addOnly(arg.slice('--only='.length));
    else if (arg === '--baseline-ref') {
      baselineRef = argv[++i] ?? '';
      if (baselineRef === '' || baselineRef.startsWith('-'))
        throw new Error('--baseline-ref takes a git commit, tag or branch, e.g. --baseline-ref main');
    } else if (arg === '--rounds') {
      rounds = Number(argv[++i]);
      if (!Number.isInteger(rounds) || rounds < 1 || rounds > 10)
        throw new Error(`--rounds takes a whole number from 1 to 10, got "${argv[i] ?? ''}"`);
    } else
      throw new Error(
        `unknown argument "${arg}" (flags: --quick, --only ${BENCHMARKS.join('|')}, --baseline-ref REF, --rounds N)`,
      );
  }
  if (baselineRef !== null) return { quick, only: new Set(), baselineRef, rounds, compared: comparedSections(names) };
  for (const name of names)
    if (!BENCHMARKS.includes(name as BenchmarkName))
      throw new Error(`--only takes one of ${BENCHMARKS.join(', ')}, got "${name}"`);
  const only = new Set(names as BenchmarkName[]);
  return { quick, only: only.size === 0 ? new Set(BENCHMARKS) : only, baselineRef, rounds, compared: new Set() };
}

/** Sections 1-4: the packing replay. Returns the report lines and the results' sections. */
async function replayBench(quick: boolean): Promise<{ out: string[]; results: Record<string, unknown> }> {
  const workers = Math.max(1, Math.min(availableParallelism(), MAX_WORKERS));
  const nodes = await readNodeListFile(NODES_FILE);
  const pods = await readPodListFile(PODS_FILE);
  const input: ReplayInput = { nodes, pods, inflation: INFLATION };
  const gpus = nodes.reduce((s, n) => s + n.gpuCount, 0);
  progress(`loaded ${nodes.length} nodes (${gpus} GPUs), ${pods.length} pods${quick ? '; --quick: grid skipped' : ''}`);

  // 1. One replay per policy.
  const policies = measurePolicies(input);

  // 2. FGD with vs without the score cache, same first arrivals, loop time only.
  const cachedRuns: BoundedReplayResult[] = [];
  for (let i = 0; i < CACHED_BOUNDED_REPEATS; i++)
    cachedRuns.push(runBoundedReplay(input, 'fgd', SEED, BASELINE_ARRIVALS, true));
  progress(
    `fgd cached, first ${BASELINE_ARRIVALS} arrivals: ${cachedRuns.map((r) => num(r.loopSeconds, 3)).join(', ')} s`,
  );
  const uncachedRun = runBoundedReplay(input, 'fgd', SEED, BASELINE_ARRIVALS, false);
  progress(`fgd uncached, first ${BASELINE_ARRIVALS} arrivals: ${num(uncachedRun.loopSeconds, 3)} s`);
  const cached = boundedFigure(cachedRuns);
  const uncached = boundedFigure([uncachedRun]);
  const mismatch = firstDifference(cachedRuns[0]!.decisions, uncachedRun.decisions);
  const identical =
    mismatch === -1 && cachedRuns.every((r) => firstDifference(r.decisions, cachedRuns[0]!.decisions) === -1);
  const fgdFull = policies.find((p) => p.policy === 'fgd')!;
  const speedupSameArrivals = cached.placementsPerSecond / uncached.placementsPerSecond;
  const speedupFullRun = fgdFull.placementsPerSecond / uncached.placementsPerSecond;

  // 3. Median of 3 fgd replays.
  const fgdRuns: RunResult[] = [];
  for (let i = 0; i < FGD_REPEATS; i++) {
    fgdRuns.push(runPackingReplay(input, 'fgd', SEED));
    progress(`fgd run ${i + 1}/${FGD_REPEATS}: ${num(fgdRuns[i]!.wallSeconds, 3)} s`);
  }
  const fgdSeconds = fgdRuns.map((r) => r.wallSeconds);
  const fgdMedian = median(fgdSeconds);

  // 4. The 6 × 10 grid.
  let grid: {
    wallSeconds: number;
    runs: number;
    workers: number;
    meanRunSeconds: number;
    wallPerRunSeconds: number;
    ratioToTarget: number;
  } | null = null;
  if (!quick) {
    const total = GRID_POLICIES.length * GRID_SEEDS.length;
    progress(`grid: ${GRID_POLICIES.length} policies × ${GRID_SEEDS.length} seeds on ${workers} worker(s)…`);
    const started = performance.now();
    const report = await runGrid({
      nodesFile: NODES_FILE,
      podsFile: PODS_FILE,
      policies: GRID_POLICIES,
      seeds: GRID_SEEDS,
      inflation: INFLATION,
      workers,
      onProgress: (done) => {
        if (done % 10 === 0 || done === total) progress(`grid: ${done}/${total} runs done`);
      },
    });
    const wallSeconds = (performance.now() - started) / 1000;
    grid = {
      wallSeconds,
      runs: report.runs.length,
      workers,
      meanRunSeconds: mean(report.runs.map((r) => r.wallSeconds)),
      wallPerRunSeconds: wallSeconds / report.runs.length,
      ratioToTarget: wallSeconds / GRID_TARGET_S,
    };
  }

  // Report.
  const out: string[] = [];
  out.push('gpushare benchmark — packing replay on the shipped Alibaba cluster');
  out.push(
    `cluster: ${nodes.length} nodes, ${gpus} GPUs; pods: ${pods.length} (openb_pod_list_default.csv); ` +
      `inflation ${INFLATION}; seed ${SEED}`,
  );
  out.push(
    `machine: node ${process.version}, ${cpus().length} CPU(s) (${cpus()[0]?.model ?? 'unknown'}), ` +
      `availableParallelism ${availableParallelism()}`,
  );
  out.push('');
  out.push(
    `1. Throughput per policy (one full replay each, seed ${SEED}; placements/s = arrivals ÷ wall s, wall ` +
      `includes replay setup)`,
  );
  out.push(
    formatTable(
      [
        ['policy', 'arrivals', 'failed pods', 'wall (s)', 'placements/s', 'µs/placement', 'vs uncached-FGD baseline'],
        ...policies.map((p) => [
          p.policy,
          String(p.arrivals),
          String(p.failedPods),
          num(p.wallSeconds, 3),
          num(p.placementsPerSecond, 0),
          num(p.microsecondsPerPlacement, 1),
          times(p.placementsPerSecond / uncached.placementsPerSecond, 1),
        ]),
      ],
      { right: [false, true, true, true, true, true, true] },
    ),
  );
  out.push('');
  out.push(
    `2. Score-cache baseline: fgd (seed ${SEED}) over the first ${BASELINE_ARRIVALS} arrivals, ` +
      `schedule+commit loop time only`,
  );
  out.push(
    formatTable(
      [
        ['variant', 'arrivals', 'placed', 'loop time (s)', 'placements/s'],
        [
          `fgd, score cache (median of ${CACHED_BOUNDED_REPEATS})`,
          String(cached.arrivals),
          String(cached.placed),
          num(cached.medianLoopSeconds, 3),
          num(cached.placementsPerSecond, 0),
        ],
        [
          'fgd, no score cache (cacheable: false)',
          String(uncached.arrivals),
          String(uncached.placed),
          num(uncached.medianLoopSeconds, 3),
          num(uncached.placementsPerSecond, 0),
        ],
      ],
      { right: [false, true, true, true, true] },
    ),
  );
  out.push(
    `speed-up from the score cache (same ${BASELINE_ARRIVALS} arrivals): ${times(speedupSameArrivals, 1)}` +
      ` (${num(cached.placementsPerSecond, 0)} ÷ ${num(uncached.placementsPerSecond, 0)} placements/s)`,
  );
  out.push(
    `full cached fgd replay vs uncached baseline: ${times(speedupFullRun, 1)}` +
      (` (${num(fgdFull.placementsPerSecond, 0)} ÷ ${num(uncached.placementsPerSecond, 0)} placements/s; ` +
        `different arrival mix, includes setup)`),
  );
  out.push(
    `identical decisions (first ${BASELINE_ARRIVALS}, node + GPUs): ` +
      `${identical ? 'yes' : `no (first difference at arrival #${mismatch + 1})`}`,
  );
  out.push('');
  out.push(`3. One fgd replay (seed ${SEED}), median of ${FGD_REPEATS} vs target ${FGD_TARGET_S} s`);
  out.push(
    formatTable(
      [
        ['runs (s)', 'median (s)', 'target (s)', 'median ÷ target', 'within target'],
        [
          fgdSeconds.map((s) => num(s, 3)).join(', '),
          num(fgdMedian, 3),
          num(FGD_TARGET_S, 0),
          times(fgdMedian / FGD_TARGET_S, 3),
          fgdMedian <= FGD_TARGET_S ? 'yes' : 'no',
        ],
      ],
      { right: [false, true, true, true, false] },
    ),
  );
  out.push('');
  if (grid) {
    out.push(
      `4. Grid ${GRID_POLICIES.length} policies × ${GRID_SEEDS.length} seeds (${GRID_SEEDS[0]}-` +
        `${GRID_SEEDS[GRID_SEEDS.length - 1]}) via runGrid, ${grid.workers} worker thread(s), vs target ` +
        `${GRID_TARGET_S} s`,
    );
    out.push(
      formatTable(
        [
          [
            'runs',
            'workers',
            'grid wall (s)',
            'target (s)',
            'wall ÷ target',
            'within target',
            'mean per run (s)',
            'wall ÷ runs (s)',
          ],
          [
            String(grid.runs),
            String(grid.workers),
            num(grid.wallSeconds, 2),
            num(GRID_TARGET_S, 0),
            times(grid.ratioToTarget, 3),
            grid.wallSeconds <= GRID_TARGET_S ? 'yes' : 'no',
            num(grid.meanRunSeconds, 3),
            num(grid.wallPerRunSeconds, 3),
          ],
        ],
        { right: [true, true, true, true, true, false, true, true] },
      ),
    );
    out.push(
      '(mean per run = mean replay wall time inside the workers; wall ÷ runs = grid wall time amortized over its runs)',
    );
  } else {
    out.push('4. Grid: skipped (--quick)');
  }

  const results = {
    quick,
    inputs: {
      nodesFile: NODES_FILE,
      podsFile: PODS_FILE,
      nodes: nodes.length,
      gpus,
      pods: pods.length,
      inflation: INFLATION,
      seed: SEED,
    },
    policies,
    scoreCache: {
      policy: 'fgd',
      arrivals: BASELINE_ARRIVALS,
      timing: 'schedule+commit loop only',
      cached: { ...cached, repeats: CACHED_BOUNDED_REPEATS },
      uncached,
      speedupSameArrivals,
      speedupFullRunVsBaseline: speedupFullRun,
      identicalDecisions: identical,
      firstDifferenceIndex: mismatch,
    },
    fgdWallTime: {
      runsSeconds: fgdSeconds,
      medianSeconds: fgdMedian,
      targetSeconds: FGD_TARGET_S,
      ratioToTarget: fgdMedian / FGD_TARGET_S,
    },
    grid: grid ? { policies: GRID_POLICIES, seeds: GRID_SEEDS, ...grid, targetSeconds: GRID_TARGET_S } : null,
  };
  return { out, results };
}

/** The sections of an existing results file ({} when there is none or it is not JSON). */
async function previousResults(): Promise<Record<string, unknown>> {
  try {
    const parsed = JSON.parse(await readFile(RESULTS_FILE, 'utf8')) as unknown;
    return typeof parsed === 'object' && parsed !== null && !Array.isArray(parsed)
      ? (parsed as Record<string, unknown>)
      : {};
  } catch {
    return {};
  }
}

async function main(): Promise<void> {
  const { quick, only, baselineRef, rounds, compared } = parseArgs(process.argv.slice(2));
  const out: string[] = [];
  let results: Record<string, unknown> = {};
  if (baselineRef !== null) {
    const comparison = await runBeforeAfter(baselineRef, rounds, compared, DEFAULT_SERVER_BENCH_OPTIONS, progress);
    out.push('gpushare benchmark — before and after', '', ...comparison.lines, '');
    results = {
      beforeAfter: {
        ref: comparison.ref,
        commit: comparison.commit,
        rounds,
        sections: [...compared],
        before: comparison.before,
        after: comparison.after,
      },
    };
  }
  if (only.has('replay')) {
    const replay = await replayBench(quick);
    out.push(...replay.out, '');
    results = { ...results, ...replay.results };
  }
  if (only.has('server')) {
    const server = await runServerBench(DEFAULT_SERVER_BENCH_OPTIONS, progress);
    if (!only.has('replay')) out.push('gpushare benchmark — standalone server', '');
    out.push(...formatServerBench(server, `${only.has('replay') ? '5' : '1'}. Standalone server`), '');
    results = { ...results, server };
  }
  if (only.has('cli')) {
    const cliStart = await runCliStartBench(CLI_START_ROUNDS, progress);
    out.push(...formatCliStart(cliStart, `${out.length === 0 ? '1' : '6'}. Command start-up`), '');
    results = { ...results, cliStart };
  }
  if (only.has('kubernetes')) {
    const kubernetes = await runKubernetesBench(progress);
    out.push(...kubernetes.lines, '');
    results = { ...results, kubernetes: kubernetes.results };
  }
  if (only.has('audit')) {
    const audit = runAuditBench(progress);
    out.push(...audit.lines, '');
    results = { ...results, audit: audit.results };
  }
  if (only.has('pass')) {
    const pass = await runPassBench(DEFAULT_PASS_BENCH_OPTIONS, progress);
    out.push(...formatPassBench(pass), '');
    results = { ...results, pass };
  }
  if (only.has('supervisor')) {
    const supervisor = await runSupervisorBench(SUPERVISOR_BENCH_JOBS, progress);
    out.push(...formatSupervisorBench(supervisor, `${out.length === 0 ? '1' : '10'}. Supervisor memory per job`), '');
    results = { ...results, supervisor };
  }
  if (only.has('launch')) {
    // Jobs as Slurm runs them (the submitter's own uid, no sandbox), then in the sandbox a root server uses by default.
    const launch = await runLaunchBench({ ...DEFAULT_LAUNCH_BENCH_OPTIONS, sandbox: false }, progress);
    out.push(...formatLaunchBench(launch), '');
    const sandboxed = await runLaunchBench({ ...DEFAULT_LAUNCH_BENCH_OPTIONS, sandbox: 'auto' }, progress);
    if (sandboxed.sandboxed) out.push(...formatLaunchBench(sandboxed), formatSandboxedRate(launch, sandboxed), '');
    results = { ...results, launch, ...(sandboxed.sandboxed ? { launchSandboxed: sandboxed } : {}) };
  }
  if (only.has('bulk')) {
    const bulk = await runBulkCancelBench(progress);
    out.push(...bulk.lines, '');
    results = { ...results, bulkCancel: bulk.results };
  }
  if (only.has('listing')) {
    const listing = await runListingBench(LISTING_ROUNDS, progress);
    out.push(...formatListingBench(listing, `${out.length === 0 ? '1' : '13'}. Job listing`), '');
    results = { ...results, listing };
  }
  if (only.has('dra')) {
    const placement = measurePlacementComparison(progress);
    out.push(...formatPlacementComparison(placement, `${out.length === 0 ? '1' : '14'}. Placement compared`), '');
    results = { ...results, draPlacement: placement };
  }
  out.push(`results written to ${resolve(RESULTS_FILE)}`);
  const partial = only.size < BENCHMARKS.length;
  const merged = {
    ...(partial ? await previousResults() : {}),
    generatedAt: new Date().toISOString(),
    machine: {
      node: process.version,
      cpus: cpus().length,
      cpuModel: cpus()[0]?.model ?? null,
      availableParallelism: availableParallelism(),
    },
    ...results,
    ...(partial
      ? {
          lastRun: { only: baselineRef === null ? [...only] : ['before-after'], generatedAt: new Date().toISOString() },
        }
      : {}),
  };
  await writeFile(RESULTS_FILE, `${JSON.stringify(merged, null, 2)}\n`);
  process.stdout.write(`${out.join('\n')}\n`);
}

main().catch((err: unknown) => {
  process.stderr.write(`bench failed: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}\n`);
  process.exitCode = 1;
});
