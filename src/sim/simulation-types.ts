/**
 * Result shapes of a simulation grid (policies × seeds), shared by the runner, the JSON writer,
 * the console table and the HTML report.
 */
import type { MeanSd } from '../lib/statistics.js';

/** Number of integer arrived-% bins, x = 0..130 (docs/simulator.md "Metric"). */
export const CURVE_POINTS = 131;

/** Result of one (policy, seed) replay. */
export interface RunResult {
  readonly policy: string;
  readonly seed: number;
  /** 100 − A(100): GPU capacity left unallocated when 100% of capacity has arrived, in %. */
  readonly unallocatedPctAt100: number;
  /** 100 − A(130), in %. */
  readonly unallocatedPctAt130: number;
  /** Pods that fit on no node (never retried). */
  readonly failedPods: number;
  /** Number of arrivals replayed (originals plus inflation copies). */
  readonly arrivals: number;
  /** Wall time of this replay in seconds. */
  readonly wallSeconds: number;
  /** A(x) for x = 0..130: GPU allocation ratio in % of capacity; null where the bin is empty. */
  readonly allocationPct: readonly (number | null)[];
  /** R(x) for x = 0..130: fragment ratio F(M)/idle in %; null where the bin is empty. */
  readonly fragmentRatioPct: readonly (number | null)[];
}

/** Mean and sample standard deviation over seeds. */
export type { MeanSd };

/** Published reference figures of the FGD authors for one policy on the same trace, if any. */
export interface PublishedFigure {
  /** Unallocated GPU % at 100% arrived, mean over seeds 42-51. */
  readonly unallocatedPctAt100: MeanSd;
  readonly unallocatedPctAt130: MeanSd;
}

/** Aggregate of one policy over all its seeds. */
export interface PolicySummary {
  readonly policy: string;
  readonly seeds: readonly number[];
  readonly unallocatedPctAt100: MeanSd;
  readonly unallocatedPctAt130: MeanSd;
  readonly failedPods: MeanSd;
  /** Mean A(x) over seeds, x = 0..130 (null where every seed's bin is empty). */
  readonly meanAllocationPct: readonly (number | null)[];
  /** Mean R(x) over seeds, x = 0..130. */
  readonly meanFragmentRatioPct: readonly (number | null)[];
  /** The FGD authors' figure for this policy and trace, when one exists. */
  readonly published: PublishedFigure | null;
}

/**
 * The lower bound on unallocated GPU % that no placement can beat, by seed and arrival level
 * (src/sim/bound, docs/packing-bound.md).
 */
export interface PackingBoundReport {
  /** Arrival levels x, % of GPU capacity, increasing. */
  readonly levelsPct: readonly number[];
  readonly seeds: readonly number[];
  /** Lower bound on U(x) = 100 − A(x), %, per seed (outer) and level (inner); null where A(x) has no sample. */
  readonly unallocatedPctBoundBySeed: readonly (readonly (number | null)[])[];
  /** Mean over seeds per level, %; null where no seed has a bound. */
  readonly meanUnallocatedPctBound: readonly (number | null)[];
  /** Wall time of the computation, seconds (display only). */
  readonly seconds: number;
}

/** Everything one `gpushare simulate` invocation produced. */
export interface SimulationReport {
  readonly cluster: { readonly nodes: number; readonly gpus: number };
  /** File names of the inputs, for display. */
  readonly inputs: { readonly nodesFile: string; readonly podsFile: string; readonly pods: number };
  readonly inflation: number;
  /** Where `default` got its target workload: the trace's task types, or learned online. */
  readonly workloadSource: 'trace' | 'online';
  readonly runs: readonly RunResult[];
  readonly summary: readonly PolicySummary[];
  /** ISO time the report was made (display only). */
  readonly generatedAt: string;
  /** The lower bound on unallocated GPU % of any placement (`simulate --bound`), when computed. */
  readonly bound?: PackingBoundReport;
}
