import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import {
  INSUFFICIENT_RESOURCES,
  isInsufficientResources,
  parseMigCommandOutput,
  parseMigComputeInstances,
  parseMigGpuInstances,
} from './nvidia-smi-mig-parse.js';
import { NvidiaSmiParseError } from './nvidia-smi-parse.js';

const mig = (file: string): string =>
  readFileSync(new URL(`../../../test/fixtures/nvidia-smi/mig/${file}`, import.meta.url), 'utf8');
const gi = (profileName: string, profileId: number, gpuInstanceId: number, start: number, size: number) => ({
  gpu: 0,
  profileName,
  profileId,
  gpuInstanceId,
  start,
  size,
});

describe('parseMigGpuInstances on recorded -lgi tables (S7, A100-40GB)', () => {
  it('2 x 3g.20gb', () => {
    expect(parseMigGpuInstances(mig('mig-lgi__a100-40gb__2x3g.20gb__mig-user-guide.txt'))).toEqual([
      gi('3g.20gb', 9, 1, 4, 4),
      gi('3g.20gb', 9, 2, 0, 4),
    ]);
  });

  it('3g + 2g + 1g + 1g (after -cgi 9,19,14,19)', () => {
    expect(parseMigGpuInstances(mig('mig-lgi__a100-40gb__3g+2g+1g+1g__mig-user-guide.txt'))).toEqual([
      gi('1g.5gb', 19, 7, 0, 1),
      gi('1g.5gb', 19, 8, 1, 1),
      gi('2g.10gb', 14, 4, 2, 2),
      gi('3g.20gb', 9, 2, 4, 4),
    ]);
  });

  it('2g + 5 x 1g (two-digit instance IDs)', () => {
    expect(parseMigGpuInstances(mig('mig-lgi__a100-40gb__2g+5x1g__mig-user-guide.txt'))).toEqual([
      gi('1g.5gb', 19, 7, 0, 1),
      gi('1g.5gb', 19, 8, 1, 1),
      gi('1g.5gb', 19, 9, 2, 1),
      gi('1g.5gb', 19, 10, 3, 1),
      gi('1g.5gb', 19, 13, 6, 1),
      gi('2g.10gb', 14, 5, 4, 2),
    ]);
  });

  it('no instances: the message, or nothing, is an empty list', () => {
    expect(parseMigGpuInstances('No GPU instances found: Not Found\n')).toEqual([]);
    expect(parseMigGpuInstances('')).toEqual([]);
  });

  it('CRLF line ends and a +me profile', () => {
    const text = mig('mig-lgi__a100-40gb__2x3g.20gb__mig-user-guide.txt')
      .replace('MIG 3g.20gb       9        1', 'MIG 1g.5gb+me    20        1')
      .split('\n')
      .join('\r\n');
    expect(parseMigGpuInstances(text)[0]).toEqual(gi('1g.5gb+me', 20, 1, 4, 4));
  });

  it('throws on an unrecognised row or on text that is no table', () => {
    const broken = mig('mig-lgi__a100-40gb__2x3g.20gb__mig-user-guide.txt').replace('4:4', '4-4');
    expect(() => parseMigGpuInstances(broken)).toThrow(NvidiaSmiParseError);
    expect(() => parseMigGpuInstances(broken)).toThrow(/line 6: unrecognised nvidia-smi mig -lgi row/);
    expect(() => parseMigGpuInstances('Insufficient Permissions\n')).toThrow(NvidiaSmiParseError);
  });
});

describe('parseMigComputeInstances on the recorded -lci table (S7, A100-40GB)', () => {
  it('GI 1 split into 3 x 1c.3g.20gb', () => {
    expect(parseMigComputeInstances(mig('mig-lci__a100-40gb__gi1-3x1c.3g.20gb__mig-user-guide.txt'))).toEqual(
      [0, 1, 2].map((ci) => ({
        gpu: 0,
        gpuInstanceId: 1,
        profileName: '1c.3g.20gb',
        profileId: 0,
        computeInstanceId: ci,
        placement: null,
      })),
    );
  });

  it('accepts the Placement column of newer drivers, and the no-instances message', () => {
    const row = '|   0      2       MIG 3g.40gb          2         0          0:3    |';
    const text = `+---+\n| Compute instances: |\n|===|\n${row}\n+---+\n`;
    expect(parseMigComputeInstances(text)).toEqual([
      {
        gpu: 0,
        gpuInstanceId: 2,
        profileName: '3g.40gb',
        profileId: 2,
        computeInstanceId: 0,
        placement: { start: 0, size: 3 },
      },
    ]);
    expect(parseMigComputeInstances('No compute instances found: Not Found\n')).toEqual([]);
  });
});

describe('parseMigCommandOutput on recorded -cgi/-cci/-dci/-dgi output (S7, A100-40GB)', () => {
  it('-cgi 9,3g.20gb -C: two GIs, each with its full-width CI', () => {
    const r = parseMigCommandOutput(mig('mig-cgi-C__a100-40gb__9+3g.20gb__mig-user-guide.txt'));
    expect(r.gpuInstancesCreated).toEqual([
      { gpu: 0, gpuInstanceId: 2, profileName: '3g.20gb', profileId: 9 },
      { gpu: 0, gpuInstanceId: 1, profileName: '3g.20gb', profileId: 9 },
    ]);
    expect(r.computeInstancesCreated).toEqual([
      { gpu: 0, gpuInstanceId: 2, computeInstanceId: 0, profileName: '3g.20gb', profileId: 2 },
      { gpu: 0, gpuInstanceId: 1, computeInstanceId: 0, profileName: '3g.20gb', profileId: 2 },
    ]);
    expect(r.failures).toEqual([]);
    expect(r.otherLines).toEqual([]);
    expect(isInsufficientResources(r)).toBe(false);
  });

  it('-cgi 9,19,14,19: four GIs, no CIs', () => {
    const r = parseMigCommandOutput(mig('mig-cgi__a100-40gb__9+19+14+19__mig-user-guide.txt'));
    expect(r.gpuInstancesCreated.map((g) => [g.gpuInstanceId, g.profileName, g.profileId])).toEqual([
      [2, '3g.20gb', 9],
      [7, '1g.5gb', 19],
      [4, '2g.10gb', 14],
      [8, '1g.5gb', 19],
    ]);
    expect(r.computeInstancesCreated).toEqual([]);
    expect(r.failures).toEqual([]);
  });

  it('-cgi 19,19,14,9: three GIs, then Insufficient Resources', () => {
    const r = parseMigCommandOutput(mig('mig-cgi__a100-40gb__19+19+14+9__insufficient-resources__mig-user-guide.txt'));
    expect(r.gpuInstancesCreated).toEqual([
      { gpu: 0, gpuInstanceId: 13, profileName: '1g.5gb', profileId: 19 },
      { gpu: 0, gpuInstanceId: 11, profileName: '1g.5gb', profileId: 19 },
      { gpu: 0, gpuInstanceId: 3, profileName: '2g.10gb', profileId: 14 },
    ]);
    expect(r.failures).toEqual([
      {
        line: 'Unable to create a GPU instance on GPU  0 using profile 9: Insufficient Resources',
        action: 'create a GPU instance on GPU  0 using profile 9',
        reason: INSUFFICIENT_RESOURCES,
      },
      {
        line: 'Failed to create GPU instances: Insufficient Resources',
        action: 'create GPU instances',
        reason: INSUFFICIENT_RESOURCES,
      },
    ]);
    expect(isInsufficientResources(r)).toBe(true);
    expect(r.otherLines).toEqual([]);
  });

  it('-cci 0,0,0 -gi 1: CI lines without a CI ID', () => {
    const r = parseMigCommandOutput(mig('mig-cci__a100-40gb__0+0+0-gi1__mig-user-guide.txt'));
    expect(r.computeInstancesCreated).toEqual(
      Array.from({ length: 3 }, () => ({
        gpu: 0,
        gpuInstanceId: 1,
        computeInstanceId: null,
        profileName: '1c.3g.20gb',
        profileId: 0,
      })),
    );
    expect(r.gpuInstancesCreated).toEqual([]);
  });

  it('-dci -ci 0,1,2 -gi 1 and -dgi', () => {
    expect(
      parseMigCommandOutput(mig('mig-dci__a100-40gb__ci0+1+2-gi1__mig-user-guide.txt')).computeInstancesDestroyed,
    ).toEqual([0, 1, 2].map((ci) => ({ gpu: 0, gpuInstanceId: 1, computeInstanceId: ci })));
    const dgi = parseMigCommandOutput(mig('mig-dgi__a100-40gb__all__mig-user-guide.txt'));
    expect(dgi.gpuInstancesDestroyed).toEqual([
      { gpu: 0, gpuInstanceId: 1 },
      { gpu: 0, gpuInstanceId: 2 },
    ]);
    expect(dgi.failures).toEqual([]);
  });

  it('keeps other lines and other failure reasons', () => {
    const r = parseMigCommandOutput(
      'Unable to destroy GPU instance ID  1 from GPU  0: In use by another client\nsomething else\n',
    );
    expect(r.failures).toEqual([
      {
        line: 'Unable to destroy GPU instance ID  1 from GPU  0: In use by another client',
        action: 'destroy GPU instance ID  1 from GPU  0',
        reason: 'In use by another client',
      },
    ]);
    expect(r.otherLines).toEqual(['something else']);
    expect(isInsufficientResources(r)).toBe(false);
  });
});
