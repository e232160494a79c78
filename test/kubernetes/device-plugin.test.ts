/**
 * The node agent's device plugin against the stand-in kubelet, over real gRPC on unix sockets:
 * registration, ListAndWatch with health, re-registration after a kubelet restart, and
 * PreStartContainer writing each container's CDI spec from its own pod's assignment.
 */
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { status } from '@grpc/grpc-js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cdiSpecFileName } from '../../src/adapters/kubernetes/device-plugin/cdi-writer.js';
import type { CdiSpec } from '../../src/adapters/kubernetes/device-plugin/cdi-spec.js';
import {
  startDevicePlugin,
  type RunningDevicePlugin,
} from '../../src/adapters/kubernetes/device-plugin/device-plugin.js';
import { registerWithKubelet } from '../../src/adapters/kubernetes/device-plugin/kubelet-registration.js';
import { createGpuHealthState, type GpuHealthState } from '../../src/adapters/kubernetes/device-plugin/gpu-health.js';
import type { PodInfo, PodSource } from '../../src/adapters/kubernetes/device-plugin/pod-source.js';
import { slotId } from '../../src/adapters/kubernetes/device-plugin/slots.js';
import type { Device } from '../../src/adapters/kubernetes/device-plugin/wire-types.js';
import { waitUntil } from '../../src/adapters/process/wait-until.js';
import { POD_ANNOTATIONS, RESOURCES } from '../../src/adapters/kubernetes/schema/names.js';
import { assignmentAnnotations, type PodAssignment } from '../../src/adapters/kubernetes/schema/pod-assignment.js';
import { startStandInKubelet, type StandInKubelet } from './support/stand-in-kubelet.js';

const NODE = 'gpu-node-a';
const GPU_COUNT = 8;
const SLOTS_PER_GPU = 16;
const gpus = Array.from({ length: GPU_COUNT }, (_, index) => ({
  index,
  uuid: `GPU-0000000${index}-aaaa-bbbb-cccc-${String(index).padStart(12, '0')}`,
}));
const uuidOf = (index: number): string => gpus[index]!.uuid;

function assignmentOn(
  node: string,
  mode: PodAssignment['mode'],
  shares: { index: number; gpuMilli: number; gpuMemoryMiB: number; migUuid?: string }[],
): PodAssignment {
  return {
    schema: 'v1',
    node,
    mode,
    gpus: shares.map((s) => ({
      index: s.index,
      uuid: uuidOf(s.index),
      gpuMilli: s.gpuMilli,
      accountedGpuMilli: mode === 'mig' ? 0 : s.gpuMilli,
      gpuMemoryMiB: s.gpuMemoryMiB,
      mig:
        s.migUuid === undefined
          ? null
          : { uuid: s.migUuid, profileId: 9, profileName: '3g.40gb', start: 0, size: 4, computeSlices: 3 },
    })),
  };
}

/** A PodSource over a map, counting reads. */
class MapPodSource implements PodSource {
  readonly pods = new Map<string, PodInfo>();
  reads = 0;
  set(namespace: string, name: string, annotations: Record<string, string>): void {
    this.pods.set(`${namespace}/${name}`, { annotations });
  }
  getPod(namespace: string, name: string): Promise<PodInfo | null> {
    this.reads++;
    return Promise.resolve(this.pods.get(`${namespace}/${name}`) ?? null);
  }
}

function readSpec(cdiDir: string, slot: string): CdiSpec {
  return JSON.parse(readFileSync(join(cdiDir, cdiSpecFileName(slot)), 'utf8')) as CdiSpec;
}

function envOf(spec: CdiSpec): Record<string, string> {
  return Object.fromEntries(
    spec.devices[0]!.containerEdits.env.map((e) => [e.slice(0, e.indexOf('=')), e.slice(e.indexOf('=') + 1)]),
  );
}

const allHealthy = (devices: Device[]): boolean =>
  devices.length === GPU_COUNT * SLOTS_PER_GPU && devices.every((d) => d.health === 'Healthy');

describe('device plugin with the stand-in kubelet', () => {
  let tmp: string;
  let pluginDir: string;
  let cdiDir: string;
  let kubelet: StandInKubelet;
  let plugin: RunningDevicePlugin;
  let health: GpuHealthState;
  const pods = new MapPodSource();
  const mpsStarted: string[] = [];

  beforeAll(async () => {
    tmp = mkdtempSync(join(tmpdir(), 'gpushare-dp-'));
    pluginDir = join(tmp, 'device-plugins');
    cdiDir = join(tmp, 'cdi');
    kubelet = await startStandInKubelet({ dir: pluginDir, seed: 7 });
    health = createGpuHealthState(gpus.map((g) => [g.index, true] as const));
    plugin = await startDevicePlugin({
      nodeName: NODE,
      gpus,
      slotsPerGpu: SLOTS_PER_GPU,
      health,
      pods,
      pluginDir,
      cdiDir,
      podResourcesSocket: kubelet.podResourcesSocket,
      pollIntervalMs: 250,
      mps: {
        ensureDaemon: ({ key }) => {
          mpsStarted.push(key);
          return Promise.resolve({ pipeDirectory: `/run/gpushare/mps/${key}/pipe` });
        },
      },
    });
  });

  afterAll(async () => {
    await plugin?.stop();
    await kubelet?.stop();
    rmSync(tmp, { recursive: true, force: true });
  });

  it('registers with version v1beta1, its socket file name, gpushare.io/gpu-slot and its options', async () => {
    await kubelet.onRegistrations(1);
    expect(kubelet.registrations[0]).toEqual({
      version: 'v1beta1',
      endpoint: 'gpushare-gpu-slot.sock',
      resource_name: 'gpushare.io/gpu-slot',
      options: { pre_start_required: true, get_preferred_allocation_available: false },
    });
    expect(kubelet.plugin(RESOURCES.gpuSlot)!.options).toEqual({
      pre_start_required: true,
      get_preferred_allocation_available: false,
    });
    expect(await waitUntil(() => plugin.registrations() === 1, 5000)).toBe(true);
  });

  it('lists 8 GPUs x 16 slots, all healthy, with ids gpu<i>-slot<k>', async () => {
    const devices = await kubelet.onDevices(RESOURCES.gpuSlot, allHealthy);
    expect(devices).toHaveLength(128);
    expect(new Set(devices.map((d) => d.ID))).toEqual(
      new Set(gpus.flatMap((g) => Array.from({ length: SLOTS_PER_GPU }, (_, k) => slotId(g.index, k)))),
    );
    expect(devices.find((d) => d.ID === 'gpu7-slot15')!.health).toBe('Healthy');
  });

  it('shows GPU 3 turning unhealthy and healthy again in ListAndWatch within 5 s', async () => {
    await kubelet.onDevices(RESOURCES.gpuSlot, allHealthy);
    const updatesBefore = kubelet.plugin(RESOURCES.gpuSlot)!.updates;
    let started = Date.now();
    health.set(3, false);
    const down = await kubelet.onDevices(RESOURCES.gpuSlot, (ds) => ds.some((d) => d.health === 'Unhealthy'), 5000);
    const downMs = Date.now() - started;
    for (const d of down) expect([d.ID, d.health]).toEqual([d.ID, d.ID.startsWith('gpu3-') ? 'Unhealthy' : 'Healthy']);
    expect(down.filter((d) => d.health === 'Unhealthy')).toHaveLength(16);
    started = Date.now();
    health.set(3, true);
    const up = await kubelet.onDevices(RESOURCES.gpuSlot, allHealthy, 5000);
    const upMs = Date.now() - started;
    expect(up.find((d) => d.ID === 'gpu3-slot0')!.health).toBe('Healthy');
    expect(kubelet.plugin(RESOURCES.gpuSlot)!.updates).toBe(updatesBefore + 2);
    expect(downMs).toBeLessThan(5000);
    expect(upMs).toBeLessThan(5000);
    console.log(`ListAndWatch: unhealthy seen after ${downMs} ms, healthy again after ${upMs} ms`);
  });

  it(
    'registers again within 5 s after the kubelet restarts (every socket deleted, kubelet.sock ' + 'recreated)',
    async () => {
      const before = kubelet.completedRegistrations;
      const started = Date.now();
      await kubelet.restart();
      await kubelet.onRegistrations(before + 1, 5000);
      const devices = await kubelet.onDevices(RESOURCES.gpuSlot, allHealthy, 5000);
      const ms = Date.now() - started;
      expect(devices).toHaveLength(128);
      expect(kubelet.registrations.at(-1)!.endpoint).toBe('gpushare-gpu-slot.sock');
      expect(await waitUntil(() => plugin.registrations() === before + 1, 5000)).toBe(true);
      expect(ms).toBeLessThan(5000);
      console.log(`re-registered ${ms} ms after the kubelet restart`);
      // Its own socket deleted alone: it serves again and registers again.
      rmSync(plugin.socketPath);
      await kubelet.onRegistrations(before + 2, 5000);
      await kubelet.onDevices(RESOURCES.gpuSlot, allHealthy, 5000);
      expect(await waitUntil(() => plugin.registrations() === before + 2, 5000)).toBe(true);
    },
  );

  it('gives each of 20 pods, allocated in random order, exactly the GPUs of its own assignment', async () => {
    const expected = new Map<string, string>();
    const standInPods = Array.from({ length: 20 }, (_, i) => {
      const name = `job-${i}`;
      const shares =
        i % 5 === 4
          ? [
              { index: i % GPU_COUNT, gpuMilli: 500, gpuMemoryMiB: 40960 },
              { index: (i + 3) % GPU_COUNT, gpuMilli: 500, gpuMemoryMiB: 40960 },
            ]
          : [{ index: (i * 3) % GPU_COUNT, gpuMilli: 250, gpuMemoryMiB: 8192 }];
      const assignment = assignmentOn(NODE, 'timeslice', shares);
      pods.set('team-a', name, { ...assignmentAnnotations(assignment), [POD_ANNOTATIONS.container]: 'main' });
      expected.set(
        name,
        [...shares]
          .sort((a, b) => a.index - b.index)
          .map((s) => uuidOf(s.index))
          .join(','),
      );
      return {
        namespace: 'team-a',
        name,
        containers: [
          { name: 'sidecar', slotCount: 0 },
          { name: 'main', slotCount: 1 },
        ],
      };
    });
    const callsBefore = { ...kubelet.podResourcesCalls };
    const admitted = await kubelet.admitPods(RESOURCES.gpuSlot, standInPods, {
      randomOrder: true,
      randomDevices: true,
    });
    expect(admitted).toHaveLength(20);
    const lists = kubelet.podResourcesCalls.served - callsBefore.served;
    console.log(
      `20 parallel PreStartContainer calls: ${lists} PodResources List calls served, ` +
        `${kubelet.podResourcesCalls.rejected - callsBefore.rejected} refused by the kubelet's rate limit`,
    );
    expect(lists).toBeLessThanOrEqual(20);
    const slotsUsed = new Set<string>();
    for (const pod of admitted) {
      const main = pod.containers.find((c) => c.name === 'main')!;
      expect(pod.containers.find((c) => c.name === 'sidecar')!.preStartCalled).toBe(false);
      expect(main.allocateError).toBeNull();
      expect(main.preStartCalled).toBe(true);
      expect(main.preStartError).toBeNull();
      expect(main.deviceIds).toHaveLength(1);
      const slot = main.deviceIds[0]!;
      slotsUsed.add(slot);
      expect(main.allocate!.cdi_devices).toEqual([{ name: `gpushare.io/gpu=${slot}` }]);
      expect(main.allocate!.envs).toEqual({});
      const spec = readSpec(cdiDir, slot);
      expect(spec.kind).toBe('gpushare.io/gpu');
      expect(spec.cdiVersion).toBe('0.6.0');
      expect(spec.devices.map((d) => d.name)).toEqual([slot]);
      const env = envOf(spec);
      expect(env.CUDA_VISIBLE_DEVICES).toBe(expected.get(pod.name));
      expect(env.NVIDIA_VISIBLE_DEVICES).toBe(expected.get(pod.name));
      expect(env.CUDA_MPS_PIPE_DIRECTORY).toBeUndefined();
    }
    expect(slotsUsed.size).toBe(20);
    for (const pod of standInPods) kubelet.removePod(pod.namespace, pod.name);
  });

  it(
    "fails PreStartContainer of a pod without an assignment, naming the pod, and removes the slot's " + 'earlier spec',
    async () => {
      pods.set(
        'default',
        'earlier',
        assignmentAnnotations(assignmentOn(NODE, 'exclusive', [{ index: 4, gpuMilli: 1000, gpuMemoryMiB: 81920 }])),
      );
      const [earlier] = (
        await kubelet.admitPod(RESOURCES.gpuSlot, {
          namespace: 'default',
          name: 'earlier',
          containers: [{ name: 'main', slotCount: 1 }],
        })
      ).containers;
      expect(envOf(readSpec(cdiDir, earlier!.deviceIds[0]!)).CUDA_VISIBLE_DEVICES).toBe(uuidOf(4));
      kubelet.removePod('default', 'earlier');
      pods.set('default', 'plain', { [POD_ANNOTATIONS.container]: 'main' });
      const [main] = (
        await kubelet.admitPod(RESOURCES.gpuSlot, {
          namespace: 'default',
          name: 'plain',
          containers: [{ name: 'main', slotCount: 1 }],
        })
      ).containers;
      expect(main!.deviceIds).toEqual(earlier!.deviceIds);
      expect(existsSync(join(cdiDir, cdiSpecFileName(main!.deviceIds[0]!)))).toBe(false);
      expect(main!.allocateError).toBeNull();
      expect(main!.preStartError!.code).toBe(status.FAILED_PRECONDITION);
      expect(main!.preStartError!.details).toContain('pod default/plain was not placed by the gpushare extender');
      expect(main!.preStartError!.details).toContain('no gpushare.io/assignment annotation');
      kubelet.removePod('default', 'plain');

      pods.set(
        'default',
        'elsewhere',
        assignmentAnnotations(
          assignmentOn('gpu-node-b', 'exclusive', [{ index: 0, gpuMilli: 1000, gpuMemoryMiB: 81920 }]),
        ),
      );
      const [other] = (
        await kubelet.admitPod(RESOURCES.gpuSlot, {
          namespace: 'default',
          name: 'elsewhere',
          containers: [{ name: 'main', slotCount: 1 }],
        })
      ).containers;
      expect(other!.preStartError!.code).toBe(status.FAILED_PRECONDITION);
      expect(other!.preStartError!.details).toContain(
        'pod default/elsewhere was not placed by the gpushare extender (its assignment names node ' +
          'gpu-node-b, this is node gpu-node-a)',
      );
      kubelet.removePod('default', 'elsewhere');

      const foreign = assignmentOn(NODE, 'exclusive', [{ index: 1, gpuMilli: 1000, gpuMemoryMiB: 81920 }]);
      pods.set(
        'default',
        'foreign',
        assignmentAnnotations({ ...foreign, gpus: foreign.gpus.map((g) => ({ ...g, uuid: 'GPU-of-another-tenant' })) }),
      );
      const [stolen] = (
        await kubelet.admitPod(RESOURCES.gpuSlot, {
          namespace: 'default',
          name: 'foreign',
          containers: [{ name: 'main', slotCount: 1 }],
        })
      ).containers;
      expect(stolen!.preStartError!.code).toBe(status.FAILED_PRECONDITION);
      expect(stolen!.preStartError!.details).toContain(
        'pod default/foreign was not placed by the gpushare extender (its assignment names GPU 1 ' +
          'GPU-of-another-tenant, which is not a GPU of node gpu-node-a)',
      );
      kubelet.removePod('default', 'foreign');
    },
  );

  it('gives an mps pod the thread percentage, pinned memory limit and pipe directory of its assignment', async () => {
    const assignment = assignmentOn(NODE, 'mps', [
      { index: 2, gpuMilli: 333, gpuMemoryMiB: 10240 },
      { index: 5, gpuMilli: 333, gpuMemoryMiB: 10240 },
    ]);
    pods.set('team-b', 'mps-job', assignmentAnnotations(assignment));
    const [main] = (
      await kubelet.admitPod(RESOURCES.gpuSlot, {
        namespace: 'team-b',
        name: 'mps-job',
        containers: [{ name: 'main', slotCount: 1 }],
      })
    ).containers;
    expect(main!.preStartError).toBeNull();
    const spec = readSpec(cdiDir, main!.deviceIds[0]!);
    const env = envOf(spec);
    expect(env.CUDA_VISIBLE_DEVICES).toBe(`${uuidOf(2)},${uuidOf(5)}`);
    expect(env.CUDA_MPS_ACTIVE_THREAD_PERCENTAGE).toBe('34');
    expect(env.CUDA_MPS_PINNED_DEVICE_MEM_LIMIT).toBe(`${uuidOf(2)}=10240M,${uuidOf(5)}=10240M`);
    expect(env.CUDA_MPS_PIPE_DIRECTORY).toBe(`/run/gpushare/mps/${uuidOf(2)}/pipe`);
    expect(spec.devices[0]!.containerEdits.mounts).toEqual([
      {
        hostPath: `/run/gpushare/mps/${uuidOf(2)}/pipe`,
        containerPath: `/run/gpushare/mps/${uuidOf(2)}/pipe`,
        options: ['rbind', 'rw'],
      },
      {
        hostPath: `/run/gpushare/mps/${uuidOf(5)}/pipe`,
        containerPath: `/run/gpushare/mps/${uuidOf(5)}/pipe`,
        options: ['rbind', 'rw'],
      },
    ]);
    expect(mpsStarted).toEqual([uuidOf(2), uuidOf(5)]);
    kubelet.removePod('team-b', 'mps-job');
  });

  it('gives a mig pod its MIG device UUID', async () => {
    const migUuid = 'MIG-7089d0f3-293f-58c9-8f8c-5ea666eedbde';
    pods.set(
      'team-b',
      'mig-job',
      assignmentAnnotations(assignmentOn(NODE, 'mig', [{ index: 6, gpuMilli: 0, gpuMemoryMiB: 40960, migUuid }])),
    );
    const [main] = (
      await kubelet.admitPod(RESOURCES.gpuSlot, {
        namespace: 'team-b',
        name: 'mig-job',
        containers: [{ name: 'main', slotCount: 1 }],
      })
    ).containers;
    expect(main!.preStartError).toBeNull();
    const env = envOf(readSpec(cdiDir, main!.deviceIds[0]!));
    expect(env.CUDA_VISIBLE_DEVICES).toBe(migUuid);
    expect(env.NVIDIA_VISIBLE_DEVICES).toBe(migUuid);
    kubelet.removePod('team-b', 'mig-job');
  });
});

describe('device plugin without fs.watch', () => {
  it('registers again through its poll alone after the kubelet restarts', async () => {
    const tmp = mkdtempSync(join(tmpdir(), 'gpushare-dp-poll-'));
    const kubelet = await startStandInKubelet({ dir: join(tmp, 'device-plugins') });
    const plugin = await startDevicePlugin({
      nodeName: NODE,
      gpus: gpus.slice(0, 2),
      slotsPerGpu: 3,
      health: createGpuHealthState([
        [0, true],
        [1, false],
      ]),
      pods: new MapPodSource(),
      pluginDir: kubelet.dir,
      cdiDir: join(tmp, 'cdi'),
      podResourcesSocket: kubelet.podResourcesSocket,
      pollIntervalMs: 200,
      watchDirectory: false,
    });
    try {
      const first = await kubelet.onDevices(RESOURCES.gpuSlot, (ds) => ds.length === 6);
      expect(first.map((d) => `${d.ID}:${d.health}`)).toEqual([
        'gpu0-slot0:Healthy',
        'gpu0-slot1:Healthy',
        'gpu0-slot2:Healthy',
        'gpu1-slot0:Unhealthy',
        'gpu1-slot1:Unhealthy',
        'gpu1-slot2:Unhealthy',
      ]);
      const started = Date.now();
      await kubelet.restart();
      await kubelet.onRegistrations(2, 5000);
      await kubelet.onDevices(RESOURCES.gpuSlot, (ds) => ds.length === 6, 5000);
      const ms = Date.now() - started;
      expect(ms).toBeLessThan(5000);
      console.log(`poll only: re-registered ${ms} ms after the kubelet restart`);
    } finally {
      await plugin.stop();
      await kubelet.stop();
      rmSync(tmp, { recursive: true, force: true });
    }
  });

  it(
    'the stand-in kubelet refuses an unsupported version and a resource name under kubernetes.io, as ' +
      'the kubelet does',
    async () => {
      const tmp = mkdtempSync(join(tmpdir(), 'gpushare-dp-refuse-'));
      const kubelet = await startStandInKubelet({ dir: join(tmp, 'device-plugins') });
      try {
        const options = { pre_start_required: false, get_preferred_allocation_available: false };
        await expect(
          registerWithKubelet(
            kubelet.kubeletSocket,
            { version: 'v1alpha', endpoint: 'x.sock', resource_name: 'gpushare.io/gpu-slot', options },
            5000,
          ),
        ).rejects.toThrow(
          'requested API version "v1alpha" is not supported by kubelet. Supported versions are ["v1beta1"]',
        );
        await expect(
          registerWithKubelet(
            kubelet.kubeletSocket,
            { version: 'v1beta1', endpoint: 'x.sock', resource_name: 'kubernetes.io/gpu', options },
            5000,
          ),
        ).rejects.toThrow('the ResourceName "kubernetes.io/gpu" is invalid');
        expect(kubelet.completedRegistrations).toBe(0);
        expect(kubelet.registrations).toHaveLength(2);
      } finally {
        await kubelet.stop();
        rmSync(tmp, { recursive: true, force: true });
      }
    },
  );

  it('refuses to start when the discovered GPUs cannot be advertised one to one', async () => {
    const tmp = mkdtempSync(join(tmpdir(), 'gpushare-dp-bad-'));
    try {
      await expect(
        startDevicePlugin({
          nodeName: NODE,
          gpus: [gpus[0]!, { index: 0, uuid: 'GPU-other' }],
          health: createGpuHealthState([]),
          pods: new MapPodSource(),
          pluginDir: tmp,
          cdiDir: join(tmp, 'cdi'),
          podResourcesSocket: join(tmp, 'none.sock'),
        }),
      ).rejects.toThrow('discovered GPUs list index 0 twice: cannot number its slots');
      await expect(
        startDevicePlugin({
          nodeName: NODE,
          gpus,
          slotsPerGpu: 0,
          health: createGpuHealthState([]),
          pods: new MapPodSource(),
          pluginDir: tmp,
        }),
      ).rejects.toThrow('slotsPerGpu must be an integer from 1 to 1000, got 0');
    } finally {
      rmSync(tmp, { recursive: true, force: true });
    }
  });
});
