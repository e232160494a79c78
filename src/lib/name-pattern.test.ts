import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { compileNamePattern, MAX_NAME_PATTERN_LENGTH } from './name-pattern.js';

/** The same rule as a regular expression, for the property test. */
function byRegExp(pattern: string, name: string): boolean {
  const source = pattern
    .split('*')
    .map((p) => p.replace(/[.*+?^${}()|[\]\\]/g, '\\$&'))
    .join('.*');
  return new RegExp(`^${source}$`, 's').test(name);
}

describe('name patterns', () => {
  it('matches whole names, * as any run of characters, case-sensitively', () => {
    const cases: Array<[string, string, boolean]> = [
      ['train-7', 'train-7', true],
      ['train-7', 'train-77', false],
      ['train-*', 'train-', true],
      ['train-*', 'train-12', true],
      ['train-*', 'Train-12', false],
      ['*eval*', 'nightly-eval-3', true],
      ['*eval*', 'evaluate', true],
      ['*eval*', 'eva', false],
      ['a*b*c', 'abc', true],
      ['a*b*c', 'aXbYc', true],
      ['a*b*c', 'acb', false],
      ['ab*ba', 'aba', false],
      ['*', '', true],
      ['x.y', 'xzy', false],
    ];
    for (const [pattern, name, expected] of cases)
      expect([pattern, name, compileNamePattern(pattern).matches(name)]).toEqual([pattern, name, expected]);
    expect(compileNamePattern('train-*')).toMatchObject({ prefix: 'train-', exact: false });
    expect(compileNamePattern('job')).toMatchObject({ prefix: 'job', exact: true });
  });

  it('refuses an empty or over-long pattern, naming the limit', () => {
    expect(() => compileNamePattern('')).toThrow(`1 to ${MAX_NAME_PATTERN_LENGTH} characters, got 0`);
    expect(() => compileNamePattern('a'.repeat(257))).toThrow('got 257');
  });

  it('agrees with the regular expression of the same rule', () => {
    const text = fc.stringOf(fc.constantFrom('a', 'b', '*', '.'), { maxLength: 8 });
    fc.assert(
      fc.property(
        text.filter((p) => p.length > 0),
        fc.stringOf(fc.constantFrom('a', 'b', '.'), { maxLength: 10 }),
        (pattern, name) => {
          expect(compileNamePattern(pattern).matches(name)).toBe(byRegExp(pattern, name));
        },
      ),
      { numRuns: 2000 },
    );
  });
});
