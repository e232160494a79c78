import { describe, expect, it } from 'vitest';
import { ManualClock } from '../../adapters/memory/manual-clock.js';
import { LaunchQueue } from './launch-queue.js';
import { statusMessage } from '../../core/index.js';

describe('launch queue', () => {
  it('runs at most `concurrency` launches at once, in order, each in its own turn, and reports failures', async () => {
    const clock = new ManualClock();
    const started: number[] = [];
    const finish = new Map<number, () => void>();
    const errors: Array<[number, string]> = [];
    const queue = new LaunchQueue(
      2,
      clock,
      (id) =>
        new Promise<void>((resolve, reject) => {
          started.push(id);
          finish.set(id, id === 3 ? () => reject(new Error('no room')) : resolve);
        }),
      (id, error) => errors.push([id, (error as Error).message]),
    );
    queue.enqueue([1, 2, 3, 4, 5]);
    expect(started).toEqual([]); // nothing runs inside the caller's turn
    expect([queue.active, queue.queued]).toEqual([2, 3]);
    clock.runPending();
    expect(started).toEqual([1, 2]);
    finish.get(1)!();
    await new Promise<void>((resolve) => setImmediate(resolve));
    clock.runPending();
    expect(started).toEqual([1, 2, 3]);
    finish.get(3)!();
    await new Promise<void>((resolve) => setImmediate(resolve));
    clock.runPending();
    expect(started).toEqual([1, 2, 3, 4]);
    expect(errors).toEqual([[3, 'no room']]);
    queue.stop();
    finish.get(2)!();
    await new Promise<void>((resolve) => setImmediate(resolve));
    clock.runPending();
    expect(started).toEqual([1, 2, 3, 4]);
    expect(queue.queued).toBe(1);
  });

  it('whenIdle resolves once the launches in flight have ended, and at once when none is', async () => {
    const clock = new ManualClock();
    const finish = new Map<number, () => void>();
    const queue = new LaunchQueue(
      4,
      clock,
      (id) => new Promise<void>((resolve) => finish.set(id, resolve)),
      () => undefined,
    );
    await expect(queue.whenIdle()).resolves.toBeUndefined();
    queue.enqueue([1, 2]);
    clock.runPending();
    queue.stop();
    let idle = false;
    void queue.whenIdle().then(() => (idle = true));
    finish.get(1)!();
    await new Promise<void>((resolve) => setImmediate(resolve));
    expect([idle, queue.active]).toEqual([false, 1]);
    finish.get(2)!();
    await new Promise<void>((resolve) => setImmediate(resolve));
    expect([idle, queue.active]).toEqual([true, 0]);
  });

  it('refuses a concurrency below 1, naming the setting', () => {
    expect(
      () =>
        new LaunchQueue(
          0,
          new ManualClock(),
          async () => undefined,
          () => undefined,
        ),
    ).toThrow('launchConcurrency must be an integer >= 1, got 0');
  });
});

describe('a job cancelled while it waits for its launch', () => {
  it('ends cancelled without starting, and its GPU goes to the next job', async () => {
    const { planeKit } = await import('../testing/plane-kit.js');
    const kit = await planeKit('1xA100-80GB');
    const first = kit.submit({
      command: ['sleep', '9'],
      workingDirectory: '/tmp',
      gpu: { gpuCount: 1, gpuMilli: 1000 },
    });
    const second = kit.submit({
      command: ['sleep', '9'],
      workingDirectory: '/tmp',
      gpu: { gpuCount: 1, gpuMilli: 1000 },
    });
    kit.plane.runPass(); // places the first job; its launch waits for its turn
    expect(kit.store.getJob(first.id)!.state).toBe('scheduled');
    const answer = await kit.jobs.cancel(kit.adminPrincipal, first.id);
    expect(answer.state).toBe('scheduled');
    await kit.settle();
    expect(kit.launcher.attempts.map((a) => a.spec.jobId)).toEqual([second.id]);
    const cancelled = kit.store.getJob(first.id)!;
    expect([cancelled.state, statusMessage(cancelled.reason!), cancelled.attempt]).toEqual([
      'cancelled',
      'cancelled by an admin',
      0,
    ]);
    expect(kit.store.getJob(second.id)!.state).toBe('running');
  });
});

describe('a server that stops while a launch is in flight', () => {
  it('waits for the launch to end and records it running before it returns', async () => {
    const { planeKit } = await import('../testing/plane-kit.js');
    const kit = await planeKit('1xA100-80GB');
    const job = kit.submit({ command: ['sleep', '9'], workingDirectory: '/tmp', gpu: { gpuCount: 1, gpuMilli: 1000 } });
    // The launcher answers only when let go, like a supervisor still starting the sandbox.
    let letGo: () => void = () => undefined;
    const gate = new Promise<void>((resolve) => (letGo = resolve));
    const start = kit.launcher.start.bind(kit.launcher);
    kit.launcher.start = async (spec) => {
      await gate;
      return start(spec);
    };
    kit.plane.runPass();
    kit.clock.runPending(); // the launch starts and waits at the gate
    let stopped = false;
    const stopping = kit.plane.stop().then(() => (stopped = true));
    await new Promise<void>((resolve) => setImmediate(resolve));
    expect([stopped, kit.store.getJob(job.id)!.state]).toEqual([false, 'scheduled']);
    letGo();
    await stopping;
    expect([stopped, kit.store.getJob(job.id)!.state]).toEqual([true, 'running']);
  });
});
