import { describe, expect, it } from 'vitest';
import { sleepSync } from './sleep-sync.js';

describe('sleepSync', () => {
  it('blocks the thread for about the time asked', () => {
    const t0 = performance.now();
    sleepSync(50);
    const elapsed = performance.now() - t0;
    expect(elapsed).toBeGreaterThanOrEqual(49);
    expect(elapsed).toBeLessThan(1000);
  });
});
