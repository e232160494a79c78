import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { demandGpuMilli, placementWorkload, totalGpus, UNDISCLOSED_GPU_MEMORY_MIB } from './dra-placement-workload.js';

describe('placementWorkload', () => {
  it('takes every 24th node and every 20th GPU pod of the default list: 51 nodes, 250 GPUs, 354 pods', () => {
    const w = placementWorkload();
    expect(w.nodes.length).toBe(51);
    expect(totalGpus(w.nodes)).toBe(250);
    expect(w.pods.length).toBe(354);
    expect(demandGpuMilli(w.pods)).toBe(301_680);
    expect(w.pods.filter((p) => p.gpuMilli === 1000).length).toBe(209);
    expect(w.nodes[0]).toEqual({
      name: 'trace-0000',
      cpuMilli: 64_000,
      hostMemoryMiB: 262_144,
      gpuCount: 2,
      gpuModel: 'P100',
      gpuMemoryMiB: 16_384,
    });
    expect(w.pods[0]).toMatchObject({ name: 'p-000', traceName: 'openb-pod-0000', gpuCount: 1, gpuMilli: 1000 });
  });

  it('takes the gpushare40 list with the same nodes: 354 pods asking for 276.93 GPUs, 198 of them shares', () => {
    const w = placementWorkload({ podList: 'gpushare40', nodeStride: 24, podStride: 20 });
    expect(totalGpus(w.nodes)).toBe(250);
    expect(demandGpuMilli(w.pods)).toBe(276_930);
    expect(w.pods.filter((p) => p.gpuMilli < 1000).length).toBe(198);
  });

  it('gives undisclosed models a nominal memory, orders pods by creation time and drops CPU-only pods', () => {
    const dir = mkdtempSync(join(tmpdir(), 'placement-workload-'));
    const nodes = join(dir, 'nodes.csv');
    const pods = join(dir, 'pods.csv');
    writeFileSync(nodes, 'sn,cpu_milli,memory_mib,gpu,model\nn0,32000,131072,8,G2\nn1,8000,1024,0,\n');
    writeFileSync(
      pods,
      'name,cpu_milli,memory_mib,num_gpu,gpu_milli,creation_time\n' +
        'a,1000,1024,1,500,30\nb,1000,1024,0,0,10\nc,2000,2048,2,1000,20\n',
    );
    const w = placementWorkload({ podList: 'default', nodeStride: 1, podStride: 1 }, { nodes, pods });
    expect(w.nodes.map((n) => [n.name, n.gpuMemoryMiB])).toEqual([['trace-0000', UNDISCLOSED_GPU_MEMORY_MIB]]);
    expect(w.pods.map((p) => [p.name, p.traceName])).toEqual([
      ['p-000', 'c'],
      ['p-001', 'a'],
    ]);
  });

  it('refuses a stride below 1, naming the field', () => {
    expect(() => placementWorkload({ podList: 'default', nodeStride: 0, podStride: 20 })).toThrow(
      'nodeStride must be an integer >= 1, got 0',
    );
  });
});
