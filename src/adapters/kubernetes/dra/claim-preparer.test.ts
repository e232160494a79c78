import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { MigInstanceState, MigManager, MigPlan } from '../../../app/ports/mig-manager.js';
import type { ResourceClaimObject } from './claim-allocation.js';
import { openClaimCheckpoint } from './claim-checkpoint.js';
import { ClaimNotFoundError, createClaimPreparer, type ClaimPreparer } from './claim-preparer.js';
import { PrepareFailure } from './prepare-failure.js';

const GPUS = [
  { index: 0, uuid: 'GPU-0', model: 'A100-80GB', gpuMemoryMiB: 81920 },
  { index: 1, uuid: 'GPU-1', model: 'A100-80GB', gpuMemoryMiB: 81920 },
];

/** A MigManager over memory, counting the instances it creates. */
function memoryMig(): MigManager & {
  instances: Map<number, MigInstanceState[]>;
  creates: number;
  failCreate: boolean;
} {
  let nextId = 1;
  const instances = new Map<number, MigInstanceState[]>();
  const state = {
    instances,
    creates: 0,
    failCreate: false,
    listInstances: (gpu: number) => Promise.resolve([...(instances.get(gpu) ?? [])]),
    apply(gpu: number, plan: MigPlan) {
      const list = instances.get(gpu) ?? [];
      let destroyed = 0;
      for (const d of plan.destroy) {
        const i = list.findIndex((x) => x.start === d.start && x.profileId === d.profileId);
        if (i >= 0) {
          list.splice(i, 1);
          destroyed++;
        }
      }
      const created: MigInstanceState[] = [];
      if (state.failCreate && plan.create.length > 0)
        return Promise.resolve({ ok: false, created, destroyed, error: 'Insufficient Resources: nvidia-smi mig -cgi' });
      for (const c of plan.create) {
        const id = nextId++;
        state.creates++;
        const made = {
          gpuInstanceId: id,
          profileId: c.profileId,
          profileName: '3g.40gb',
          start: c.start,
          size: 4,
          computeInstances: [{ computeInstanceId: 0, profileId: 2 }],
          migDeviceUuid: `MIG-${gpu}-${id}`,
        };
        list.push(made);
        created.push(made);
      }
      instances.set(gpu, list);
      return Promise.resolve({ ok: true, created, destroyed, error: null });
    },
  };
  return state;
}

function claim(name: string, uid: string, devices: string[]): ResourceClaimObject {
  return {
    metadata: { namespace: 'ns', name, uid },
    status: {
      allocation: {
        devices: {
          results: devices.map((device) => ({ request: 'gpu', driver: 'gpu.gpushare.io', pool: 'n1', device })),
        },
      },
    },
  };
}

describe('the claim preparer', () => {
  let dir: string;
  let mig: ReturnType<typeof memoryMig>;
  const claims = new Map<string, ResourceClaimObject>();
  let reads = 0;
  const make = async (cdiDir = join(dir, 'cdi')): Promise<ClaimPreparer> =>
    createClaimPreparer({
      nodeName: 'n1',
      gpus: GPUS,
      claims: {
        read: (namespace, name) => {
          reads++;
          const found = claims.get(`${namespace}/${name}`);
          return found ? Promise.resolve(found) : Promise.reject(new ClaimNotFoundError('no'));
        },
      },
      mig,
      mps: null,
      cdiDir,
      checkpoint: await openClaimCheckpoint(join(dir, 'state'), 'n1'),
    });

  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'gpushare-preparer-'));
    mig = memoryMig();
    reads = 0;
    claims.clear();
    claims.set('ns/m', claim('m', 'um', ['gpu-1-mig-9-4']));
    claims.set('ns/w', claim('w', 'uw', ['gpu-0']));
  });
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  it('prepares once: later prepares, also by a new preparer on its checkpoint, read and create nothing', async () => {
    const first = await make();
    const a = await first.prepare({ namespace: 'ns', name: 'm', uid: 'um' });
    expect(a).toEqual({
      created: true,
      devices: [
        {
          request: 'gpu',
          pool: 'n1',
          device: 'gpu-1-mig-9-4',
          shareId: null,
          cdiDeviceIds: ['gpushare.io/claim=um-gpu-1-mig-9-4'],
        },
      ],
    });
    expect(await first.prepare({ namespace: 'ns', name: 'm', uid: 'um' })).toEqual({ ...a, created: false });
    const second = await make();
    expect(await second.prepare({ namespace: 'ns', name: 'm', uid: 'um' })).toEqual({ ...a, created: false });
    expect([reads, mig.creates]).toEqual([1, 1]);
    const spec = JSON.parse(readFileSync(join(dir, 'cdi', 'gpushare.io-claim_um.json'), 'utf8')) as {
      devices: { containerEdits: { env: string[] } }[];
    };
    expect(spec.devices[0]!.containerEdits.env[0]).toBe('CUDA_VISIBLE_DEVICES=MIG-1-1');
  });

  it('uses a MIG instance that exists without counting it as its own', async () => {
    await mig.apply(1, { destroy: [], create: [{ profileId: 9, start: 4 }] });
    const preparer = await make();
    await preparer.prepare({ namespace: 'ns', name: 'm', uid: 'um' });
    await preparer.unprepare('um');
    expect(mig.instances.get(1)!.map((i) => i.start)).toEqual([4]);
    expect(mig.creates).toBe(1);
  });

  it('unprepares: removes the spec, destroys its instance, forgets the claim; unknown UIDs succeed', async () => {
    const preparer = await make();
    await preparer.prepare({ namespace: 'ns', name: 'm', uid: 'um' });
    await preparer.unprepare('um');
    await preparer.unprepare('um');
    await preparer.unprepare('never-prepared');
    expect(existsSync(join(dir, 'cdi', 'gpushare.io-claim_um.json'))).toBe(false);
    expect(mig.instances.get(1)).toEqual([]);
    expect((await openClaimCheckpoint(join(dir, 'state'), 'n1')).uids()).toEqual([]);
  });

  it('fails with a code and undoes what it made when the spec cannot be written', async () => {
    writeFileSync(join(dir, 'not-a-dir'), '');
    const preparer = await make(join(dir, 'not-a-dir'));
    const error = await preparer.prepare({ namespace: 'ns', name: 'm', uid: 'um' }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(PrepareFailure);
    expect((error as PrepareFailure).code).toBe('CdiWriteFailed');
    expect(mig.instances.get(1)).toEqual([]);
    expect((await openClaimCheckpoint(join(dir, 'state'), 'n1')).uids()).toEqual([]);
  });

  it('reports a refused MIG creation and a missing claim by code', async () => {
    mig.failCreate = true;
    const preparer = await make();
    const refused = (await preparer
      .prepare({ namespace: 'ns', name: 'm', uid: 'um' })
      .catch((e: unknown) => e)) as PrepareFailure;
    expect(refused.wireError()).toBe(
      'MigCreateFailed: the MIG instance 3g.40gb at slice 4 of GPU 1 (device gpu-1-mig-9-4) could not be made ' +
        'ready: Insufficient Resources: nvidia-smi mig -cgi',
    );
    const missing = (await preparer
      .prepare({ namespace: 'ns', name: 'x', uid: 'ux' })
      .catch((e: unknown) => e)) as PrepareFailure;
    expect([missing.code, missing.details]).toEqual(['ClaimNotFound', { claim: 'ns/x' }]);
    expect(existsSync(join(dir, 'cdi'))).toBe(false);
  });

  it('asks for MPS daemons only where they run', async () => {
    claims.set('ns/s', {
      metadata: { namespace: 'ns', name: 's', uid: 'us' },
      status: {
        allocation: {
          devices: {
            results: [
              {
                request: 'gpu',
                driver: 'gpu.gpushare.io',
                pool: 'n1',
                device: 'gpu-0-shared',
                consumedCapacity: { gpuMilli: '500' },
              },
            ],
            config: [
              {
                opaque: {
                  driver: 'gpu.gpushare.io',
                  parameters: { apiVersion: 'gpushare.io/v1', kind: 'GpuShareConfig', mode: 'mps' },
                },
              },
            ],
          },
        },
      },
    });
    const preparer = await make();
    const error = (await preparer
      .prepare({ namespace: 'ns', name: 's', uid: 'us' })
      .catch((e: unknown) => e)) as PrepareFailure;
    expect(error.wireError()).toBe('MpsDaemonFailed: the claim asks for MPS, but node n1 runs no MPS daemons');
  });
});
