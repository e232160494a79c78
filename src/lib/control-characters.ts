/**
 * Characters that change how a terminal shows text instead of being shown: C0 controls (U+0000 to
 * U+001F: NUL, ESC, newline, tab, ...), DEL (U+007F), C1 controls (U+0080 to U+009F: CSI, ...), the
 * Unicode bidirectional controls (U+061C, U+200E, U+200F, U+202A to U+202E, U+2066 to U+2069) and
 * the line and paragraph separators (U+2028, U+2029), and the invisible format characters that make
 * two names look alike (U+00AD soft hyphen, U+180E, U+200B to U+200D zero-width, U+2060 to U+2064,
 * U+FEFF), and lone surrogates (half a character). Names and labels may not hold them
 * (src/contract/api.ts), and the CLI escapes them in every value it shows, so that a row stored
 * before cannot forge output.
 */

/** Matches one such character. */
export const CONTROL_CHARACTER = new RegExp(
  // eslint-disable-next-line no-control-regex -- matching control characters is the point
  /[\u0000-\u001f\u007f-\u009f\u00ad\u061c\u180e]/.source +
    /|[\u200b-\u200f\u2028\u2029\u202a-\u202e\u2060-\u2064\u2066-\u2069\ufeff]/.source +
    // a lone surrogate: a high one not followed by a low one, or a low one not preceded by a high one
    /|[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/.source,
);

const CONTROL_CHARACTERS = new RegExp(CONTROL_CHARACTER.source, 'g');

/**
 * Matches any character of the set and more (every surrogate, U+2060 to U+2069 whole): a plain
 * character class, so that text without any of them is told apart at a fraction of the full
 * pattern's cost (its surrogate lookarounds); text it matches is searched with the full pattern.
 */
const MAYBE_CONTROL_CHARACTER =
  // eslint-disable-next-line no-control-regex -- matching control characters is the point
  /[\u0000-\u001f\u007f-\u009f\u00ad\u061c\u180e\u200b-\u200f\u2028-\u202e\u2060-\u2069\ufeff\ud800-\udfff]/;

/** The same set in words, for error messages. */
export const CONTROL_CHARACTERS_IN_WORDS =
  'control characters (U+0000-U+001F, U+007F-U+009F), bidirectional and line-separator controls (U+061C, ' +
  'U+200E, U+200F, U+2028, U+2029, U+202A-U+202E, U+2066-U+2069), invisible format characters (U+00AD, ' +
  'U+180E, U+200B-U+200D, U+2060-U+2064, U+FEFF) or lone surrogates';

/** `U+001B`: the code point of a character in the usual notation. */
export function codePointName(character: string): string {
  return `U+${(character.codePointAt(0) ?? 0).toString(16).toUpperCase().padStart(4, '0')}`;
}

/**
 * `text` with each control character written as an escape: `\x1b` for one below U+0100, `\u202e`
 * above. Other characters are unchanged.
 */
export function escapeControlCharacters(text: string): string {
  // Most text holds none of them (`0.5 × 1` and names in other scripts included): one cheap test
  // instead of the full pattern's search; other text is searched before it is copied.
  if (!MAYBE_CONTROL_CHARACTER.test(text) || !CONTROL_CHARACTER.test(text)) return text;
  return text.replace(CONTROL_CHARACTERS, (c) => {
    const code = c.charCodeAt(0);
    return code < 0x100 ? `\\x${code.toString(16).padStart(2, '0')}` : `\\u${code.toString(16).padStart(4, '0')}`;
  });
}

/**
 * A copy of `value` (JSON-like: objects, arrays, strings, numbers, booleans, null) with every
 * string, object keys included, passed through {@link escapeControlCharacters}.
 */
export function escapeControlCharactersDeep<T>(value: T): T {
  if (typeof value === 'string') return escapeControlCharacters(value) as T;
  if (Array.isArray(value)) return value.map((v: unknown) => escapeControlCharactersDeep(v)) as T;
  if (value !== null && typeof value === 'object') {
    return Object.fromEntries(
      Object.entries(value).map(([k, v]) => [escapeControlCharacters(k), escapeControlCharactersDeep(v as unknown)]),
    ) as T;
  }
  return value;
}

/**
 * `JSON.stringify(value, null, indent)` with the control characters JSON leaves as they are (DEL,
 * C1, the bidirectional controls) written as `\uXXXX` escapes: the same JSON value, safe to print
 * on a terminal (JSON already escapes U+0000 to U+001F).
 */
export function jsonForTerminal(value: unknown, indent = 2): string {
  // Only characters from U+007F on: the text's own newlines and indentation are JSON's layout.
  return JSON.stringify(value, null, indent).replace(CONTROL_CHARACTERS, (c) =>
    c.charCodeAt(0) < 0x7f ? c : `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`,
  );
}
