/**
 * gpushare's DRA objects on a real API server and kube-scheduler: the DeviceClasses and a node's
 * ResourceSlices (src/adapters/kubernetes/dra) are accepted as published; the stock scheduler's
 * allocator puts two claims of 500 milli-GPU on one shared device and keeps a third off it.
 */
import { describe, expect, it } from 'vitest';
import { deviceClasses } from '../../src/adapters/kubernetes/dra/device-classes.js';
import { DRA_DEVICE_CLASSES } from '../../src/adapters/kubernetes/dra/dra-names.js';
import { resourceSlicesFor } from '../../src/adapters/kubernetes/dra/resource-slices.js';
import { pollFor } from '../e2e/support/serve-harness.js';
import { kubernetesAvailable } from './support/binaries.js';
import { useControlPlane } from './support/use-control-plane.js';

describe.skipIf(!kubernetesAvailable())('gpushare DRA objects on a real control plane', () => {
  const plane = useControlPlane();

  it('accepts the DeviceClasses and the slices of a node with a shared GPU and a MIG GPU', async () => {
    for (const cls of deviceClasses()) {
      const created = await plane().request('POST', '/apis/resource.k8s.io/v1/deviceclasses', cls);
      expect(created.status, JSON.stringify(created.body)).toBe(201);
    }
    const slices = resourceSlicesFor(
      'dra-node-1',
      [
        {
          index: 0,
          uuid: 'GPU-00000000-0000-0000-0000-000000000000',
          model: 'A100-80GB',
          gpuMemoryMiB: 81920,
          migEnabled: false,
          healthy: true,
        },
        {
          index: 1,
          uuid: 'GPU-00000000-0000-0000-0000-000000000001',
          model: 'A100-80GB',
          gpuMemoryMiB: 81920,
          migEnabled: true,
          healthy: true,
        },
        {
          index: 2,
          uuid: 'GPU-00000000-0000-0000-0000-000000000002',
          model: 'T4',
          gpuMemoryMiB: 15360,
          migEnabled: false,
          healthy: false,
        },
      ],
      1,
    );
    for (const slice of slices) {
      const created = await plane().request('POST', '/apis/resource.k8s.io/v1/resourceslices', slice);
      expect(created.status, JSON.stringify(created.body)).toBe(201);
    }
    expect(slices.map((s) => s.metadata.name)).toEqual(['dra-node-1-gpushare-0', 'dra-node-1-gpushare-1']);
    expect(DRA_DEVICE_CLASSES.shared).toBe('shared-gpu.gpushare.io');
  });

  it('lets the stock scheduler put two half-GPU claims on one shared device and keep a third off it', async () => {
    await plane().createNode({ name: 'dra-node-1' });
    const claim = (name: string) => ({
      apiVersion: 'resource.k8s.io/v1',
      kind: 'ResourceClaim',
      metadata: { name },
      spec: {
        devices: {
          requests: [
            {
              name: 'gpu',
              exactly: {
                deviceClassName: DRA_DEVICE_CLASSES.shared,
                capacity: { requests: { gpuMilli: '500', memory: '10Gi' } },
                selectors: [{ cel: { expression: 'device.attributes["gpu.gpushare.io"].index == 0' } }],
              },
            },
          ],
        },
      },
    });
    const pod = (name: string) => ({
      apiVersion: 'v1',
      kind: 'Pod',
      metadata: { name },
      spec: {
        resourceClaims: [{ name: 'gpu', resourceClaimName: name }],
        containers: [{ name: 'main', image: 'busybox', resources: { claims: [{ name: 'gpu' }] } }],
      },
    });
    for (const name of ['half-a', 'half-b', 'half-c']) {
      expect(
        (await plane().request('POST', '/apis/resource.k8s.io/v1/namespaces/default/resourceclaims', claim(name)))
          .status,
      ).toBe(201);
      expect((await plane().request('POST', '/api/v1/namespaces/default/pods', pod(name))).status).toBe(201);
    }
    const allocated = await pollFor(
      'two claims allocated',
      async () => {
        const list = await plane().request<{
          items: {
            metadata: { name: string };
            status?: {
              allocation?: {
                devices: { results: { device: string; shareID?: string; consumedCapacity?: Record<string, string> }[] };
              };
            };
          }[];
        }>('GET', '/apis/resource.k8s.io/v1/namespaces/default/resourceclaims');
        const done = list.body.items.filter((c) => c.status?.allocation !== undefined);
        return done.length >= 2 ? done : undefined;
      },
      60_000,
    );
    process.stdout.write(
      JSON.stringify(allocated.map((c) => [c.metadata.name, c.status!.allocation!.devices.results])) + '\n',
    );
    const events = await pollFor(
      'a FailedScheduling event',
      async () => {
        const list = await plane().request<{
          items: { reason: string; message: string; involvedObject: { name: string } }[];
        }>('GET', '/api/v1/namespaces/default/events');
        const found = list.body.items.filter((e) => e.reason === 'FailedScheduling');
        return found.length > 0 ? found : undefined;
      },
      60_000,
    );
    process.stdout.write(JSON.stringify(events.map((e) => [e.involvedObject.name, e.message])) + '\n');
    expect(allocated.length).toBe(2);
  });
});
