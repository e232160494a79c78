import { describe, expect, it } from 'vitest';
import type { NodeTemplate } from '../../core/index.js';
import { describeNodeProvider } from './node-provider.contract.js';
import { SimulatedProvider } from './simulated-provider.js';
import { withSimulatedNodes } from './simulated-pool.js';

const T1: NodeTemplate = {
  name: 't1',
  gpuModel: 'A100-80GB',
  gpuCount: 2,
  migCapable: false,
  hostCpuMilli: 64_000,
  hostMemoryMiB: 262_144,
  pricePerHour: 4,
  minCount: 0,
  maxCount: 10,
  bootSeconds: 120,
};

describe('SimulatedProvider', () => {
  describe('the NodeProvider contract', () => {
    describeNodeProvider(async () => {
      const provider = new SimulatedProvider([T1], () => 0);
      return {
        provider,
        nodes: async (template) =>
          provider
            .nodes()
            .filter((n) => n.template === template)
            .map((n) => n.name)
            .sort(),
      };
    });
  });

  it('brings nodes up after boot time, writes nothing for a repeated request, fails an unknown template', async () => {
    let now = 1_000_000;
    const provider = new SimulatedProvider([T1], () => now);
    const outcome = await provider.scale({ decisionId: 'a', template: 't1', desiredCount: 2, removeNodes: [] });
    expect(outcome).toEqual({ ok: true, changed: true, detail: '0 → 2 node(s): t1-sim-1, t1-sim-2' });
    expect(provider.nodes().map((n) => n.readyAtMs)).toEqual([1_120_000, 1_120_000]);
    expect(await provider.scale({ decisionId: 'a', template: 't1', desiredCount: 2, removeNodes: [] })).toEqual({
      ok: true,
      changed: false,
      detail: 'already 2 node(s): nothing to do',
    });
    expect(provider.writes).toBe(1);
    expect(await provider.scale({ decisionId: 'b', template: 'nope', desiredCount: 1, removeNodes: [] })).toEqual({
      ok: false,
      changed: false,
      detail: "no template 'nope' in the simulated pool",
    });

    const inner = {
      read: async () => ({ snapshot: { nodes: [], active: [] }, pending: [], poolNodes: [] }),
      cordon: async () => false,
      jobsOn: async () => [],
    };
    const pool = withSimulatedNodes(inner, provider, [T1], () => now);
    const booting = await pool.read();
    expect(booting.poolNodes.map((n) => [n.name, n.ready])).toEqual([
      ['t1-sim-1', false],
      ['t1-sim-2', false],
    ]);
    expect(booting.snapshot.nodes).toEqual([]);
    now = 1_120_000;
    expect(await pool.cordon('t1-sim-2')).toBe(true);
    expect(await pool.cordon('elsewhere')).toBe(false);
    const up = await pool.read();
    expect(up.poolNodes.map((n) => [n.name, n.ready, n.cordoned])).toEqual([
      ['t1-sim-1', true, false],
      ['t1-sim-2', true, true],
    ]);
    expect(up.snapshot.nodes.map((n) => [n.name, n.gpus.length, n.gpus[0]!.model])).toEqual([
      ['t1-sim-1', 2, 'A100-80GB'],
      ['t1-sim-2', 2, 'A100-80GB'],
    ]);
  });
});
