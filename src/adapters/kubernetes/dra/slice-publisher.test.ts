import { KubeConfig } from '@kubernetes/client-node';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { kubeRestFrom, type KubeRest } from '../extender/kube-rest.js';
import { resourceSlicesFor, type SliceGpu } from './resource-slices.js';
import { createSlicePublisher, type SlicePublisher } from './slice-publisher.js';
import { startStandInDraApi, type StandInDraApi } from './testing/stand-in-dra-api.js';

const gpu = (index: number, healthy = true): SliceGpu => ({
  index,
  uuid: `GPU-${index}`,
  model: 'A100-80GB',
  gpuMemoryMiB: 81920,
  migEnabled: false,
  healthy,
});

async function until(check: () => boolean, what: string): Promise<void> {
  const deadline = Date.now() + 30_000;
  while (!check()) {
    if (Date.now() > deadline) throw new Error(`${what}: not within 30 s`);
    await new Promise((r) => setTimeout(r, 20));
  }
}

describe('the slice publisher', () => {
  let api: StandInDraApi;
  let client: KubeRest;
  let publisher: SlicePublisher;
  const errors: string[] = [];

  beforeEach(async () => {
    api = await startStandInDraApi('n1');
    const config = new KubeConfig();
    config.loadFromString(api.kubeconfig());
    client = kubeRestFrom(config);
    errors.length = 0;
  });
  afterEach(async () => {
    publisher.stop();
    client.close();
    await api.close();
  });

  const make = (resyncMs = 60_000, recheckMs = 1000): SlicePublisher =>
    (publisher = createSlicePublisher({
      api: client,
      nodeName: 'n1',
      retryMs: 20,
      resyncMs,
      recheckMs,
      onError: (e) => errors.push(e.message),
    }));

  const stored = (): unknown[] =>
    [...api.slices.values()].map((s) => s.spec).sort((a, b) => JSON.stringify(a).localeCompare(JSON.stringify(b)));
  const expected = (gpus: SliceGpu[], generation: number): unknown[] =>
    resourceSlicesFor('n1', gpus, generation)
      .map((s) => s.spec)
      .sort((a, b) => JSON.stringify(a).localeCompare(JSON.stringify(b)));

  it('publishes the slices, bumps the generation on a health change, and deletes slices it no longer has', async () => {
    make();
    const nine = Array.from({ length: 9 }, (_, i) => gpu(i));
    await publisher.publish(nine, 'start');
    expect(api.slices.size).toBe(3);
    expect(stored()).toEqual(expected(nine, 1));
    await publisher.publish([gpu(0, false)], 'GPU health changed');
    expect(publisher.generation()).toBe(2);
    expect(stored()).toEqual(expected([gpu(0, false)], 2));
    expect([...api.slices.keys()].sort()).toEqual(['n1-gpushare-0', 'n1-gpushare-1']);
    expect(JSON.stringify(stored())).toContain('"key":"gpu.gpushare.io/unhealthy"');
  });

  it('starts above the generation already in the API server, so a restart never reuses one', async () => {
    make();
    await publisher.publish([gpu(0)], 'start');
    await publisher.publish([gpu(0)], 'again');
    publisher.stop();
    make();
    await publisher.publish([gpu(0)], 'restart');
    expect(publisher.generation()).toBe(3);
    expect(stored()).toEqual(expected([gpu(0)], 3));
  });

  it('retries a failed publish', async () => {
    make();
    api.failNext(2);
    await publisher.publish([gpu(0)], 'start');
    expect(errors[0]).toBe('listing the ResourceSlices of node n1: 500: InternalError');
    await until(() => publisher.generation() === 1, 'published after the retry');
    expect(stored()).toEqual(expected([gpu(0)], 1));
  });

  it('republishes when a published slice is deleted behind its back', async () => {
    make(50);
    await publisher.publish([gpu(0)], 'start');
    api.slices.delete('n1-gpushare-1');
    await until(() => api.slices.size === 2 && publisher.generation() === 2, 'republished');
    expect(stored()).toEqual(expected([gpu(0)], 2));
  });

  it('rechecks after a registration: slices deleted by a starting kubelet are published again', async () => {
    make(60_000, 20);
    await publisher.publish([gpu(0)], 'start');
    publisher.recheck();
    // The kubelet wipes the node's slices about when it registers the plugin: the check now may
    // see them still there, a later one sees them gone.
    api.slices.clear();
    await until(() => api.slices.size === 2 && publisher.generation() === 2, 'republished by a later check');
    expect(stored()).toEqual(expected([gpu(0)], 2));
    expect(errors).toEqual([]);
  });
});
