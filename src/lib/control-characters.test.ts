import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  CONTROL_CHARACTER,
  escapeControlCharacters,
  escapeControlCharactersDeep,
  jsonForTerminal,
} from './control-characters.js';

describe('control characters', () => {
  it(
    'matches C0, DEL, C1, the bidirectional and line-separator controls, invisible format characters and ' +
      'lone surrogates, nothing printable',
    () => {
      for (const code of [
        0x00, 0x09, 0x0a, 0x1b, 0x1f, 0x7f, 0x80, 0x9b, 0x9f, 0x00ad, 0x061c, 0x180e, 0x200b, 0x200d, 0x200e, 0x200f,
        0x2028, 0x2029, 0x202a, 0x202e, 0x2060, 0x2064, 0x2066, 0x2069, 0xfeff, 0xd800, 0xdc00,
      ]) {
        expect([code, CONTROL_CHARACTER.test(String.fromCharCode(code))]).toEqual([code, true]);
      }
      // 'al\u200bice' would look like 'alice'; a surrogate pair (🙂) is one character, a lone half is not.
      expect(CONTROL_CHARACTER.exec('al\u200bice')?.index).toBe(2);
      for (const text of [' ', 'a', '~', '\u00a0', 'é', '日本', '\u2030', '\u206a', '🙂', '\ud83d\ude42'])
        expect([text, CONTROL_CHARACTER.test(text)]).toEqual([text, false]);
    },
  );

  it('escapes each as \\xHH below U+0100 and \\uHHHH above, leaving the rest', () => {
    expect(escapeControlCharacters('a\u001b[2Jb\nc\u009bd\u202eé\u2066')).toBe('a\\x1b[2Jb\\x0ac\\x9bd\\u202eé\\u2066');
    expect(escapeControlCharacters('plain text')).toBe('plain text');
  });

  it('escapes exactly what the full pattern matches, in any text (its cheap first test misses nothing)', () => {
    const escape = (c: string): string => {
      const code = c.charCodeAt(0);
      return code < 0x100 ? `\\x${code.toString(16).padStart(2, '0')}` : `\\u${code.toString(16).padStart(4, '0')}`;
    };
    const everywhere = new RegExp(CONTROL_CHARACTER.source, 'g');
    // Code units near the set's edges, pairs and halves of surrogates, and any others.
    const unit = fc.oneof(
      fc.constantFrom(0x1f, 0x20, 0x7e, 0x7f, 0x9f, 0xa0, 0xac, 0xad, 0xae, 0x61c, 0x180e, 0x200a, 0x200b, 0x2010),
      fc.constantFrom(0x2027, 0x202f, 0x205f, 0x2065, 0x206a, 0xfeff, 0xd83d, 0xde42, 0xdbff, 0xdc00, 0xd7ff, 0xe000),
      fc.integer({ min: 0, max: 0xffff }),
    );
    fc.assert(
      fc.property(fc.array(unit, { maxLength: 12 }), (units) => {
        const text = String.fromCharCode(...units);
        expect(escapeControlCharacters(text)).toBe(text.replace(everywhere, escape));
      }),
      { numRuns: 3000 },
    );
  });

  it('escapes every string of a JSON value, keys too, and keeps numbers, booleans and null', () => {
    expect(escapeControlCharactersDeep({ 'k\u0007': ['x\u001b', 1, true, null, { n: 'y\u202e' }] })).toEqual({
      'k\\x07': ['x\\x1b', 1, true, null, { n: 'y\\u202e' }],
    });
  });

  it('prints JSON whose DEL, C1 and bidirectional controls are \\u escapes: the same value, nothing raw', () => {
    const value = { name: 'a\u001b\u007f\u009b\u202e' };
    const text = jsonForTerminal(value);
    expect(text).toBe('{\n  "name": "a\\u001b\\u007f\\u009b\\u202e"\n}');
    expect(JSON.parse(text)).toEqual(value);
  });
});
