import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { describe, expect, it } from 'vitest';
import { signalGroup } from './supervisor-helpers.js';

describe('signalGroup', () => {
  it('signals every process of the group, and answers false once the group is gone', async () => {
    const child = spawn('sleep', ['30'], { detached: true, stdio: 'ignore' });
    const exited = once(child, 'exit');
    expect(signalGroup(child.pid!, 'SIGTERM')).toBe(true);
    expect(await exited).toEqual([null, 'SIGTERM']);
    expect(signalGroup(child.pid!, 'SIGTERM')).toBe(false);
    expect(signalGroup(child.pid!, 'SIGTERM', true)).toBe(false);
  });

  it('throws an error other than ESRCH unless lenient', () => {
    const child = spawn('sleep', ['30'], { detached: true, stdio: 'ignore' });
    try {
      const unknown = 'SIGNOPE' as NodeJS.Signals;
      expect(() => signalGroup(child.pid!, unknown)).toThrow(expect.objectContaining({ code: 'ERR_UNKNOWN_SIGNAL' }));
      expect(signalGroup(child.pid!, unknown, true)).toBe(false);
    } finally {
      process.kill(-child.pid!, 'SIGKILL');
    }
  });
});
