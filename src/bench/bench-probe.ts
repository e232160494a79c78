/**
 * One measurement of the pass, the extender or the bind by a given build of gpushare, in a process
 * of its own (before-after.ts runs it once per build and round): `node dist/bench/bench-probe.js
 * DIST MODE`, where DIST is the `dist/` of the build to measure (this one, or a baseline's: see
 * baseline.ts) and MODE is
 *
 *  - `pass`: the scheduling pass at 10,000 pending (pass-bench.ts, 200 passes per phase): wall p99
 *    of "nothing changed", "one job ended" and the full pass, ms;
 *  - `extender`: filter + prioritize over HTTP at 5,000 nodes, every node a candidate, 300 pods
 *    (extender-bench.ts): p50 and p99 per pod and the `/healthz` p99 of the same run, ms;
 *  - `bind`: pods bound per second by the real kube-scheduler with the extender and without it
 *    (bind-throughput.ts, which runs the build's own measurement file in its checkout).
 *
 * This file runs from this checkout; the benchmark code it calls is the build's own (DIST's
 * `bench/` modules), so that each build measures itself. Prints one line of JSON: `{ figures: {
 * name: number } }`, or `{ skipped: why }` when DIST has no such benchmark (an older build), its
 * answer lacks a figure, or the benchmark skipped itself (no Kubernetes components).
 */
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';

/** Waiting jobs of the pass probe, and its timed passes per phase. */
const PASS_OPTIONS = { pendingJobs: 10_000, rounds: 200 };
/** Nodes and measured pods of the extender probe (all nodes sent as candidates). */
const EXTENDER_NODES = 5_000;
const EXTENDER_PODS = 300;

/** What the probe prints. */
type ProbeAnswer = { readonly figures: Readonly<Record<string, number>> } | { readonly skipped: string };

const progress = (message: string): void => {
  process.stderr.write(`${message}\n`);
};

/** The function `name` of module `path` (under `dist`), or why there is none. */
async function exported(dist: string, path: string, name: string): Promise<((...args: never[]) => unknown) | string> {
  const file = join(dist, path);
  if (!existsSync(file)) return `this build has no ${path}`;
  const module = (await import(pathToFileURL(file).href)) as Record<string, unknown>;
  const fn = module[name];
  return typeof fn === 'function' ? (fn as (...args: never[]) => unknown) : `${path} of this build has no ${name}()`;
}

/** The numbers at `paths` (dotted) of `result`, as `figures` under the keys of `paths`; or what is missing. */
function pick(result: unknown, paths: Readonly<Record<string, string>>, what: string): ProbeAnswer {
  const figures: Record<string, number> = {};
  for (const [key, path] of Object.entries(paths)) {
    let value: unknown = result;
    for (const part of path.split('.'))
      value = value !== null && typeof value === 'object' ? (value as Record<string, unknown>)[part] : undefined;
    if (typeof value !== 'number') return { skipped: `${what} of this build has no ${path}` };
    figures[key] = value;
  }
  return { figures };
}

async function passProbe(dist: string): Promise<ProbeAnswer> {
  const run = await exported(dist, 'bench/pass-bench.js', 'runPassBench');
  if (typeof run === 'string') return { skipped: run };
  const result = await (run as (o: typeof PASS_OPTIONS, p: typeof progress) => Promise<unknown>)(
    PASS_OPTIONS,
    progress,
  );
  return pick(
    result,
    {
      pendingJobs: 'pendingJobs',
      nothingChangedP99Ms: 'nothingChanged.p99Ms',
      oneJobEndedP99Ms: 'oneJobEnded.p99Ms',
      fullPassP99Ms: 'fullPassBaseline.p99Ms',
    },
    'the pass benchmark',
  );
}

async function extenderProbe(dist: string): Promise<ProbeAnswer> {
  const run = await exported(dist, 'bench/extender-bench.js', 'measureExtenderLatency');
  if (typeof run === 'string') return { skipped: run };
  const measure = run as (nodes: number, pods: number, p: typeof progress, candidates: null) => Promise<unknown>;
  return pick(
    await measure(EXTENDER_NODES, EXTENDER_PODS, progress, null),
    { p50Ms: 'p50Ms', p99Ms: 'p99Ms', healthzP99Ms: 'healthzP99Ms' },
    'the extender benchmark',
  );
}

async function bindProbe(dist: string): Promise<ProbeAnswer> {
  const run = await exported(dist, 'bench/bind-throughput.js', 'measureBindThroughput');
  if (typeof run === 'string') return { skipped: run };
  const result = await (run as (p: typeof progress) => unknown)(progress);
  if (result !== null && typeof result === 'object' && 'skipped' in result) return { skipped: String(result.skipped) };
  return pick(
    result,
    {
      withExtenderPodsPerSecond: 'fractionalPodsPerSecond',
      withoutExtenderPodsPerSecond: 'wholePodsPerSecond',
      ratio: 'ratio',
    },
    'the bind measurement',
  );
}

const PROBES = { pass: passProbe, extender: extenderProbe, bind: bindProbe } as const;

async function main(): Promise<void> {
  const [dist, mode] = process.argv.slice(2);
  if (!dist || !mode || !Object.hasOwn(PROBES, mode))
    throw new Error(`usage: bench-probe.js DIST ${Object.keys(PROBES).join('|')}`);
  const answer = await PROBES[mode as keyof typeof PROBES](dist);
  // Exits once the line is written: a handle the build's benchmark left open must not keep it waiting.
  process.stdout.write(`${JSON.stringify(answer)}\n`, () => process.exit(0));
}

await main();
