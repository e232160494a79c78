import { status } from '@grpc/grpc-js';
import { describe, expect, it } from 'vitest';
import { coalescingLister, findDeviceHolders } from './pod-resources-client.js';
import type { PodResources } from './wire-types.js';

const pod = (name: string, ids: string[]): PodResources => ({
  name,
  namespace: 'ns',
  containers: [
    {
      name: 'main',
      devices: [
        { resource_name: 'gpushare.io/gpu-slot', device_ids: ids },
        { resource_name: 'other/x', device_ids: ['a'] },
      ],
    },
  ],
});

describe('PodResources lister', () => {
  it('serves calls made during a List with the next List, one at a time', async () => {
    const releases: ((pods: PodResources[]) => void)[] = [];
    const lister = coalescingLister({ list: () => new Promise((resolve) => releases.push(resolve)) });
    const first = lister.list();
    const second = lister.list();
    const third = lister.list();
    expect(releases).toHaveLength(1);
    releases[0]!([pod('a', ['s0'])]);
    expect((await first).map((p) => p.name)).toEqual(['a']);
    await new Promise((r) => setImmediate(r));
    expect(releases).toHaveLength(2);
    releases[1]!([pod('b', ['s1'])]);
    expect((await second).map((p) => p.name)).toEqual(['b']);
    expect(await third).toBe(await second);
  });

  it('retries a List the kubelet refuses for its rate limit, and passes other errors on', async () => {
    const delays: number[] = [];
    let calls = 0;
    const lister = coalescingLister(
      {
        list: () =>
          ++calls <= 2
            ? Promise.reject(Object.assign(new Error('rejected by rate limit'), { code: status.RESOURCE_EXHAUSTED }))
            : Promise.resolve([pod('a', ['s0'])]),
      },
      (ms) => {
        delays.push(ms);
        return Promise.resolve();
      },
    );
    expect((await lister.list()).map((p) => p.name)).toEqual(['a']);
    expect(delays).toEqual([50, 100]);
    const failing = coalescingLister({
      list: () => Promise.reject(Object.assign(new Error('connect ENOENT'), { code: status.UNAVAILABLE })),
    });
    await expect(failing.list()).rejects.toThrow('connect ENOENT');
  });

  it('finds the container holding every id of the resource', () => {
    const pods = [pod('a', ['s0', 's1']), pod('b', ['s2'])];
    expect(findDeviceHolders(pods, 'gpushare.io/gpu-slot', ['s1', 's0'])).toEqual([
      { namespace: 'ns', pod: 'a', container: 'main' },
    ]);
    expect(findDeviceHolders(pods, 'gpushare.io/gpu-slot', ['s0', 's2'])).toEqual([]);
    expect(findDeviceHolders(pods, 'gpushare.io/gpu-slot', ['a'])).toEqual([]);
  });
});
