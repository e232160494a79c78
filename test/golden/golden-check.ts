/**
 * Compares today's placement decisions with the golden file recorded before the core was
 * reorganized (test/golden/packing-placements.*): same trace, same policy, same seed → the same
 * node and GPUs for every arrival. A mismatch names the first arrival that diverges.
 */
import { fileURLToPath } from 'node:url';
import { readNodeListFile, readPodListFile } from '../../src/sim/traces/alibaba-csv.js';
import { readGolden, goldenKey, type Golden } from '../../src/sim/golden/golden-file.js';
import {
  decisionAt,
  firstDivergence,
  recordPlacementSequence,
  sequenceDigest,
} from '../../src/sim/golden/placement-sequence.js';
import { GOLDEN_SETUP } from '../../src/sim/golden/golden-setup.js';
import type { TraceNode, TracePod } from '../../src/sim/traces/trace-types.js';

const BASE = fileURLToPath(new URL('./packing-placements', import.meta.url));

/** The golden file and the trace it was recorded on. */
export interface GoldenContext {
  readonly golden: Golden;
  readonly nodes: readonly TraceNode[];
  readonly pods: readonly TracePod[];
}

/** Loads the golden file and its trace. */
export async function loadGoldenContext(): Promise<GoldenContext> {
  return {
    golden: readGolden(BASE),
    nodes: await readNodeListFile(GOLDEN_SETUP.nodesFile),
    pods: await readPodListFile(GOLDEN_SETUP.podsFile),
  };
}

/**
 * Replays one (policy, seed) and compares it with the golden sequence.
 * @returns null when every decision is the same, else a message naming the first arrival that differs
 */
export function compareWithGolden(ctx: GoldenContext, policy: string, seed: number): string | null {
  const key = goldenKey(policy, seed);
  const expected = ctx.golden.sequence(key);
  const actual = recordPlacementSequence(
    { nodes: ctx.nodes, pods: ctx.pods, inflation: ctx.golden.index.inflation },
    policy,
    seed,
  );
  const recorded = ctx.golden.index.runs.find((r) => r.key === key)!;
  if (sequenceDigest(actual) === recorded.sha256) return null;
  const at = firstDivergence(expected, actual);
  if (at === null) return `${key}: the golden blob does not match its own digest`;
  const show = (seq: Buffer): string => {
    if (at * 3 >= seq.length) return 'no such arrival';
    const d = decisionAt(seq, at);
    return d.node === null ? 'unplaced' : `node ${d.node} (${ctx.nodes[d.node]?.name}) GPUs [${d.gpus.join(',')}]`;
  };
  return (
    `${key}: arrival ${at} diverges: golden ${show(expected)}, now ${show(actual)} (golden digest ` +
    `${recorded.sha256.slice(0, 12)}, now ${sequenceDigest(actual).slice(0, 12)})`
  );
}
