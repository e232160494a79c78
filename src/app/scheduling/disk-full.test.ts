/**
 * The control plane while the data directory's disk is full (fake time, a disk state the test
 * sets): no pass runs, an ended attempt is settled only once the disk has room again, with the time
 * the command really ended, and a job submitted meanwhile is placed then.
 */
import { describe, expect, it } from 'vitest';
import { diskFull } from '../errors.js';
import { testDisk } from '../testing/loop-parts.js';
import { planeKit } from '../testing/plane-kit.js';

describe('ControlPlane: a full disk', () => {
  it(
    'settles an attempt that ended while the disk was full once there is room, with its real end ' +
      'time and exit code',
    async () => {
      const disk = testDisk();
      const kit = await planeKit('1xA10', {}, { disk });
      const id = kit.submit({ command: ['sleep', '600'], gpu: { gpuMilli: 500 } }).id;
      await kit.settle();
      expect(kit.store.getJob(id)!.state).toBe('running');
      disk.noteError(diskFull('/data', 'SQLITE_FULL'));
      const endedAtMs = kit.clock.nowMs();
      kit.launcher.exit(id, { exitCode: 3 });
      await kit.advance(5000); // 50 monitor ticks
      expect(kit.store.getJob(id)!.state).toBe('running');
      // A submit's job waits: no pass runs while the disk is full.
      const waiting = kit.submit({ command: ['sleep', '600'], gpu: { gpuMilli: 500 } }).id;
      await kit.advance(3000);
      expect(kit.store.getJob(waiting)!.state).toBe('pending');
      disk.free();
      await kit.settle();
      const ended = kit.store.getJob(id)!;
      expect(ended.state).toBe('failed');
      expect(ended.exitCode).toBe(3);
      expect(ended.endedAtMs).toBe(endedAtMs);
      expect(kit.store.listAttempts(id).map((a) => [a.exitCode, a.endReason?.code, a.endedAtMs])).toEqual([
        [3, 'exited', endedAtMs],
      ]);
      expect(kit.store.getJob(waiting)!.state).toBe('running');
    },
  );
});
