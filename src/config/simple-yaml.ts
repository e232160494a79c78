/**
 * The YAML of a CLI config file as `gpushare serve` and the yaml package write it, read without
 * loading the yaml package (about 260 KB, a noticeable part of a client command's start): a mapping
 * at the top level whose values are plain words (`url: https://127.0.0.1:7070`, `token: gs_...`,
 * `caFile: /path`) or literal blocks indented by two spaces (`ca: |` or `ca: |-`, then the PEM's
 * lines). Anything else (comments, quotes, flow style, other indentation, a word YAML reads as a
 * number, boolean or null, tabs, CR, blank lines) is left to the yaml package: the answer is then
 * null. simple-yaml.test.ts holds every answer to the yaml package's.
 */

/** A top-level key: a letter, then letters, digits and `_`. */
const KEY = /^([A-Za-z][A-Za-z0-9_]*):(?: (.*))?$/;
/**
 * A plain word YAML's core schema reads as that string: a letter, `/` or `_` first (no number, no
 * indicator), then letters, digits and `_ . / : @ % + = -`, not ending in `:`.
 */
const PLAIN_WORD = /^[A-Za-z/_][A-Za-z0-9_./:@%+=-]*$/;
/** Words the core schema reads as null or a boolean in some spelling; left to the yaml package. */
const SCALAR_WORD = /^(null|true|false)$/i;
/** A line of a literal block: two spaces, then printable ASCII starting and ending with a non-space. */
const BLOCK_LINE = /^ {2}[\x21-\x7e](?:[\x20-\x7e]*[\x21-\x7e])?$/;

/**
 * Parses `text` when it is a mapping in the simple form (see the module comment).
 * @returns each key's string value, in file order; null when the text is not in the simple form
 *   (the caller then parses it with the yaml package, which also reports its errors).
 */
export function parseSimpleYaml(text: string): Record<string, string> | null {
  if (text === '' || /[\r\t\uFEFF]/.test(text)) return null;
  const lines = (text.endsWith('\n') ? text.slice(0, -1) : text).split('\n');
  const result: Record<string, string> = {};
  for (let i = 0; i < lines.length; i++) {
    const match = KEY.exec(lines[i]!);
    if (match === null) return null;
    const [, key, value] = match as unknown as [string, string, string | undefined];
    if (SCALAR_WORD.test(key) || Object.hasOwn(result, key)) return null;
    if (value === '|' || value === '|-') {
      const block: string[] = [];
      while (i + 1 < lines.length && lines[i + 1]!.startsWith(' ')) {
        const line = lines[++i]!;
        if (!BLOCK_LINE.test(line)) return null;
        block.push(line.slice(2));
      }
      if (block.length === 0) return null;
      result[key] = block.join('\n') + (value === '|' ? '\n' : '');
    } else if (value !== undefined && PLAIN_WORD.test(value) && !value.endsWith(':') && !SCALAR_WORD.test(value)) {
      result[key] = value;
    } else {
      return null;
    }
  }
  return result;
}
