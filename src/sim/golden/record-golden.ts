/**
 * Records the golden placement file: `node dist/sim/golden/record-golden.js <base> <commit>`.
 * Replays the default openb trace at 1.3× with every registered policy and seeds 42-51. Re-record
 * only for a deliberate change of decisions, and say why in the commit.
 */
import { basename } from 'node:path';
import { POLICY_NAMES } from '../../core/index.js';
import { readNodeListFile, readPodListFile } from '../traces/alibaba-csv.js';
import { goldenKey, writeGolden } from './golden-file.js';
import { GOLDEN_SETUP } from './golden-setup.js';
import { recordPlacementSequence, sequenceDigest } from './placement-sequence.js';

async function main(): Promise<void> {
  const [base, commit] = process.argv.slice(2);
  if (!base || !commit) throw new Error('usage: record-golden.js <base path> <commit>');
  const nodes = await readNodeListFile(GOLDEN_SETUP.nodesFile);
  const pods = await readPodListFile(GOLDEN_SETUP.podsFile);
  const runs = [];
  for (const policy of POLICY_NAMES) {
    for (const seed of GOLDEN_SETUP.seeds) {
      const sequence = recordPlacementSequence({ nodes, pods, inflation: GOLDEN_SETUP.inflation }, policy, seed);
      runs.push({ key: goldenKey(policy, seed), sequence, sha256: sequenceDigest(sequence) });
    }
  }
  writeGolden(
    base,
    {
      nodesFile: basename(GOLDEN_SETUP.nodesFile),
      podsFile: basename(GOLDEN_SETUP.podsFile),
      inflation: GOLDEN_SETUP.inflation,
      recordedAt: commit,
    },
    runs,
  );
}

await main();
