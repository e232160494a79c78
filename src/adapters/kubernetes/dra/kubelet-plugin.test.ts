import { existsSync, mkdtempSync, rmSync, unlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { ClaimPreparer } from './claim-preparer.js';
import { PrepareFailure } from './prepare-failure.js';
import {
  draSocketPath,
  registrationSocketPath,
  startKubeletPlugin,
  type RunningKubeletPlugin,
} from './kubelet-plugin.js';
import { draKubeletClient, getPluginInfo } from './testing/dra-kubelet-client.js';

/** A preparer that prepares claim `good` (shared, share s1) and refuses every other. */
const PREPARER: ClaimPreparer = {
  prepare: (claim) =>
    claim.name === 'good'
      ? Promise.resolve({
          created: true,
          devices: [
            {
              request: 'r',
              pool: 'n1',
              device: 'gpu-0-shared',
              shareId: 's1',
              cdiDeviceIds: ['gpushare.io/claim=u-gpu-0-shared'],
            },
          ],
        })
      : Promise.reject(
          new PrepareFailure('ClaimNotFound', { claim: claim.name }, `claim ${claim.name} does not exist`),
        ),
  unprepare: (uid) => (uid === 'stuck' ? Promise.reject(new Error('disk gone')) : Promise.resolve()),
};

describe('the kubelet plugin', () => {
  let dir: string;
  let plugin: RunningKubeletPlugin;
  beforeEach(async () => {
    dir = mkdtempSync(join(tmpdir(), 'gpushare-kubelet-plugin-'));
    plugin = await startKubeletPlugin({ kubeletDir: dir, preparer: PREPARER, pollIntervalMs: 50 });
  });
  afterEach(async () => {
    await plugin.stop();
    rmSync(dir, { recursive: true, force: true });
  });

  it('answers each claim on v1 (with share_id) and v1beta1 (without), failures in `error`', async () => {
    const claims = [
      { namespace: 'ns', name: 'good', uid: 'u' },
      { namespace: 'ns', name: 'gone', uid: 'v' },
    ];
    const v1 = draKubeletClient(draSocketPath(dir), 'v1');
    const beta = draKubeletClient(draSocketPath(dir), 'v1beta1');
    try {
      const device = {
        request_names: ['r'],
        pool_name: 'n1',
        device_name: 'gpu-0-shared',
        cdi_device_ids: ['gpushare.io/claim=u-gpu-0-shared'],
      };
      expect((await v1.prepare(claims)).claims).toEqual({
        u: { devices: [{ ...device, share_id: 's1' }], error: '' },
        v: { devices: [], error: 'ClaimNotFound: claim gone does not exist' },
      });
      expect((await beta.prepare(claims)).claims.u).toEqual({ devices: [device], error: '' });
      expect((await v1.unprepare([claims[0]!, { namespace: 'ns', name: 'x', uid: 'stuck' }])).claims).toEqual({
        u: { error: '' },
        stuck: { error: 'Internal: disk gone' },
      });
    } finally {
      v1.close();
      beta.close();
    }
  });

  it('serves a deleted DRA socket again, and removes both sockets when stopped', async () => {
    unlinkSync(draSocketPath(dir));
    await plugin.checkNow();
    const client = draKubeletClient(draSocketPath(dir), 'v1');
    try {
      expect((await client.prepare([{ namespace: 'ns', name: 'good', uid: 'u' }])).claims.u!.error).toBe('');
    } finally {
      client.close();
    }
    expect((await getPluginInfo(registrationSocketPath(dir))).endpoint).toBe(draSocketPath(dir));
    await plugin.stop();
    expect([existsSync(draSocketPath(dir)), existsSync(registrationSocketPath(dir))]).toEqual([false, false]);
  });
});
