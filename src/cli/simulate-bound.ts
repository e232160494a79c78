/**
 * `gpushare simulate --bound [--bound-levels LIST]`: the lower bound on unallocated GPU % that no
 * placement of the same arrivals can beat, computed for each seed of a packing replay and shown
 * beside each policy (docs/packing-bound.md, docs/cli.md). The LP solver is given by the caller
 * (src/main wires HiGHS), so this file names no adapter.
 */
import { InvalidArgumentError } from 'commander';
import type { LinearProgramSolver } from '../lib/linear-program.js';
import { computePackingBound } from '../sim/bound/bound-report.js';
import { formatBoundTable } from '../sim/report/bound-table.js';
import { UsageError } from './exit-codes.js';
import type { SimulationReport } from '../sim/simulation-types.js';
import { readNodeListFile, readPodListFile } from '../sim/traces/alibaba-csv.js';

/** Loads the LP solver the bound uses (called only when `--bound` is given). */
export type LoadLinearProgramSolver = () => Promise<LinearProgramSolver>;

/** Levels the bound is computed at by default, % of GPU capacity. */
export const DEFAULT_BOUND_LEVELS = [90, 100, 110, 120, 130] as const;

/**
 * `--bound-levels`: a comma list of integer levels 0..130 or ranges `a-b` or `a-b/step`, e.g.
 * `90-130/10` or `100,130`; sorted, without duplicates.
 * @throws InvalidArgumentError naming the bad item and what is allowed
 */
export function parseBoundLevels(text: string): number[] {
  const allowed = 'expected integer levels 0..130 as a comma list, a range a-b, or a-b/step (e.g. 90-130/10)';
  const levels = new Set<number>();
  for (const raw of text.split(',')) {
    const item = raw.trim();
    const match = /^(\d+)(?:-(\d+)(?:\/(\d+))?)?$/.exec(item);
    if (!match) throw new InvalidArgumentError(`'${item}' is not a level; ${allowed}`);
    const from = Number(match[1]);
    const to = match[2] === undefined ? from : Number(match[2]);
    const step = match[3] === undefined ? 1 : Number(match[3]);
    if (from > 130 || to > 130 || from > to || step < 1)
      throw new InvalidArgumentError(`'${item}' is out of range; ${allowed}`);
    for (let x = from; x <= to; x += step) levels.add(x);
  }
  return [...levels].sort((a, b) => a - b);
}

/**
 * Computes the bound for the seeds of `report` and returns the report with it.
 * @param onSeed progress: seeds done and total
 */
export async function withPackingBound(
  report: SimulationReport,
  files: { readonly nodesFile: string; readonly podsFile: string },
  levelsPct: readonly number[],
  loadSolver: LoadLinearProgramSolver,
  onSeed?: (done: number, total: number) => void,
): Promise<SimulationReport> {
  const [nodes, pods, solver] = await Promise.all([
    readNodeListFile(files.nodesFile),
    readPodListFile(files.podsFile),
    loadSolver(),
  ]);
  const seeds = [...new Set(report.runs.map((r) => r.seed))];
  const bound = computePackingBound({ nodes, pods, inflation: report.inflation, seeds, levelsPct }, solver, onSeed);
  return { ...report, bound };
}

/**
 * Checks `--bound` and `--bound-levels` against the other flags: both apply to the plain packing
 * replay only, and `--bound-levels` needs `--bound`.
 * @throws UsageError naming the flags
 */
export function checkBoundFlags(
  opts: { readonly bound?: boolean; readonly sharing?: unknown; readonly poolReport?: boolean },
  levelsGiven: boolean,
): void {
  if ((opts.bound === true || levelsGiven) && (opts.sharing !== undefined || opts.poolReport === true))
    throw new UsageError(
      '--bound and --bound-levels apply to the plain packing replay, not --sharing or --pool-report',
    );
  if (levelsGiven && opts.bound !== true) throw new UsageError('--bound-levels needs --bound');
}

/** The console lines of the bound (none without one): the gap table and how long it took. */
export function boundLines(report: SimulationReport): string[] {
  if (!report.bound) return [];
  return [
    '',
    'Unallocated GPU % at each arrival level (mean over seeds) and its gap to the bound no placement can beat:',
    formatBoundTable(report),
    '',
    `bound: ${report.bound.seeds.length} seed(s) × ${report.bound.levelsPct.length} level(s) in ` +
      `${report.bound.seconds.toFixed(1)} s (docs/packing-bound.md)`,
  ];
}
