import { describe, expect, it } from 'vitest';
import { PRIORITY_CLASSES, priorityClassOf } from '../../core/index.js';
import { priorityOfQos } from './qos-priority.js';

describe('priorityOfQos', () => {
  it('maps the trace qos values to the core priority classes', () => {
    expect(['LS', 'Guaranteed', 'Burstable', 'BE'].map((q) => priorityClassOf(priorityOfQos(q)))).toEqual([
      'critical',
      'high',
      'normal',
      'low',
    ]);
    expect(priorityOfQos('LS')).toBe(1000);
    expect(priorityOfQos('Guaranteed')).toBe(900);
    expect(priorityOfQos('Burstable')).toBe(500);
    expect(priorityOfQos('BE')).toBe(100);
  });

  it('gives normal to a missing or unknown qos (including object keys)', () => {
    for (const q of [null, '', 'ls', 'constructor', '__proto__'])
      expect(priorityOfQos(q)).toBe(PRIORITY_CLASSES.normal);
  });
});
