import { describe, expect, it } from 'vitest';
import { COMPARED_SECTIONS, comparedSections } from './before-after-sections.js';

describe('comparedSections', () => {
  it('measures everything when no --only is given', () => {
    expect([...comparedSections([])]).toEqual(['replay', 'server', 'pass', 'extender', 'bind']);
    expect(COMPARED_SECTIONS).toHaveLength(5);
  });

  it('takes the asked sections in report order, kubernetes standing for extender and bind', () => {
    expect([...comparedSections(['kubernetes', 'pass'])]).toEqual(['pass', 'extender', 'bind']);
    expect([...comparedSections(['bind', 'replay', 'bind'])]).toEqual(['replay', 'bind']);
  });

  it('refuses a benchmark the comparison does not make', () => {
    expect(() => comparedSections(['audit'])).toThrow(
      'with --baseline-ref, --only takes one of replay, server, pass, extender, bind, kubernetes, got "audit"',
    );
    expect(() => comparedSections(['toString'])).toThrow('got "toString"');
  });
});
