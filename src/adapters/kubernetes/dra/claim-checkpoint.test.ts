import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { CheckpointError, openClaimCheckpoint, type PreparedClaim } from './claim-checkpoint.js';

const CLAIM: PreparedClaim = {
  namespace: 'ns',
  name: 'c',
  devices: [
    {
      request: 'gpu',
      pool: 'n1',
      device: 'gpu-0-shared',
      shareId: 's1',
      cdiDeviceIds: ['gpushare.io/claim=u1-gpu-0-shared'],
    },
  ],
  specFile: '/var/run/cdi/gpushare.io-claim_u1.json',
  migCreated: [{ gpuIndex: 1, profileId: 9, start: 4, gpuInstanceId: 2 }],
};

describe('the claim checkpoint', () => {
  let dir: string;
  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'gpushare-checkpoint-'));
  });
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  it('starts empty, keeps what is put across a reopen, and drops what is removed', async () => {
    const first = await openClaimCheckpoint(join(dir, 'state'), 'n1');
    expect(first.uids()).toEqual([]);
    await first.put('u1', CLAIM);
    await first.put('u2', { ...CLAIM, migCreated: [] });
    const second = await openClaimCheckpoint(join(dir, 'state'), 'n1');
    expect(second.get('u1')).toEqual(CLAIM);
    expect(second.uids()).toEqual(['u1', 'u2']);
    await second.remove('u1');
    await second.remove('never');
    expect((await openClaimCheckpoint(join(dir, 'state'), 'n1')).uids()).toEqual(['u2']);
    expect(readdirSync(join(dir, 'state'))).toEqual(['checkpoint.json']);
  });

  it.each([
    ['a partial write', (text: string) => text.slice(0, text.length / 2), /not JSON/],
    [
      'a file that is not a checkpoint',
      () => '{"version":2,"node":"n1","claims":{}}',
      /version: Invalid literal value/,
    ],
    [
      'a device without a name',
      (text: string) => text.replace('"device": "gpu-0-shared"', '"device": ""'),
      /claims\.u1\.devices\.0\.device/,
    ],
    [
      'another node',
      (text: string) => text.replace('"node": "n1"', '"node": "n2"'),
      /the checkpoint of node n2, not n1/,
    ],
  ])('refuses %s and keeps the file as it is', async (_what, corrupt, problem) => {
    const checkpoint = await openClaimCheckpoint(dir, 'n1');
    await checkpoint.put('u1', CLAIM);
    const file = join(dir, 'checkpoint.json');
    const bad = corrupt(readFileSync(file, 'utf8'));
    writeFileSync(file, bad);
    const error = await openClaimCheckpoint(dir, 'n1').catch((e: unknown) => e);
    expect(error).toBeInstanceOf(CheckpointError);
    expect((error as CheckpointError).code).toBe('CheckpointUnreadable');
    expect((error as CheckpointError).file).toBe(file);
    expect((error as CheckpointError).problem).toMatch(problem);
    expect(readFileSync(file, 'utf8')).toBe(bad);
  });

  it('ignores and removes the temporary file of an interrupted write', async () => {
    const checkpoint = await openClaimCheckpoint(dir, 'n1');
    await checkpoint.put('u1', CLAIM);
    writeFileSync(join(dir, '.checkpoint.json.999.abcd.tmp'), '{"version":1,"node":"n1","cla');
    const reopened = await openClaimCheckpoint(dir, 'n1');
    expect(reopened.get('u1')).toEqual(CLAIM);
    expect(readdirSync(dir)).toEqual(['checkpoint.json']);
  });

  it('keeps memory and file unchanged when a write fails', async () => {
    const checkpoint = await openClaimCheckpoint(dir, 'n1');
    await checkpoint.put('u1', CLAIM);
    const before = readFileSync(join(dir, 'checkpoint.json'), 'utf8');
    rmSync(join(dir, 'checkpoint.json'));
    mkdirSync(join(dir, 'checkpoint.json'));
    await expect(checkpoint.put('u2', CLAIM)).rejects.toThrow();
    expect(checkpoint.uids()).toEqual(['u1']);
    rmSync(join(dir, 'checkpoint.json'), { recursive: true });
    writeFileSync(join(dir, 'checkpoint.json'), before);
    expect((await openClaimCheckpoint(dir, 'n1')).uids()).toEqual(['u1']);
    expect(readdirSync(dir).filter((n) => n.endsWith('.tmp'))).toEqual([]);
  });
});
