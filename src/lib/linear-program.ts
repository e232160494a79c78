/**
 * The port through which the simulator's packing bound solves linear programs: a maximization over
 * non-negative columns with `≤` rows, optionally integer. Its callers build programs in
 * this form and never name a solver; src/adapters/lp-solver implements it (HiGHS).
 */

/** One `≤` row: Σ coefficient · column ≤ upper. */
export interface LinearRow {
  /** Pairs [column index, coefficient]; a column at most once. */
  readonly terms: readonly (readonly [number, number])[];
  readonly upper: number;
}

/** maximize Σ objective[j] · x[j] subject to the rows, 0 ≤ x[j] ≤ columnUpper[j]. */
export interface LinearProgram {
  /** Objective coefficient per column; its length is the number of columns. */
  readonly objective: readonly number[];
  readonly rows: readonly LinearRow[];
  /** Upper bound per column; absent = unbounded above. */
  readonly columnUpper?: readonly number[];
  /** When true every column is an integer (a mixed-integer program has no duals). */
  readonly integer?: boolean;
}

/** Outcome of one solve. */
export interface LinearProgramSolution {
  /** `optimal`, or anything else the solver reported (then the numbers are not to be used). */
  readonly status: 'optimal' | 'not-optimal';
  /** The solver's own status text, for messages. */
  readonly detail: string;
  readonly objective: number;
  /** x[j] per column. */
  readonly columnValues: readonly number[];
  /**
   * Dual value per row, ≥ 0 up to rounding for a maximization with `≤` rows (the objective's gain
   * per unit of the row's `upper`); all 0 for an integer program.
   */
  readonly rowDuals: readonly number[];
}

/** Solves linear (and, for tests, small integer) programs; synchronous once made. */
export interface LinearProgramSolver {
  solve(program: LinearProgram): LinearProgramSolution;
}
