import { describe, expect, it } from 'vitest';
import { FLUSH_INTERVAL_MS, PassHints } from './pass-hints.js';
import { planeKit } from '../testing/plane-kit.js';

describe('pass hints', () => {
  it('make a pass due on a noted event, a quota change, a wake-up time and the flush interval; nothing else', () => {
    const hints = new PassHints();
    expect(hints.due(0, 'a:0:1')).toEqual(['start', 'flush']);
    hints.ran(0, null);
    expect(hints.due(1000, 'a:0:1')).toBeNull();
    hints.note('job-ended');
    hints.note('submitted');
    expect(hints.due(1000, 'a:0:1')).toEqual(['job-ended', 'submitted']);
    hints.ran(1000, 5000);
    expect(hints.due(4999, 'a:0:1')).toBeNull();
    expect(hints.due(5000, 'a:0:1')).toEqual(['time']);
    hints.ran(5000, null);
    expect(hints.due(6000, 'a:0:2')).toEqual(['quota-changed']);
    hints.ran(6000, null);
    expect(hints.due(6000 + FLUSH_INTERVAL_MS - 1, 'a:0:2')).toBeNull();
    expect(hints.due(6000 + FLUSH_INTERVAL_MS, 'a:0:2')).toEqual(['flush']);
  });

  it('skip the timer passes of a plane where nothing changed, and run one when a job ends', async () => {
    const kit = await planeKit('1xA100-80GB', { scheduleIntervalMs: 1000 });
    kit.submit({ command: ['sleep', '9'], workingDirectory: '/tmp', gpu: { gpuCount: 1, gpuMilli: 1000 } });
    const waiting = kit.submit({
      command: ['sleep', '9'],
      workingDirectory: '/tmp',
      gpu: { gpuCount: 1, gpuMilli: 1000 },
    });
    await kit.settle();
    const before = kit.plane.passStats.summary();
    await kit.advance(10_000); // ten timer ticks, nothing happens
    const idle = kit.plane.passStats.summary();
    expect(idle.passes - before.passes).toBe(0);
    expect(idle.passesSkipped - before.passesSkipped).toBe(10);
    expect(kit.store.getJob(waiting.id)!.state).toBe('pending');
    kit.launcher.exit(kit.launcher.attempts[0]!.spec.jobId, { exitCode: 0 });
    await kit.advance(100); // the monitor settles the end; the pass that follows places the waiting job
    expect(kit.plane.passStats.summary().passes - idle.passes).toBe(1);
    expect(kit.store.getJob(waiting.id)!.state).toBe('running');
  });

  it('run a pass when a quota changes with nothing else happening', async () => {
    const kit = await planeKit('1xA100-80GB', { scheduleIntervalMs: 1000 });
    kit.admin.createTenant(kit.adminPrincipal, 'team-a');
    kit.admin.setQuota(kit.adminPrincipal, 'team-a', { guaranteedGpuEquivalents: 0, limitGpuEquivalents: 0 });
    const job = kit.submit({
      command: ['sleep', '9'],
      workingDirectory: '/tmp',
      tenant: 'team-a',
      gpu: { gpuCount: 1, gpuMilli: 500 },
    });
    await kit.advance(3000);
    expect(kit.store.getJob(job.id)!.state).toBe('pending');
    kit.admin.setQuota(kit.adminPrincipal, 'team-a', { guaranteedGpuEquivalents: 0, limitGpuEquivalents: 1 });
    await kit.advance(1000);
    expect(kit.store.getJob(job.id)!.state).toBe('running');
  });
});
