/**
 * Which measurements a before/after run (`npm run bench -- --baseline-ref REF`) makes, from its
 * `--only` names: `replay` (the replay per policy and the grid), `server` (the standalone server
 * benchmark), `pass` (the pass at 10,000 pending), `extender` (filter + prioritize at 5,000 nodes),
 * `bind` (pods bound per second through a real kube-scheduler), and `kubernetes` for both of the
 * last two. No name: all of them. Pure: no I/O.
 */

/** One measurement of the comparison. */
export type ComparedSection = 'replay' | 'server' | 'pass' | 'extender' | 'bind';

/** Every measurement, in the order the report shows them. */
export const COMPARED_SECTIONS: readonly ComparedSection[] = ['replay', 'server', 'pass', 'extender', 'bind'];

/** The `--only` names a comparison takes, with the measurements each stands for. */
const NAMES: Readonly<Record<string, readonly ComparedSection[]>> = {
  replay: ['replay'],
  server: ['server'],
  pass: ['pass'],
  extender: ['extender'],
  bind: ['bind'],
  kubernetes: ['extender', 'bind'],
};

/**
 * The measurements `names` (the `--only` values, in any order, repeats allowed) ask for, in report
 * order; every one when `names` is empty.
 * @throws Error for a name a comparison does not take
 */
export function comparedSections(names: readonly string[]): ReadonlySet<ComparedSection> {
  if (names.length === 0) return new Set(COMPARED_SECTIONS);
  const asked = new Set<ComparedSection>();
  for (const name of names) {
    const sections = Object.hasOwn(NAMES, name) ? NAMES[name] : undefined;
    if (sections === undefined)
      throw new Error(`with --baseline-ref, --only takes one of ${Object.keys(NAMES).join(', ')}, got "${name}"`);
    for (const s of sections) asked.add(s);
  }
  return new Set(COMPARED_SECTIONS.filter((s) => asked.has(s)));
}
