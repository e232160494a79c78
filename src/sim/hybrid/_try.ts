import { readNodeListFile, readPodListFile } from '../traces/alibaba-csv.js';
import { runHybridReplay } from './hybrid-replay.js';
import { sharingGpuModel } from './pod-mode.js';
const nodes = await readNodeListFile('data/alibaba-gpu-v2023/openb_node_list_gpu_node.csv');
const pods = await readPodListFile('data/alibaba-gpu-v2023/openb_pod_list_default.csv');
for (const s of (process.argv[2] ?? 'auto,mig,mps,timeslice').split(',')) {
  const r = runHybridReplay({ nodes, pods, inflation: 1.3, gpuModel: sharingGpuModel('A100-80GB')! }, s as never, 42);
  const { allocationPct, requestedAllocationPct, ...rest } = r;
  console.log(JSON.stringify(rest));
}
