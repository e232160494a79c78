import { describe, expect, it } from 'vitest';
import {
  DEFAULT_SIMULATION_SEED,
  SimulatedGpuSpecError,
  createSimulatedInventory,
  parseSimulatedGpuSpec,
  simulatedGpuUuid,
} from './simulated-gpus.js';

const UUID_FORMAT = /^GPU-[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

describe('parseSimulatedGpuSpec', () => {
  it('parses the documented example, in order', () => {
    expect(parseSimulatedGpuSpec('2xA100-80GB,1xA100-80GB:mig,1xT4')).toEqual([
      { count: 2, model: 'A100-80GB', mig: false },
      { count: 1, model: 'A100-80GB', mig: true },
      { count: 1, model: 'T4', mig: false },
    ]);
  });
  it('resolves aliases to canonical names, trims items, accepts COUNT 64', () => {
    expect(parseSimulatedGpuSpec(' 64xH100 , 1xV100-16GB, 3xH200:mig ')).toEqual([
      { count: 64, model: 'H100-80GB', mig: false },
      { count: 1, model: 'V100M16', mig: false },
      { count: 3, model: 'H200-141GB', mig: true },
    ]);
  });

  const bad: [string, string][] = [
    ['', '--simulate-gpus: empty value in ""'],
    ['1xT4,,1xL4', '--simulate-gpus: empty item in "1xT4,,1xL4"'],
    ['T4', '--simulate-gpus: bad syntax in "T4"'],
    ['2 x T4', '--simulate-gpus: bad syntax in "2 x T4"'],
    ['0xT4', '--simulate-gpus: COUNT must be 1-64, got 0 in "0xT4"'],
    ['65xT4', '--simulate-gpus: COUNT must be 1-64, got 65 in "65xT4"'],
    ['1xB200', '--simulate-gpus: unknown model "B200" in "1xB200"'],
    ['1xt4', '--simulate-gpus: unknown model "t4" in "1xt4"'],
    ['2xG2', '--simulate-gpus: model "G2" has unknown memory in "2xG2"'],
    ['1xT4:mig', '--simulate-gpus: model "T4" does not support MIG in "1xT4:mig"'],
    ['1xA30:mps', '--simulate-gpus: unknown suffix ":mps" (only :mig) in "1xA30:mps"'],
  ];
  for (const [spec, message] of bad) {
    it(`rejects ${JSON.stringify(spec)}`, () => {
      expect(() => parseSimulatedGpuSpec(spec)).toThrow(SimulatedGpuSpecError);
      expect(() => parseSimulatedGpuSpec(spec)).toThrow(message);
    });
  }
  it('names the syntax, the allowed models and the MIG-capable ones', () => {
    expect(() => parseSimulatedGpuSpec('1xB200')).toThrow(
      new SimulatedGpuSpecError(
        '--simulate-gpus: unknown model "B200" in "1xB200". Expected COUNTxMODEL[:mig], comma-separated, ' +
          'e.g. 2xA100-80GB,1xA100-80GB:mig,1xT4 (COUNT 1-64; :mig only on MIG-capable models). ' +
          'Models: P100, T4, V100M16, V100M32, A10, L4, A30-24GB, A100-40GB, A100-80GB, H100-80GB, H200-141GB. ' +
          'MIG-capable: A30-24GB, A100-40GB, A100-80GB, H100-80GB, H200-141GB.',
      ),
    );
  });
});

describe('createSimulatedInventory', () => {
  it('lists GPUs 0..n-1 in spec order, marked simulated, with catalog memory', async () => {
    const inv = createSimulatedInventory(parseSimulatedGpuSpec('2xA100-80GB,1xA100-80GB:mig,1xT4'));
    expect(inv.source).toBe('simulated');
    const gpus = await inv.list();
    expect(gpus.map((g) => [g.index, g.name, g.model, g.gpuMemoryMiB, g.migEnabled])).toEqual([
      [0, 'Simulated A100-80GB', 'A100-80GB', 81920, false],
      [1, 'Simulated A100-80GB', 'A100-80GB', 81920, false],
      [2, 'Simulated A100-80GB', 'A100-80GB', 81920, true],
      [3, 'Simulated T4', 'T4', 16384, false],
    ]);
    for (const g of gpus) {
      expect(g).toMatchObject({
        simulated: true,
        healthy: true,
        healthReason: null,
        migDevices: [],
        utilizationGpuPct: null,
        memoryUsedMiB: null,
      });
      expect(g.uuid).toMatch(UUID_FORMAT);
    }
    expect(new Set(gpus.map((g) => g.uuid)).size).toBe(4);
  });

  it('gives the same UUIDs for the same spec and seed, others for another seed', async () => {
    const items = parseSimulatedGpuSpec('2xH100-80GB');
    const a = (await createSimulatedInventory(items).list()).map((g) => g.uuid);
    const b = (await createSimulatedInventory(items, { seed: DEFAULT_SIMULATION_SEED }).list()).map((g) => g.uuid);
    const c = (await createSimulatedInventory(items, { seed: 'node-2' }).list()).map((g) => g.uuid);
    expect(a).toEqual(b);
    expect(a[0]).toBe(simulatedGpuUuid(DEFAULT_SIMULATION_SEED, 0, 'H100-80GB'));
    expect(c.some((u) => a.includes(u))).toBe(false);
    expect(simulatedGpuUuid('s', 0, 'T4')).toBe(simulatedGpuUuid('s', 0, 'T4'));
    expect(simulatedGpuUuid('s', 0, 'T4')).not.toBe(simulatedGpuUuid('s', 0, 'L4'));
  });

  it('setHealth, setUsage and remove change later lists only', async () => {
    const inv = createSimulatedInventory(parseSimulatedGpuSpec('3xL4'));
    const before = await inv.list();
    inv.setHealth(1, false, 'XID 48 (double-bit ECC)');
    inv.setUsage(0, { utilizationGpuPct: 40, memoryUsedMiB: 1024 });
    inv.remove(2);
    expect(before[1]?.healthy).toBe(true);
    const after = await inv.list();
    expect(after.map((g) => [g.index, g.healthy, g.healthReason, g.utilizationGpuPct, g.memoryUsedMiB])).toEqual([
      [0, true, null, 40, 1024],
      [1, false, 'XID 48 (double-bit ECC)', null, null],
    ]);
    inv.setHealth(1, true, 'ignored');
    inv.setHealth(0, false);
    expect((await inv.list()).map((g) => [g.healthy, g.healthReason])).toEqual([
      [false, 'marked unhealthy'],
      [true, null],
    ]);
  });

  it('rejects unknown or removed indices and models outside the catalog', () => {
    const inv = createSimulatedInventory(parseSimulatedGpuSpec('1xT4'));
    inv.remove(0);
    expect(() => inv.remove(0)).toThrow(new RangeError('no simulated GPU with index 0'));
    expect(() => inv.setHealth(5, false)).toThrow(RangeError);
    expect(() => createSimulatedInventory([{ count: 1, model: 'G1', mig: false }])).toThrow(SimulatedGpuSpecError);
  });
});
