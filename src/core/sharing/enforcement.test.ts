import { describe, expect, it } from 'vitest';
import { enforcementOf, weakestEnforcement } from './enforcement.js';

describe('enforcementOf', () => {
  it('says what enforces the memory and the compute of each mode', () => {
    expect(enforcementOf('mig', false)).toEqual({ gpuMemory: 'hardware', compute: 'hardware' });
    expect(enforcementOf('exclusive', false)).toEqual({ gpuMemory: 'exclusive', compute: 'exclusive' });
    expect(enforcementOf('mps', true)).toEqual({ gpuMemory: 'driver-per-process', compute: 'driver-per-process' });
    expect(enforcementOf('mps', false)).toEqual({ gpuMemory: 'not-enforced', compute: 'not-enforced' });
    expect(enforcementOf('timeslice', true)).toEqual({ gpuMemory: 'not-enforced', compute: 'time-slice' });
  });
});

describe('weakestEnforcement', () => {
  it('takes the weakest level per resource, null for no jobs', () => {
    expect(weakestEnforcement([])).toBeNull();
    expect(weakestEnforcement([enforcementOf('mps', true), enforcementOf('mps', false)])).toEqual({
      gpuMemory: 'not-enforced',
      compute: 'not-enforced',
    });
    expect(weakestEnforcement([enforcementOf('mps', true), enforcementOf('mps', true)])).toEqual({
      gpuMemory: 'driver-per-process',
      compute: 'driver-per-process',
    });
  });
});
