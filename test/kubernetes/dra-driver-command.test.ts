/**
 * `gpushare dra-driver` as a real process (the built CLI) with simulated GPUs, against a stand-in
 * API server on 127.0.0.1 (slices and claims in memory) and a client acting as the kubelet over
 * the driver's unix sockets: registration (GetInfo), slices equal to the node's GPUs, prepare of a
 * shared (MPS), a memory-only shared, a MIG and a whole-GPU claim, prepare again = same answer,
 * a restart of the driver (prepare again = same, no MIG instance made twice), unprepare, and the
 * registration socket served again after it is deleted.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, statSync, unlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createSimulatedInventory, parseSimulatedGpuSpec } from '../../src/adapters/gpu/simulated-gpus.js';
import { readSimulatedNvidiaSmiState } from '../../src/adapters/gpu/simulated-nvidia-smi.js';
import { claimCdiSpecFileName } from '../../src/adapters/kubernetes/dra/claim-cdi.js';
import { DRA_DRIVER } from '../../src/adapters/kubernetes/dra/dra-names.js';
import { draSocketPath, registrationSocketPath } from '../../src/adapters/kubernetes/dra/kubelet-plugin.js';
import { resourceSlicesFor } from '../../src/adapters/kubernetes/dra/resource-slices.js';
import {
  draKubeletClient,
  getPluginInfo,
  notifyRegistration,
} from '../../src/adapters/kubernetes/dra/testing/dra-kubelet-client.js';
import {
  startStandInDraApi,
  type KubeObject,
  type StandInDraApi,
} from '../../src/adapters/kubernetes/dra/testing/stand-in-dra-api.js';
import type { WireClaim, WireDevice } from '../../src/adapters/kubernetes/dra/dra-wire-types.js';
import { mpsDaemonDirectories } from '../../src/adapters/mps/mps-daemon-manager.js';
import { migProfilesFor } from '../../src/core/index.js';
import { WAIT_MS } from '../../src/testing/deadlines.js';
import { pollFor } from '../e2e/support/serve-harness.js';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const BIN = join(ROOT, 'bin', 'gpushare');
const NODE = 'dra-sim-node';
const SPEC = '1xA100-80GB,1xA100-80GB:mig,1xT4';
const PROFILE = migProfilesFor('A100-80GB').find((p) => p.name === '3g.40gb')!;
const MIG_DEVICE = `gpu-1-mig-${PROFILE.profileId}-${PROFILE.placementStarts[0]}`;

interface Driver {
  process: ChildProcess;
  stderr: () => string;
  exited: Promise<number | null>;
}

function claimObject(name: string, uid: string, results: object[], config: object[] = []): KubeObject {
  return {
    apiVersion: 'resource.k8s.io/v1',
    kind: 'ResourceClaim',
    metadata: { namespace: 'default', name, uid },
    status: { allocation: { devices: { results, config } } },
  };
}

const result = (request: string, device: string, extra: object = {}): object => ({
  request,
  driver: DRA_DRIVER,
  pool: NODE,
  device,
  ...extra,
});

const wire = (name: string, uid: string): WireClaim => ({ namespace: 'default', name, uid });

describe('gpushare dra-driver', () => {
  let tmp: string;
  let api: StandInDraApi;
  let kubeconfig: string;
  let driver: Driver | null = null;
  const gpus = (): Promise<{ uuid: string }[]> => createSimulatedInventory(parseSimulatedGpuSpec(SPEC)).list();

  const start = (): Driver => {
    let stderr = '';
    const child = spawn(
      process.execPath,
      [
        BIN,
        'dra-driver',
        '--node-name',
        NODE,
        '--kubelet-dir',
        join(tmp, 'kubelet'),
        '--cdi-dir',
        join(tmp, 'cdi'),
        '--state-dir',
        join(tmp, 'state'),
        '--mps-dir',
        join(tmp, 'mps'),
        '--simulate-gpus',
        SPEC,
        '--kubeconfig',
        kubeconfig,
        '--log-level',
        'debug',
      ],
      { cwd: ROOT, stdio: ['ignore', 'ignore', 'pipe'] },
    );
    child.stderr!.on('data', (c: Buffer) => (stderr += c.toString()));
    const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
    return { process: child, stderr: () => stderr, exited };
  };

  const waitRunning = async (d: Driver): Promise<void> => {
    await pollFor(
      'the driver running',
      () => {
        if (d.process.exitCode !== null) throw new Error(`the driver exited with ${d.process.exitCode}`);
        return d.stderr().includes('DRA driver running') ? true : undefined;
      },
      WAIT_MS,
    ).catch((e: Error) => {
      throw new Error(`${e.message}; driver stderr: ${d.stderr()}`);
    });
  };

  const stopDriver = async (): Promise<number | null> => {
    const d = driver!;
    d.process.kill('SIGTERM');
    const code = await d.exited;
    driver = null;
    return code;
  };

  beforeAll(async () => {
    tmp = mkdtempSync(join(tmpdir(), 'gpushare-dra-'));
    api = await startStandInDraApi(NODE);
    kubeconfig = join(tmp, 'kubeconfig.json');
    writeFileSync(kubeconfig, api.kubeconfig());
    api.claims.set(
      'default/half-mps',
      claimObject(
        'half-mps',
        'uid-half-mps',
        [result('gpu', 'gpu-0-shared', { shareID: 'share-1', consumedCapacity: { gpuMilli: '500', memory: '10Gi' } })],
        [
          {
            source: 'FromClaim',
            requests: [],
            opaque: {
              driver: DRA_DRIVER,
              parameters: { apiVersion: 'gpushare.io/v1', kind: 'GpuShareConfig', mode: 'mps' },
            },
          },
        ],
      ),
    );
    api.claims.set(
      'default/memory-only',
      claimObject('memory-only', 'uid-memory-only', [
        result('gpu', 'gpu-0-shared', { shareID: 'share-2', consumedCapacity: { gpuMilli: '0', memory: '20Gi' } }),
      ]),
    );
    api.claims.set('default/mig', claimObject('mig', 'uid-mig', [result('gpu', MIG_DEVICE)]));
    api.claims.set('default/whole', claimObject('whole', 'uid-whole', [result('gpu', 'gpu-2')]));
    api.claims.set(
      'default/bad-mode',
      claimObject(
        'bad-mode',
        'uid-bad-mode',
        [result('gpu', 'gpu-0-shared', { shareID: 'share-3', consumedCapacity: { gpuMilli: '100', memory: '0' } })],
        [
          {
            source: 'FromClass',
            opaque: {
              driver: DRA_DRIVER,
              parameters: { apiVersion: 'gpushare.io/v1', kind: 'GpuShareConfig', mode: 'fast' },
            },
          },
        ],
      ),
    );
    driver = start();
    await waitRunning(driver);
  });

  afterAll(async () => {
    if (driver !== null && driver.process.exitCode === null) driver.process.kill('SIGKILL');
    await api?.close();
    rmSync(tmp, { recursive: true, force: true });
  });

  const kubeletDir = (): string => join(tmp, 'kubelet');
  const specOf = (
    uid: string,
  ): { kind: string; devices: { name: string; containerEdits: { env: string[]; mounts?: unknown[] } }[] } =>
    JSON.parse(readFileSync(join(tmp, 'cdi', claimCdiSpecFileName(uid)), 'utf8')) as never;
  const migInstances = (): { profileId: number; start: number }[] =>
    readSimulatedNvidiaSmiState(join(tmp, 'state', 'simulated-nvidia-smi.json')).gpus[1]!.gpuInstances;

  it('registers as a DRA plugin and publishes slices equal to its GPUs', async () => {
    const info = await getPluginInfo(registrationSocketPath(kubeletDir()));
    expect(info).toEqual({
      type: 'DRAPlugin',
      name: 'gpu.gpushare.io',
      endpoint: draSocketPath(kubeletDir()),
      supported_versions: ['v1.DRAPlugin', 'v1beta1.DRAPlugin'],
    });
    await notifyRegistration(registrationSocketPath(kubeletDir()), { plugin_registered: true, error: '' });
    await pollFor('registered logged', () =>
      driver!.stderr().includes('registered with the kubelet') ? true : undefined,
    );
    const published = await pollFor('slices published', () =>
      api.slices.size === 2 ? [...api.slices.values()] : undefined,
    );
    const generation = (published[0]!.spec as { pool: { generation: number } }).pool.generation;
    const expected = resourceSlicesFor(
      NODE,
      (await createSimulatedInventory(parseSimulatedGpuSpec(SPEC)).list()).map((g) => ({
        index: g.index,
        uuid: g.uuid,
        model: g.model,
        gpuMemoryMiB: g.gpuMemoryMiB,
        migEnabled: g.migEnabled,
        healthy: g.healthy,
      })),
      generation,
    );
    expect(generation).toBe(1);
    expect(published.map((s) => s.spec)).toEqual(expected.map((s) => s.spec));
    expect(published.map((s) => s.metadata.ownerReferences)).toEqual([
      [{ apiVersion: 'v1', kind: 'Node', name: NODE, uid: 'node-uid-1', controller: true }],
      [{ apiVersion: 'v1', kind: 'Node', name: NODE, uid: 'node-uid-1', controller: true }],
    ]);
  });

  let first: Record<string, { devices: WireDevice[]; error: string }>;

  it('prepares shared (MPS), memory-only, MIG and whole-GPU claims and answers each claim', async () => {
    const [g0, , g2] = await gpus();
    const client = draKubeletClient(draSocketPath(kubeletDir()), 'v1');
    try {
      const answer = await client.prepare([
        wire('half-mps', 'uid-half-mps'),
        wire('memory-only', 'uid-memory-only'),
        wire('mig', 'uid-mig'),
        wire('whole', 'uid-whole'),
        wire('bad-mode', 'uid-bad-mode'),
        wire('missing', 'uid-missing'),
      ]);
      first = answer.claims;
    } finally {
      client.close();
    }
    expect(first['uid-half-mps']).toEqual({
      devices: [
        {
          request_names: ['gpu'],
          pool_name: NODE,
          device_name: 'gpu-0-shared',
          cdi_device_ids: ['gpushare.io/claim=uid-half-mps-gpu-0-shared'],
          share_id: 'share-1',
        },
      ],
      error: '',
    });
    expect(first['uid-bad-mode']!.error).toBe(
      'InvalidDriverConfig: claim default/bad-mode: config[0].opaque.parameters.mode must be "timeslice" or ' +
        '"mps", got "fast"',
    );
    expect(first['uid-missing']!.error).toBe('ClaimNotFound: claim default/missing does not exist');
    const pipe = mpsDaemonDirectories(join(tmp, 'mps'), g0!.uuid).pipeDirectory;
    expect(specOf('uid-half-mps')).toEqual({
      cdiVersion: '0.6.0',
      kind: 'gpushare.io/claim',
      devices: [
        {
          name: 'uid-half-mps-gpu-0-shared',
          containerEdits: {
            env: [
              `CUDA_VISIBLE_DEVICES=${g0!.uuid}`,
              `NVIDIA_VISIBLE_DEVICES=${g0!.uuid}`,
              'GPUSHARE_MODE=mps',
              'GPUSHARE_GPU_COUNT=1',
              'GPUSHARE_GPU_MILLI=500',
              'GPUSHARE_GPU_MEMORY_MIB=10240',
              'CUDA_MPS_ACTIVE_THREAD_PERCENTAGE=50',
              `CUDA_MPS_PINNED_DEVICE_MEM_LIMIT=${g0!.uuid}=10240M`,
              `CUDA_MPS_PIPE_DIRECTORY=${pipe}`,
            ],
            mounts: [{ hostPath: pipe, containerPath: pipe, options: ['rbind', 'rw'] }],
          },
        },
      ],
    });
    expect(specOf('uid-memory-only').devices[0]!.containerEdits.env).toEqual([
      `CUDA_VISIBLE_DEVICES=${g0!.uuid}`,
      `NVIDIA_VISIBLE_DEVICES=${g0!.uuid}`,
      'GPUSHARE_MODE=timeslice',
      'GPUSHARE_GPU_COUNT=1',
      'GPUSHARE_GPU_MILLI=0',
      'GPUSHARE_GPU_MEMORY_MIB=20480',
    ]);
    expect(specOf('uid-whole').devices[0]!.containerEdits.env).toEqual([
      `CUDA_VISIBLE_DEVICES=${g2!.uuid}`,
      `NVIDIA_VISIBLE_DEVICES=${g2!.uuid}`,
      'GPUSHARE_MODE=exclusive',
      'GPUSHARE_GPU_COUNT=1',
      'GPUSHARE_GPU_MILLI=1000',
      'GPUSHARE_GPU_MEMORY_MIB=16384',
    ]);
    const migEnv = specOf('uid-mig').devices[0]!.containerEdits.env;
    expect(migEnv[0]).toMatch(/^CUDA_VISIBLE_DEVICES=MIG-[0-9a-f-]{36}$/);
    expect(migEnv.slice(2)).toEqual([
      'GPUSHARE_MODE=mig',
      'GPUSHARE_GPU_COUNT=1',
      `GPUSHARE_GPU_MILLI=${Math.floor((1000 * PROFILE.computeSlices) / 7)}`,
      `GPUSHARE_GPU_MEMORY_MIB=${PROFILE.usableMemoryMiB}`,
    ]);
    expect(migInstances().map((i) => [i.profileId, i.start])).toEqual([
      [PROFILE.profileId, PROFILE.placementStarts[0]],
    ]);
    expect(existsSync(join(tmp, 'cdi', claimCdiSpecFileName('uid-bad-mode')))).toBe(false);
  });

  it('answers a second prepare (v1 and v1beta1) the same, creating nothing', async () => {
    const migSpec = specOf('uid-mig');
    const v1 = draKubeletClient(draSocketPath(kubeletDir()), 'v1');
    const v1beta1 = draKubeletClient(draSocketPath(kubeletDir()), 'v1beta1');
    try {
      const again = await v1.prepare([wire('half-mps', 'uid-half-mps'), wire('mig', 'uid-mig')]);
      expect(again.claims).toEqual({ 'uid-half-mps': first['uid-half-mps'], 'uid-mig': first['uid-mig'] });
      const beta = await v1beta1.prepare([wire('half-mps', 'uid-half-mps')]);
      expect(beta.claims['uid-half-mps']).toEqual({
        devices: [
          {
            request_names: ['gpu'],
            pool_name: NODE,
            device_name: 'gpu-0-shared',
            cdi_device_ids: ['gpushare.io/claim=uid-half-mps-gpu-0-shared'],
          },
        ],
        error: '',
      });
    } finally {
      v1.close();
      v1beta1.close();
    }
    expect(migInstances()).toHaveLength(1);
    expect(specOf('uid-mig')).toEqual(migSpec);
  });

  it('serves the registration socket again when it is deleted (a restarted kubelet finds it)', async () => {
    const socket = registrationSocketPath(kubeletDir());
    unlinkSync(socket);
    const info = await pollFor('the socket served again', async () =>
      existsSync(socket) ? await getPluginInfo(socket).catch(() => undefined) : undefined,
    );
    expect(info.name).toBe('gpu.gpushare.io');
  });

  it('keeps prepared claims across a restart: same answer, nothing created twice, a new pool generation', async () => {
    const migSpec = specOf('uid-mig');
    const written = statSync(join(tmp, 'cdi', claimCdiSpecFileName('uid-mig'))).mtimeMs;
    expect(await stopDriver()).toBe(0);
    expect(existsSync(registrationSocketPath(kubeletDir()))).toBe(false);
    driver = start();
    await waitRunning(driver);
    expect(driver.stderr()).toContain('"preparedClaims":4');
    const client = draKubeletClient(draSocketPath(kubeletDir()), 'v1');
    try {
      const again = await client.prepare([wire('mig', 'uid-mig'), wire('whole', 'uid-whole')]);
      expect(again.claims).toEqual({ 'uid-mig': first['uid-mig'], 'uid-whole': first['uid-whole'] });
    } finally {
      client.close();
    }
    expect(migInstances()).toHaveLength(1);
    expect(specOf('uid-mig')).toEqual(migSpec);
    expect(statSync(join(tmp, 'cdi', claimCdiSpecFileName('uid-mig'))).mtimeMs).toBe(written);
    await pollFor('generation 2', () =>
      [...api.slices.values()].every((s) => (s.spec as { pool: { generation: number } }).pool.generation === 2)
        ? true
        : undefined,
    );
  });

  it('unprepares: spec removed, MIG instance destroyed, unknown claims succeed', async () => {
    const client = draKubeletClient(draSocketPath(kubeletDir()), 'v1');
    try {
      const answer = await client.unprepare([
        wire('mig', 'uid-mig'),
        wire('half-mps', 'uid-half-mps'),
        wire('x', 'uid-unknown'),
      ]);
      expect(answer.claims).toEqual({
        'uid-mig': { error: '' },
        'uid-half-mps': { error: '' },
        'uid-unknown': { error: '' },
      });
      const twice = await client.unprepare([wire('mig', 'uid-mig')]);
      expect(twice.claims).toEqual({ 'uid-mig': { error: '' } });
    } finally {
      client.close();
    }
    expect(existsSync(join(tmp, 'cdi', claimCdiSpecFileName('uid-mig')))).toBe(false);
    expect(existsSync(join(tmp, 'cdi', claimCdiSpecFileName('uid-half-mps')))).toBe(false);
    expect(existsSync(join(tmp, 'cdi', claimCdiSpecFileName('uid-whole')))).toBe(true);
    expect(migInstances()).toEqual([]);
    const checkpoint = JSON.parse(readFileSync(join(tmp, 'state', 'checkpoint.json'), 'utf8')) as { claims: object };
    expect(Object.keys(checkpoint.claims).sort()).toEqual(['uid-memory-only', 'uid-whole']);
    expect(await stopDriver()).toBe(0);
  });
});
