import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { ISO_TIME_WITH_ZONE, isoTimeWithZone } from './iso-time.js';

describe('ISO_TIME_WITH_ZONE', () => {
  it('every text the pattern matches is a time Date.parse reads', () => {
    const two = (max: number) => fc.integer({ min: 0, max }).map((n) => String(n).padStart(2, '0'));
    const text = fc
      .tuple(
        fc.integer({ min: 0, max: 9999 }).map((n) => String(n).padStart(4, '0')),
        fc.integer({ min: 1, max: 12 }).map((n) => String(n).padStart(2, '0')),
        fc.integer({ min: 1, max: 31 }).map((n) => String(n).padStart(2, '0')),
        two(23),
        two(59),
        fc.option(fc.tuple(two(59), fc.option(fc.stringMatching(/^[0-9]{1,9}$/)))),
        fc.oneof(
          fc.constant('Z'),
          fc.tuple(fc.constantFrom('+', '-'), two(23), two(59)).map((p) => `${p[0]}${p[1]}:${p[2]}`),
        ),
      )
      .map(
        ([y, mo, d, h, mi, s, zone]) =>
          `${y}-${mo}-${d}T${h}:${mi}${s === null ? '' : `:${s[0]}${s[1] === null ? '' : `.${s[1]}`}`}${zone}`,
      );
    fc.assert(
      fc.property(text, (time) => {
        expect(ISO_TIME_WITH_ZONE.test(time)).toBe(true);
        expect(Number.isNaN(Date.parse(time))).toBe(false);
      }),
      { numRuns: 3000 },
    );
  });

  it.each([
    '2025-01-31',
    '2025-01-31T12:00',
    '2025-13-01T00:00Z',
    '2025-01-00T00:00Z',
    '2025-01-31T24:00Z',
    '2025-01-31T12:00+24:00',
    '',
  ])('refuses %j', (time) => {
    expect(isoTimeWithZone('since: bad').safeParse(time).success).toBe(false);
  });

  it('reads 2025-01-31T13:00:00.5+01:00', () => {
    expect(isoTimeWithZone('since: bad').parse('2025-01-31T13:00:00.5+01:00')).toBe('2025-01-31T13:00:00.5+01:00');
  });
});
