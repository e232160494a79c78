/**
 * A job's private folder: made at its first launch and recorded in the store before the command
 * starts, kept by its later attempts, the only place its logs are read from.
 */
import { describe, expect, it } from 'vitest';
import { planeKit } from '../testing/plane-kit.js';

describe('job folders', () => {
  it('are made at the first launch, recorded, and kept by a retry; the checkpoint directory is inside', async () => {
    const kit = await planeKit('1xT4');
    const job = kit.submit({ command: ['train'], gpu: { gpuMilli: 500 }, retries: 1 });
    expect(kit.store.getJob(job.id)?.folder).toBeNull();
    await kit.settle();
    const first = kit.launcher.attempt(job.id);
    expect(kit.store.getJob(job.id)?.folder).toBe(`${job.id}-m1`);
    expect(first.spec.jobDirectory).toBe(`/memory/jobs/${job.id}-m1`);
    expect(first.spec.environment.GPUSHARE_CHECKPOINT_DIR).toBe(`/memory/jobs/${job.id}-m1/checkpoint`);
    kit.launcher.exit(job.id, { exitCode: 3 });
    await kit.advance(1000);
    const second = kit.launcher.attempt(job.id);
    expect(second.spec.attempt).toBe(2);
    expect(second.spec.jobDirectory).toBe(`/memory/jobs/${job.id}-m1`);
    expect(kit.store.getJob(job.id)).toMatchObject({ attempt: 2, folder: `${job.id}-m1` });
  });

  it(
    "logs come from the job's recorded folder only: a folder of the same id the store does not " +
      'record is never read',
    async () => {
      const kit = await planeKit('1xT4');
      const job = kit.submit({ command: ['echo'], gpu: { gpuMilli: 500 } });
      // What an earlier job of the same id left (e.g. before a backup was restored): not this job's.
      kit.files.appendLog(`${job.id}`, 1, 'stdout', "an older tenant's secret\n");
      kit.files.appendLog(`${job.id}-0123456789abcdef`, 1, 'stdout', 'another older secret\n');
      expect(kit.jobs.logs(kit.adminPrincipal, job.id, { stream: 'stdout', offset: 0 })).toEqual({
        attempt: 1,
        text: '',
        nextOffset: 0,
        ended: false,
      });
      await kit.settle();
      kit.files.appendLog(kit.store.getJob(job.id)!.folder!, 1, 'stdout', 'my own output\n');
      kit.launcher.exit(job.id, { exitCode: 0 });
      await kit.advance(1000);
      expect(kit.jobs.logs(kit.adminPrincipal, job.id, { stream: 'stdout', offset: 0 })).toEqual({
        attempt: 1,
        text: 'my own output\n',
        nextOffset: 14,
        ended: true,
      });
    },
  );
});
