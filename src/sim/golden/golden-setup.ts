/**
 * The replay the golden placement file covers: the default openb trace at 1.3× inflation, seeds
 * 42-51 (the FGD authors' setup, docs/simulator.md).
 */
import { fileURLToPath } from 'node:url';

const DATA = fileURLToPath(new URL('../../../data/alibaba-gpu-v2023/', import.meta.url));

/** Trace files (absolute paths), inflation and seeds of the golden file. */
export const GOLDEN_SETUP = {
  nodesFile: `${DATA}openb_node_list_gpu_node.csv`,
  podsFile: `${DATA}openb_pod_list_default.csv`,
  inflation: 1.3,
  seeds: [42, 43, 44, 45, 46, 47, 48, 49, 50, 51],
} as const;
