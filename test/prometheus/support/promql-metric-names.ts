/**
 * A small PromQL tokenizer for tests: finds the metric names an expression reads, so a test can
 * check that a dashboard or an alert names only metrics the server exports. It is not a parser;
 * it handles the PromQL the shipped dashboard and alerts use (selectors, functions, aggregations
 * with `by`/`without`, vector matching, ranges, subqueries, offsets, strings, numbers).
 */

/** Words that are PromQL keywords or operators, never metric names. */
const KEYWORDS = new Set([
  'and',
  'or',
  'unless',
  'by',
  'without',
  'on',
  'ignoring',
  'group_left',
  'group_right',
  'offset',
  'bool',
  'inf',
  'nan',
  'start',
  'end',
  'atan2',
]);

/** Clauses whose parenthesised list holds label names. */
const LABEL_LIST_CLAUSE = /\b(by|without|on|ignoring|group_left|group_right)\s*\([^)]*\)/g;

/**
 * The metric names read by a PromQL expression, in order of first appearance, without duplicates.
 *
 * Identifiers count as metric names unless they are followed by `(` (functions and aggregations),
 * are keywords or operators, are label names inside `{...}` or in a `by (...)`-style list, or sit
 * inside a string or a `[...]` range. A selector written only as `{__name__="x"}` yields nothing.
 *
 * @param expr PromQL with Grafana variables already substituted
 */
export function promqlMetricNames(expr: string): string[] {
  const stripped = expr
    .replace(/"(?:[^"\\]|\\.)*"|'(?:[^'\\]|\\.)*'|`[^`]*`/g, '""') // strings (may hold braces)
    .replace(/#[^\n]*/g, ' ') // comments
    .replace(/\{[^}]*\}/g, ' ') // label matchers
    .replace(/\[[^\]]*\]/g, ' ') // ranges and subqueries
    .replace(LABEL_LIST_CLAUSE, ' $1 ') // label lists of aggregations and vector matching
    .replace(/\boffset\s+-?[0-9a-z]+/gi, ' ') // offset 5m
    .replace(/@\s*[\w.()]+/g, ' '); // @ modifiers
  const names: string[] = [];
  for (const match of stripped.matchAll(/(?<![\w.:])([a-zA-Z_:][a-zA-Z0-9_:]*)(\s*\(|\s+(?:by|without)\b)?/g)) {
    const word = match[1]!;
    if (match[2] !== undefined) continue; // a function, or an aggregation (`sum (`, `max by`)
    if (KEYWORDS.has(word.toLowerCase())) continue;
    if (/^[0-9]/.test(word)) continue;
    if (!names.includes(word)) names.push(word);
  }
  return names;
}

/**
 * The metric family a sample name belongs to, given the server's families (`# TYPE` lines:
 * name → type): the name itself when it is a family, else the name without `_bucket`, `_sum` or
 * `_count` when that is a histogram or summary family; undefined when neither exists.
 *
 * @param name a metric name from an expression, e.g. `gpushare_scheduling_pass_duration_seconds_bucket`
 * @param families family name → Prometheus type (`counter`, `gauge`, `histogram`, `summary`, ...)
 */
export function metricFamilyOf(name: string, families: ReadonlyMap<string, string>): string | undefined {
  if (families.has(name)) return name;
  const match = /^(.*)_(bucket|sum|count)$/.exec(name);
  if (match === null) return undefined;
  const base = match[1]!;
  const type = families.get(base);
  if (type === 'histogram' || (type === 'summary' && match[2] !== 'bucket')) return base;
  return undefined;
}

/**
 * The metric families of a Prometheus text exposition: each `# TYPE <name> <type>` line as
 * name → type.
 *
 * @param exposition the body of `GET /metrics`
 */
export function parseMetricFamilies(exposition: string): Map<string, string> {
  const families = new Map<string, string>();
  for (const match of exposition.matchAll(/^# TYPE (\S+) (\S+)$/gm)) families.set(match[1]!, match[2]!);
  return families;
}
