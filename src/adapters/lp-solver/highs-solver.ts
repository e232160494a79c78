/**
 * The simulator's linear-program port (src/lib/linear-program.ts) over HiGHS compiled to
 * WebAssembly (the `highs` package): each program is written in CPLEX LP format and solved by a
 * fresh solver instance.
 */
import type { LinearProgram, LinearProgramSolution, LinearProgramSolver } from '../../lib/linear-program.js';

interface HighsColumnOrRow {
  readonly Primal: number;
  readonly Dual?: number;
}
interface HighsResult {
  readonly Status: string;
  readonly ObjectiveValue: number;
  readonly Columns: Readonly<Record<string, HighsColumnOrRow>>;
  readonly Rows: readonly (HighsColumnOrRow & { readonly Name: string })[];
}
interface HighsModule {
  solve(problem: string, options?: Readonly<Record<string, unknown>>): HighsResult;
}

/** A number as LP-format text (no exponent forms HiGHS could misread). */
function num(value: number): string {
  if (!Number.isFinite(value)) throw new RangeError(`linear program coefficient must be finite, got ${value}`);
  return Number.isInteger(value) ? String(value) : value.toPrecision(17);
}

function term(coefficient: number, column: number): string {
  return `${coefficient < 0 ? '-' : '+'} ${num(Math.abs(coefficient))} x${column}`;
}

/** The program in CPLEX LP format; rows are named r0, r1, … and columns x0, x1, …. */
export function lpFormatOf(program: LinearProgram): string {
  const columns = program.objective.length;
  const lines = ['Maximize', ` obj: ${program.objective.map((c, j) => term(c, j)).join(' ') || '0 x0'}`];
  lines.push('Subject To');
  program.rows.forEach((row, i) => {
    const terms = row.terms.filter(([, c]) => c !== 0);
    const body = terms.length === 0 ? `0 x0` : terms.map(([j, c]) => term(c, j)).join(' ');
    lines.push(` r${i}: ${body} <= ${num(row.upper)}`);
  });
  lines.push('Bounds');
  for (let j = 0; j < columns; j++) {
    const upper = program.columnUpper?.[j];
    lines.push(upper === undefined ? ` x${j} >= 0` : ` 0 <= x${j} <= ${num(upper)}`);
  }
  if (program.integer && columns > 0) {
    lines.push('General');
    lines.push(` ${Array.from({ length: columns }, (_, j) => `x${j}`).join(' ')}`);
  }
  lines.push('End');
  return lines.join('\n');
}

/** A solver over one loaded HiGHS module. */
class HighsSolver implements LinearProgramSolver {
  constructor(private readonly highs: HighsModule) {}

  solve(program: LinearProgram): LinearProgramSolution {
    const columns = program.objective.length;
    const result = this.highs.solve(lpFormatOf(program), { output_flag: false });
    const optimal = result.Status === 'Optimal';
    const columnValues = Array.from({ length: columns }, (_, j) => result.Columns[`x${j}`]?.Primal ?? 0);
    const byName = new Map(result.Rows.map((r) => [r.Name, r.Dual ?? 0]));
    // A maximization's `≤` rows have duals ≥ 0; a tiny negative one is rounding.
    const rowDuals = program.rows.map((_, i) => Math.max(0, byName.get(`r${i}`) ?? 0));
    return {
      status: optimal ? 'optimal' : 'not-optimal',
      detail: result.Status,
      objective: optimal ? result.ObjectiveValue : NaN,
      columnValues,
      rowDuals: program.integer ? rowDuals.map(() => 0) : rowDuals,
    };
  }
}

/**
 * Loads HiGHS (about 3 MB of WebAssembly, loaded once per call) and returns a solver over it.
 * @throws Error when the module cannot be loaded
 */
export async function loadHighsSolver(): Promise<LinearProgramSolver> {
  const load = (await import('highs')).default as unknown as () => Promise<HighsModule>;
  return new HighsSolver(await load());
}
