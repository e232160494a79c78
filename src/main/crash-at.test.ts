import { describe, expect, it } from 'vitest';
import type { CrashPoint } from '../app/ports/crash-points.js';
import { CRASH_POINT_NAMES, crashPointsFromEnv } from './crash-at.js';

const at = (site: CrashPoint['site'], phase: CrashPoint['phase']): CrashPoint => ({ site, phase, detail: 'x' });

describe('GPUSHARE_CRASH_AT', () => {
  it('unset or empty wires no crash point', () => {
    expect(crashPointsFromEnv({})).toBeNull();
    expect(crashPointsFromEnv({ GPUSHARE_CRASH_AT: '' })).toBeNull();
  });

  it('kills at the n-th time the named point is reached, and only then', () => {
    const kills: string[] = [];
    const points = crashPointsFromEnv({ GPUSHARE_CRASH_AT: 'store.commit.after:3' }, (p) =>
      kills.push(`${p.site}.${p.phase}`),
    )!;
    for (let i = 0; i < 5; i++) {
      points.reach(at('store.commit', 'before'));
      points.reach(at('store.commit', 'after'));
      points.reach(at('process.launch', 'after'));
    }
    expect(kills).toEqual(['store.commit.after']);
  });

  it('names every point, two per site', () => {
    expect(CRASH_POINT_NAMES).toHaveLength(20);
    expect(CRASH_POINT_NAMES).toContain('process.checkpoint.before');
    expect(CRASH_POINT_NAMES).toContain('mig.apply.after');
  });

  it.each(['store.commit.after', 'store.commit.after:0', 'store.commit:1', 'nowhere.before:2', 'mig.apply.after:x'])(
    'refuses %j naming the variable and the allowed points',
    (value) => {
      expect(() => crashPointsFromEnv({ GPUSHARE_CRASH_AT: value })).toThrow(
        new RangeError(
          `GPUSHARE_CRASH_AT=${JSON.stringify(value)}: expected <point>:<n> with n ≥ 1 and point one of ` +
            CRASH_POINT_NAMES.join(', '),
        ),
      );
    },
  );
});
