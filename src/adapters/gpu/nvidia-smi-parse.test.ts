import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import {
  INVENTORY_FIELDS,
  NvidiaSmiParseError,
  parseListGpus,
  parseQueryGpuCsv,
  type ListedGpu,
} from './nvidia-smi-parse.js';

const fixture = (rel: string): string =>
  readFileSync(new URL(`../../../test/fixtures/nvidia-smi/${rel}`, import.meta.url), 'utf8');
const list = (file: string): ListedGpu[] => parseListGpus(fixture(`list/${file}`));
const profiles = (g: ListedGpu | undefined): string[] => (g?.migDevices ?? []).map((d) => d.profile);
const MASKED = 'GPU-00000000-0000-0000-0000-000000000000';
const maskedMig = (n: number): string => `MIG-0000000${n}-0000-0000-0000-00000000000${n}`;

describe('parseListGpus on list/ fixtures', () => {
  it('single GPUs without MIG (S1, masked)', () => {
    for (const [file, name] of [
      ['L__h100-80gb-hbm3__590.48.01__masked.txt', 'NVIDIA H100 80GB HBM3'],
      ['L__h200__590.48.01__masked.txt', 'NVIDIA H200'],
      ['L__l40s__595.80__masked.txt', 'NVIDIA L40S'],
    ] as const) {
      expect(list(file)).toEqual([{ index: 0, name, uuid: MASKED, migDevices: [] }]);
    }
  });

  it('H100 MIG 3g.40gb + 2g.20gb + 2 x 1g.10gb (S1, masked)', () => {
    const gpus = list('L__h100-80gb-hbm3__mig__590.48.01__masked.txt');
    expect(gpus).toHaveLength(1);
    expect(gpus[0]?.name).toBe('NVIDIA H100 80GB HBM3');
    expect(gpus[0]?.uuid).toBe(MASKED);
    expect(gpus[0]?.migDevices).toEqual(
      ['3g.40gb', '2g.20gb', '1g.10gb', '1g.10gb'].map((profile, n) => ({
        profile,
        deviceIndex: n,
        uuid: maskedMig(n),
      })),
    );
  });

  it('H200 MIG with compute-instance profiles (S1, masked)', () => {
    const gpus = list('L__h200__mig__590.48.01__masked.txt');
    expect(gpus).toHaveLength(1);
    expect(gpus[0]?.name).toBe('NVIDIA H200');
    expect(gpus[0]?.migDevices).toEqual(
      ['1c.3g.71gb', '2c.3g.71gb', '2g.35gb', '1g.18gb', '1g.18gb'].map((profile, n) => ({
        profile,
        deviceIndex: n,
        uuid: maskedMig(n),
      })),
    );
  });

  it('H100 7 x 1g.10gb with CRLF line ends (S5)', () => {
    const gpus = list('L__h100-80gb-hbm3__mig-7x1g.10gb__gpu-operator-docs.txt');
    expect(gpus).toHaveLength(1);
    expect(gpus[0]?.uuid).toBe('GPU-b4895dbf-9350-2524-a89b-98161ddd9fe4');
    expect(profiles(gpus[0])).toEqual(Array(7).fill('1g.10gb'));
    expect(gpus[0]?.migDevices.map((d) => d.deviceIndex)).toEqual([0, 1, 2, 3, 4, 5, 6]);
    expect(gpus[0]?.migDevices[0]?.uuid).toBe('MIG-3f6f389f-b0cc-5e5c-8e32-eaa8fd067902');
    expect(gpus[0]?.migDevices[6]?.uuid).toBe('MIG-981c86e9-3607-57d7-9426-295347e4b925');
  });

  it('H100 mixed geometry with CRLF line ends (S5)', () => {
    const gpus = list('L__h100-80gb-hbm3__mig-3g.40gb+2g.20gb+2x1g.10gb__gpu-operator-docs.txt');
    expect(gpus).toHaveLength(1);
    expect(gpus[0]?.name).toBe('NVIDIA H100 80GB HBM3');
    expect(profiles(gpus[0])).toEqual(['3g.40gb', '2g.20gb', '1g.10gb', '1g.10gb']);
    expect(gpus[0]?.migDevices[3]).toEqual({
      profile: '1g.10gb',
      deviceIndex: 3,
      uuid: 'MIG-0f709664-740c-52b0-ae79-3e4c9ede6d3b',
    });
  });

  it('H100 three CI devices in one GI (S7)', () => {
    const gpus = list('L__h100-80gb-hbm3__mig-3x1c.3g.40gb+2x1g.10gb__r570__mig-user-guide.txt');
    expect(gpus).toHaveLength(1);
    expect(gpus[0]?.uuid).toBe('GPU-c08d91cb-e324-655c-71ba-7570956445bc');
    expect(profiles(gpus[0])).toEqual(['1c.3g.40gb', '1c.3g.40gb', '1c.3g.40gb', '1g.10gb', '1g.10gb']);
    expect(gpus[0]?.migDevices[4]?.uuid).toBe('MIG-c71dc464-b9f9-5611-9d29-d601a47cffd6');
  });

  it('A100 2 x 3g.20gb with unpadded "Device 0:" (S7)', () => {
    expect(list('L__a100-sxm4-40gb__mig-2x3g.20gb__mig-user-guide.txt')).toEqual([
      {
        index: 0,
        name: 'A100-SXM4-40GB',
        uuid: 'GPU-e86cb44c-6756-fd30-cd4a-1e6da3caf9b0',
        migDevices: [
          { profile: '3g.20gb', deviceIndex: 0, uuid: 'MIG-c7384736-a75d-5afc-978f-d2f1294409fd' },
          { profile: '3g.20gb', deviceIndex: 1, uuid: 'MIG-a28ad590-3fda-56dd-84fc-0a0b96edc58d' },
        ],
      },
    ]);
  });

  it('A100 legacy MIG UUIDs MIG-GPU-<uuid>/<gi>/<ci> (S5)', () => {
    const gpuUuid = 'GPU-4200ccc0-2667-d4cb-9137-f932c716232a';
    const seven = list('L__a100-sxm4-40gb__mig-7x1g.5gb__450.80.02__legacy-mig-uuid.txt');
    expect(seven).toHaveLength(1);
    expect(seven[0]?.uuid).toBe(gpuUuid);
    expect(profiles(seven[0])).toEqual(Array(7).fill('1g.5gb'));
    expect(seven[0]?.migDevices.map((d) => d.uuid)).toEqual(
      [7, 8, 9, 10, 11, 12, 13].map((gi) => `MIG-${gpuUuid}/${gi}/0`),
    );
    const mixed = list('L__a100-sxm4-40gb__mig-3g+2g+1g__450.80.02__legacy-mig-uuid.txt');
    expect(mixed[0]?.migDevices).toEqual([
      { profile: '3g.20gb', deviceIndex: 0, uuid: `MIG-${gpuUuid}/2/0` },
      { profile: '2g.10gb', deviceIndex: 1, uuid: `MIG-${gpuUuid}/3/0` },
      { profile: '1g.5gb', deviceIndex: 2, uuid: `MIG-${gpuUuid}/9/0` },
    ]);
  });

  it('4 x A100-80GB with MIG on GPU 0 only (S8)', () => {
    const gpus = list('L__4x-a100-sxm4-80gb__gpu0-mig-4x1g.20gb__535.54.03__telegraf-issue-5812.txt');
    expect(gpus.map((g) => g.index)).toEqual([0, 1, 2, 3]);
    expect(new Set(gpus.map((g) => g.name))).toEqual(new Set(['NVIDIA A100-SXM4-80GB']));
    expect(gpus.map((g) => g.migDevices.length)).toEqual([4, 0, 0, 0]);
    expect(profiles(gpus[0])).toEqual(Array(4).fill('1g.20gb'));
    expect(gpus[0]?.uuid).toBe('GPU-513536b6-7d19-9063-b049-1e69664bb298');
    expect(gpus[3]?.uuid).toBe('GPU-69ec2344-ebac-b028-f88f-452abb3d7f11');
    expect(gpus[0]?.migDevices[3]?.uuid).toBe('MIG-930574a9-d43a-5d2b-95da-3e68384c8d6b');
  });

  it('8 x A100-40GB mixed geometries with doc indentation (S7)', () => {
    const gpus = list('L__8x-a100-sxm4-40gb__mig-mixed-geometries__r470__mig-user-guide.txt');
    expect(gpus.map((g) => g.index)).toEqual([0, 1, 2, 3, 4, 5, 6, 7]);
    expect(gpus.every((g) => g.name === 'A100-SXM4-40GB')).toBe(true);
    expect(gpus.map((g) => g.migDevices.length)).toEqual([7, 3, 2, 1, 6, 1, 3, 3]);
    expect(gpus[0]?.uuid).toBe('GPU-5d5ba0d6-d33d-2b2c-524d-9e3d8d2b8a77');
    expect(profiles(gpus[3])).toEqual(['7g.40gb']);
    expect(profiles(gpus[4])).toEqual(Array(6).fill('1c.3g.20gb'));
    expect(profiles(gpus[6])).toEqual(['1c.7g.40gb', '2c.7g.40gb', '3c.7g.40gb']);
    expect(profiles(gpus[7])).toEqual(['4g.20gb', '2g.10gb', '1g.5gb']);
    expect(gpus[7]?.migDevices[2]?.uuid).toBe('MIG-83e71a6c-f0c3-5dfc-8577-6e8b17885e1f');
  });
});

describe('parseListGpus errors', () => {
  it('rejects a MIG line before any GPU', () => {
    expect(() => parseListGpus('  MIG 1g.5gb Device 0: (UUID: MIG-x)\n')).toThrow(
      new NvidiaSmiParseError('line 1: MIG device before any GPU line: "MIG 1g.5gb Device 0: (UUID: MIG-x)"'),
    );
  });
  it('rejects an unrecognised line, naming it', () => {
    const text = 'GPU 0: NVIDIA H200 (UUID: GPU-1)\nNo devices were found\n';
    expect(() => parseListGpus(text)).toThrow(NvidiaSmiParseError);
    expect(() => parseListGpus(text)).toThrow('line 2: unrecognised nvidia-smi -L line: "No devices were found"');
  });
});

const derived = (gpu: string, state: string): string =>
  fixture(`derived/query-gpu__inventory13__noheader-nounits__${gpu}__${state}.derived.csv`);

describe('parseQueryGpuCsv on derived inventory13 fixtures', () => {
  it('exports the 13 inventory fields in fixture order', () => {
    expect(INVENTORY_FIELDS.join(',')).toBe(
      'index,uuid,name,memory.total,memory.used,memory.free,' +
        'utilization.gpu,utilization.memory,temperature.gpu,power.draw,mig.mode.current,compute_mode,pci.bus_id',
    );
  });

  const cases = [
    ['h100-80gb-hbm3__590.48.01', 'NVIDIA H100 80GB HBM3', 81559, 'disabled', '00000000:00:09.0'],
    ['h100-80gb-hbm3__mig__590.48.01', 'NVIDIA H100 80GB HBM3', 81559, 'enabled', '00000000:00:09.0'],
    ['h200__590.48.01', 'NVIDIA H200', 143771, 'disabled', '00000000:83:00.0'],
    ['h200__mig__590.48.01', 'NVIDIA H200', 143771, 'enabled', '00000000:83:00.0'],
    ['l40s__595.80', 'NVIDIA L40S', 46068, 'unsupported', '00000000:01:00.0'],
  ] as const;
  for (const [gpu, name, total, migMode, pciBusId] of cases) {
    for (const state of ['idle', 'load']) {
      it(`${gpu} ${state}`, () => {
        const gpus = parseQueryGpuCsv(derived(gpu, state), INVENTORY_FIELDS);
        expect(gpus).toHaveLength(1);
        expect(gpus[0]).toMatchObject({
          index: 0,
          uuid: MASKED,
          name,
          gpuMemoryMiB: total,
          migMode,
          pciBusId,
          computeMode: 'Default',
        });
        const utilNull = migMode === 'enabled';
        expect(gpus[0]?.utilizationGpuPct === null).toBe(utilNull);
        expect(gpus[0]?.utilizationMemoryPct === null).toBe(utilNull);
      });
    }
  }

  it('parses every value of the H200 load row', () => {
    expect(parseQueryGpuCsv(derived('h200__590.48.01', 'load'), INVENTORY_FIELDS)).toEqual([
      {
        index: 0,
        uuid: MASKED,
        name: 'NVIDIA H200',
        pciBusId: '00000000:83:00.0',
        gpuMemoryMiB: 143771,
        memoryUsedMiB: 32362,
        memoryFreeMiB: 110796,
        utilizationGpuPct: 100,
        utilizationMemoryPct: 7,
        temperatureC: 52,
        powerDrawW: 627.4,
        migMode: 'disabled',
        computeMode: 'Default',
      },
    ]);
  });

  it('H100 MIG idle: used/free memory and [N/A] utilisation', () => {
    const [g] = parseQueryGpuCsv(derived('h100-80gb-hbm3__mig__590.48.01', 'idle'), INVENTORY_FIELDS);
    expect([g?.memoryUsedMiB, g?.memoryFreeMiB, g?.utilizationGpuPct, g?.powerDrawW]).toEqual([59, 81022, null, 71.15]);
  });
});

describe('parseQueryGpuCsv: other inputs and errors', () => {
  const f = ['index', 'gpu_uuid', 'gpu_name', 'memory.total', 'memory.used', 'mig.mode.current', 'gpu_bus_id'];
  it('accepts aliases, N/A forms, CRLF and blank lines; absent fields are null', () => {
    const text =
      '0, GPU-a, Tesla T4, 15360, N/A, [Not Supported], 00000000:00:1E.0\r\n\r\n' +
      '1, GPU-b, Tesla T4, 15360, 5, Enabled, 00000000:00:1F.0\r\n';
    const gpus = parseQueryGpuCsv(text, f);
    expect(gpus.map((g) => [g.index, g.uuid, g.memoryUsedMiB, g.migMode, g.temperatureC, g.computeMode])).toEqual([
      [0, 'GPU-a', null, 'unsupported', null, null],
      [1, 'GPU-b', 5, 'enabled', null, null],
    ]);
  });
  it('rejects a non-numeric value, naming line, field and value', () => {
    const text = '0, GPU-a, T4, 15360, 1, Disabled, 0:1\n1, GPU-b, T4, 15 GiB, 1, Disabled, 0:2\n';
    expect(() => parseQueryGpuCsv(text, f)).toThrow(
      new NvidiaSmiParseError('line 2, field "memory.total": expected a number, got "15 GiB"'),
    );
  });
  it('rejects N/A in a required number', () => {
    expect(() => parseQueryGpuCsv('0, GPU-a, T4, [N/A], 1, Disabled, 0:1', f)).toThrow(
      'line 1, field "memory.total": expected a number, got "[N/A]"',
    );
  });
  it('rejects a wrong value count', () => {
    expect(() => parseQueryGpuCsv('0, GPU-a, T4, 15360', f)).toThrow(
      'line 1: expected 7 values, got 4: "0, GPU-a, T4, 15360"',
    );
  });
  it('rejects an unknown MIG mode, a bad UUID and a fractional index', () => {
    expect(() => parseQueryGpuCsv('0, GPU-a, T4, 1, 1, Pending, 0:1', f)).toThrow(
      'line 1, field "mig.mode.current": expected Enabled, Disabled or [N/A], got "Pending"',
    );
    expect(() => parseQueryGpuCsv('0, 1234, T4, 1, 1, Disabled, 0:1', f)).toThrow(
      'line 1, field "uuid": expected a GPU- UUID, got "1234"',
    );
    expect(() => parseQueryGpuCsv('0.5, GPU-a, T4, 1, 1, Disabled, 0:1', f)).toThrow(
      'line 1, field "index": expected a non-negative integer, got "0.5"',
    );
  });
  it('rejects a field list without a required field', () => {
    expect(() => parseQueryGpuCsv('', ['index', 'name'])).toThrow(
      'fields: required field "uuid" is missing from [index,name]',
    );
  });
});
