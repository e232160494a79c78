/**
 * `gpushare node-agent` as a real process (the built CLI) with simulated GPUs, against a stand-in
 * kubelet and a stand-in API server on 127.0.0.1 that records the node patches and serves pods.
 */
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cdiSpecFileName } from '../../src/adapters/kubernetes/device-plugin/cdi-writer.js';
import type { CdiSpec } from '../../src/adapters/kubernetes/device-plugin/cdi-spec.js';
import { waitUntil } from '../../src/adapters/process/wait-until.js';
import { RESOURCES } from '../../src/adapters/kubernetes/schema/names.js';
import { parseInventory, type NodeInventory } from '../../src/adapters/kubernetes/schema/node-inventory.js';
import { assignmentAnnotations } from '../../src/adapters/kubernetes/schema/pod-assignment.js';
import { startStandInKubelet, type StandInKubelet } from './support/stand-in-kubelet.js';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const BIN = join(ROOT, 'bin', 'gpushare');
const NODE = 'sim-node-1';

interface Patch {
  url: string;
  body: {
    metadata?: { annotations: Record<string, string>; labels: Record<string, string> };
    status?: { capacity: Record<string, string>; allocatable: Record<string, string> };
  };
}

describe('gpushare node-agent', () => {
  let tmp: string;
  let api: Server;
  let kubelet: StandInKubelet;
  let agent: ChildProcess;
  let stderr = '';
  const patches: Patch[] = [];
  const podAnnotations = new Map<string, Record<string, string>>();

  beforeAll(async () => {
    tmp = mkdtempSync(join(tmpdir(), 'gpushare-agent-'));
    api = createServer((req, res) => {
      let text = '';
      req.on('data', (c: Buffer) => (text += c.toString()));
      req.on('end', () => {
        res.setHeader('content-type', 'application/json');
        const pod = /^\/api\/v1\/namespaces\/([^/]+)\/pods\/([^/?]+)/.exec(req.url!);
        if (req.method === 'GET' && pod) {
          const annotations = podAnnotations.get(`${pod[1]}/${pod[2]}`);
          if (annotations === undefined) {
            res.statusCode = 404;
            res.end(
              JSON.stringify({ kind: 'Status', apiVersion: 'v1', status: 'Failure', reason: 'NotFound', code: 404 }),
            );
          } else {
            res.end(
              JSON.stringify({
                kind: 'Pod',
                apiVersion: 'v1',
                metadata: { namespace: pod[1], name: pod[2], annotations },
              }),
            );
          }
          return;
        }
        if (req.method === 'PATCH') patches.push({ url: req.url!, body: JSON.parse(text) as Patch['body'] });
        res.end(JSON.stringify({ kind: 'Node', apiVersion: 'v1', metadata: { name: NODE } }));
      });
    });
    await new Promise<void>((resolve) => api.listen(0, '127.0.0.1', resolve));
    const kubeconfig = join(tmp, 'kubeconfig.json');
    writeFileSync(
      kubeconfig,
      JSON.stringify({
        apiVersion: 'v1',
        kind: 'Config',
        'current-context': 'test',
        clusters: [
          {
            name: 'test',
            cluster: {
              server: `http://127.0.0.1:${(api.address() as AddressInfo).port}`,
              'insecure-skip-tls-verify': true,
            },
          },
        ],
        users: [{ name: 'agent', user: { token: 'agent-token' } }],
        contexts: [{ name: 'test', context: { cluster: 'test', user: 'agent' } }],
      }),
    );
    kubelet = await startStandInKubelet({ dir: join(tmp, 'device-plugins') });
    agent = spawn(
      process.execPath,
      [
        BIN,
        'node-agent',
        '--node-name',
        NODE,
        '--kubelet-dir',
        kubelet.dir,
        '--pod-resources-socket',
        kubelet.podResourcesSocket,
        '--cdi-dir',
        join(tmp, 'cdi'),
        '--simulate-gpus',
        '2xA100-80GB',
        '--slots-per-gpu',
        '4',
        '--kubeconfig',
        kubeconfig,
      ],
      { cwd: ROOT, stdio: ['ignore', 'ignore', 'pipe'] },
    );
    agent.stderr!.on('data', (c: Buffer) => (stderr += c.toString()));
  });

  afterAll(async () => {
    if (agent.exitCode === null) agent.kill('SIGKILL');
    await kubelet?.stop();
    await new Promise((resolve) => api.close(resolve));
    rmSync(tmp, { recursive: true, force: true });
  });

  it(
    'registers, publishes the node, prepares a pod, re-registers after a kubelet restart and stops ' + 'on SIGTERM',
    async () => {
      await kubelet.onRegistrations(1, 20_000).catch((e: Error) => {
        throw new Error(`${e.message}; agent stderr: ${stderr}`);
      });
      const devices = await kubelet.onDevices(
        RESOURCES.gpuSlot,
        (ds) => ds.length === 8 && ds.every((d) => d.health === 'Healthy'),
      );
      expect(devices.map((d) => d.ID)).toEqual([
        'gpu0-slot0',
        'gpu0-slot1',
        'gpu0-slot2',
        'gpu0-slot3',
        'gpu1-slot0',
        'gpu1-slot1',
        'gpu1-slot2',
        'gpu1-slot3',
      ]);

      expect(
        await waitUntil(() => patches.some((p) => p.url.startsWith(`/api/v1/nodes/${NODE}/status`)), 10_000, 20),
        stderr,
      ).toBe(true);
      const metadata = patches.find((p) => p.url.startsWith(`/api/v1/nodes/${NODE}?`))!.body.metadata!;
      expect(metadata.labels).toEqual({
        'gpushare.io/managed': 'true',
        'gpushare.io/gpu-model': 'A100-80GB',
        'gpushare.io/gpu-memory-mib': '81920',
        'gpushare.io/gpu-count': '2',
      });
      const inventory = parseInventory(metadata.annotations) as NodeInventory;
      expect(inventory.gpus.map((g) => [g.index, g.model, g.healthy])).toEqual([
        [0, 'A100-80GB', true],
        [1, 'A100-80GB', true],
      ]);
      expect(patches.find((p) => p.url.startsWith(`/api/v1/nodes/${NODE}/status`))!.body.status).toEqual({
        capacity: { 'gpushare.io/gpu': '2', 'gpushare.io/gpu-milli': '2000', 'gpushare.io/gpu-memory-mib': '163840' },
        allocatable: {
          'gpushare.io/gpu': '2',
          'gpushare.io/gpu-milli': '2000',
          'gpushare.io/gpu-memory-mib': '163840',
        },
      });

      const gpu1 = inventory.gpus[1]!;
      podAnnotations.set(
        'team-a/half',
        assignmentAnnotations({
          schema: 'v1',
          node: NODE,
          mode: 'timeslice',
          gpus: [{ index: 1, uuid: gpu1.uuid, gpuMilli: 500, accountedGpuMilli: 500, gpuMemoryMiB: 40960, mig: null }],
        }),
      );
      const [main] = (
        await kubelet.admitPod(RESOURCES.gpuSlot, {
          namespace: 'team-a',
          name: 'half',
          containers: [{ name: 'main', slotCount: 1 }],
        })
      ).containers;
      expect(main!.preStartError).toBeNull();
      const spec = JSON.parse(readFileSync(join(tmp, 'cdi', cdiSpecFileName(main!.deviceIds[0]!)), 'utf8')) as CdiSpec;
      expect(spec.devices[0]!.containerEdits.env.slice(0, 2)).toEqual([
        `CUDA_VISIBLE_DEVICES=${gpu1.uuid}`,
        `NVIDIA_VISIBLE_DEVICES=${gpu1.uuid}`,
      ]);
      const [stray] = (
        await kubelet.admitPod(RESOURCES.gpuSlot, {
          namespace: 'team-a',
          name: 'stray',
          containers: [{ name: 'main', slotCount: 1 }],
        })
      ).containers;
      expect(stray!.preStartError!.details).toBe(`pod team-a/stray (holder of ${stray!.deviceIds[0]}) does not exist`);

      const statusPatches = patches.filter((p) => p.url.includes('/status')).length;
      await kubelet.restart();
      await kubelet.onRegistrations(2, 5000);
      expect(
        await waitUntil(() => patches.filter((p) => p.url.includes('/status')).length > statusPatches, 5000, 20),
      ).toBe(true);

      const exited = new Promise<number | null>((resolve) => agent.once('exit', (code) => resolve(code)));
      agent.kill('SIGTERM');
      expect(await exited).toBe(0);
      expect(existsSync(join(kubelet.dir, 'gpushare-gpu-slot.sock'))).toBe(false);
    },
  );

  it('refuses to start without a node name, naming the flag', () => {
    const r = spawnSync(process.execPath, [BIN, 'node-agent', '--simulate-gpus', '1xT4'], {
      cwd: ROOT,
      encoding: 'utf8',
      timeout: 60_000,
      env: { ...process.env, NODE_NAME: '' },
    });
    expect(r.status).toBe(2);
    expect(r.stderr).toContain('--node-name is required (or set NODE_NAME');
  });
});
