import { describe, expect, it } from 'vitest';
import type { KubeResponse, KubeRest } from './kube-rest.js';
import { LeaderLease } from './leader-lease.js';

/** A Lease store behind a fake API (GET, POST, PUT of one Lease), and a clock. */
function fakeApi(): {
  rest: KubeRest;
  lease: () => Record<string, unknown> | null;
  setHolder: (holder: string, renewTime: string) => void;
  fail: (on: boolean) => void;
} {
  let lease: { metadata: { resourceVersion: string }; spec: Record<string, unknown> } | null = null;
  let version = 0;
  let failing = false;
  const rest: KubeRest = {
    request(method, _path, body): Promise<KubeResponse> {
      if (failing) return Promise.reject(new Error('connection refused'));
      if (method === 'GET')
        return Promise.resolve(
          lease === null ? { status: 404, body: null } : { status: 200, body: structuredClone(lease) },
        );
      const b = body as { spec: Record<string, unknown>; metadata: { resourceVersion?: string } };
      if (method === 'POST') {
        if (lease !== null) return Promise.resolve({ status: 409, body: null });
        lease = { metadata: { resourceVersion: String(++version) }, spec: b.spec };
        return Promise.resolve({ status: 201, body: lease });
      }
      if (lease === null || b.metadata.resourceVersion !== lease.metadata.resourceVersion)
        return Promise.resolve({ status: 409, body: null });
      lease = { metadata: { resourceVersion: String(++version) }, spec: b.spec };
      return Promise.resolve({ status: 200, body: lease });
    },
    close: () => undefined,
  };
  return {
    rest,
    lease: () => lease?.spec ?? null,
    setHolder: (holder, renewTime) => {
      lease = {
        metadata: { resourceVersion: String(++version) },
        spec: { ...(lease?.spec ?? {}), holderIdentity: holder, renewTime, leaseDurationSeconds: 15 },
      };
    },
    fail: (on) => (failing = on),
  };
}

describe('LeaderLease', () => {
  it('creates the Lease and is active; another replica waits', async () => {
    let now = 1_000_000;
    const api = fakeApi();
    const a = new LeaderLease(api.rest, {
      namespace: 'gpushare-system',
      name: 'gpushare-extender',
      identity: 'a',
      leaseDurationSeconds: 15,
      now: () => now,
    });
    const b = new LeaderLease(api.rest, {
      namespace: 'gpushare-system',
      name: 'gpushare-extender',
      identity: 'b',
      leaseDurationSeconds: 15,
      now: () => now,
    });
    expect(await a.tryOnce()).toBe(true);
    expect(await b.tryOnce()).toBe(false);
    expect(b.currentHolder).toBe('a');
    expect(api.lease()?.holderIdentity).toBe('a');
    now += 5_000;
    expect(await a.tryOnce()).toBe(true);
    expect(await b.tryOnce()).toBe(false);
  });

  it(
    'takes over a Lease that has not changed for its duration by the local clock, whatever its ' + 'renewTime says',
    async () => {
      let now = 1_000_000;
      const api = fakeApi();
      // The holder's clock is an hour ahead: its renewTime lies in our future.
      api.setHolder('dead', new Date(now + 3_600_000).toISOString());
      const b = new LeaderLease(api.rest, {
        namespace: 'gpushare-system',
        name: 'gpushare-extender',
        identity: 'b',
        leaseDurationSeconds: 15,
        now: () => now,
      });
      expect(await b.tryOnce()).toBe(false);
      now += 14_000;
      expect(await b.tryOnce()).toBe(false);
      now += 2_000;
      expect(await b.tryOnce()).toBe(true);
      expect(api.lease()?.holderIdentity).toBe('b');
      expect(api.lease()?.leaseTransitions).toBe(1);
    },
  );

  it('steps down when it has not renewed for two thirds of the duration', async () => {
    let now = 1_000_000;
    const api = fakeApi();
    const a = new LeaderLease(api.rest, {
      namespace: 'gpushare-system',
      name: 'gpushare-extender',
      identity: 'a',
      leaseDurationSeconds: 15,
      now: () => now,
    });
    expect(await a.tryOnce()).toBe(true);
    api.fail(true);
    now += 9_000;
    expect(a.active).toBe(true);
    now += 1_001;
    expect(a.active).toBe(false);
  });
});
