import { mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { createMpsDaemonManager } from './mps-daemon-manager.js';
import { createSimulatedMpsDaemons } from './simulated-mps-daemons.js';

const base = join(mkdtempSync(join(tmpdir(), 'gpushare-sim-mps-')), 'mps');
afterAll(() => rmSync(join(base, '..'), { recursive: true, force: true }));

describe('createSimulatedMpsDaemons', () => {
  it("makes the pipe and log directories where a real daemon's are, mode 0700", async () => {
    const key = 'MIG-GPU-5e1c/1/0';
    const { pipeDirectory } = await createSimulatedMpsDaemons({ baseDirectory: base }).ensureDaemon({ key });
    expect(pipeDirectory).toBe(createMpsDaemonManager({ baseDirectory: base }).directoriesFor(key).pipeDirectory);
    expect(pipeDirectory).toBe(join(base, 'MIG-GPU-5e1c_1_0', 'pipe'));
    expect(statSync(pipeDirectory).mode & 0o777).toBe(0o700);
    expect(statSync(join(base, 'MIG-GPU-5e1c_1_0', 'log')).isDirectory()).toBe(true);
  });

  it('refuses a relative base directory and a key that is no device UUID', async () => {
    expect(() => createSimulatedMpsDaemons({ baseDirectory: 'mps' })).toThrow(
      'baseDirectory must be absolute, got mps',
    );
    await expect(createSimulatedMpsDaemons({ baseDirectory: base }).ensureDaemon({ key: '..' })).rejects.toThrow(
      'MPS device key must be a GPU or MIG device UUID, got ".."',
    );
  });
});
