import { describe, expect, it } from 'vitest';
import type { MpsControl, MpsDevice } from '../ports/mps-control.js';
import { planeKit } from '../testing/plane-kit.js';

/** An MPS control that records what it was asked. */
function recordingMps(): MpsControl & { readonly asked: MpsDevice[] } {
  const asked: MpsDevice[] = [];
  const running = new Set<string>();
  return {
    asked,
    ensureDaemon: (device) => {
      asked.push(device);
      running.add(device.key);
      return Promise.resolve({ pipeDirectory: `/mps/${device.key}/pipe`, logDirectory: `/mps/${device.key}/log` });
    },
    stopDaemon: (key) => {
      running.delete(key);
      return Promise.resolve();
    },
    running: () => [...running],
  };
}

describe('JobLaunch: the sandbox part of a launch', () => {
  it(
    'gives the job its GPU minors, its private working and checkpoint directories to own, and its ' +
      'MPS pipe directory to write',
    async () => {
      const mps = recordingMps();
      const kit = await planeKit('1xA100-80GB', {}, { mps });
      kit.launcher.users = (tenant) => (tenant === 'team-a' ? { uid: 200001, gid: 200001 } : null);
      kit.admin.createTenant(kit.adminPrincipal, 'team-a');
      const job = kit.submit({
        command: ['python3', 'serve.py'],
        tenant: 'team-a',
        gpu: { gpuMilli: 300, mode: 'mps' },
      });
      await kit.settle();
      const uuid = kit.gpus[0]!.uuid;
      expect(mps.asked).toEqual([{ key: uuid }]);
      const spec = kit.launcher.attempt(job.id).spec;
      expect(spec.workingDirectory).toMatch(new RegExp(`^/memory/jobs/${job.id}-m\\d+/work$`));
      expect(spec.sandbox).toEqual({
        tenant: 'team-a',
        gpuMinors: [0],
        migInstances: [],
        ownedDirectories: [spec.workingDirectory, spec.workingDirectory.replace(/work$/, 'checkpoint')],
        sharedDirectories: [`/mps/${uuid}/pipe`],
      });
      expect(spec.environment.CUDA_MPS_PIPE_DIRECTORY).toBe(`/mps/${uuid}/pipe`);
    },
  );
});
