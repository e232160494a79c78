/**
 * One line limit, 120 characters, held in `npm test` twice: Prettier (printWidth 120, checked by
 * `npm run format:check`) formats code to it, and ESLint's max-len (run by `npm run lint`) fails the
 * lines Prettier leaves as written: long strings, comments and regular expressions. Planted files are
 * linted as if they lay in src/ (ESLint's lintText with a file path), so the repository's own
 * configuration decides.
 */
import { fileURLToPath } from 'node:url';
import { ESLint } from 'eslint';
import * as prettier from 'prettier';
import { describe, expect, it } from 'vitest';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const PLANTED = 'src/zz-planted/long-line.ts';

/** A statement `export const s = '…';` exactly `length` characters long. */
function stringLine(length: number): string {
  const frame = "export const s = '';";
  return `export const s = '${'x'.repeat(length - frame.length)}';`;
}

/** The max-len messages ESLint reports for `text` as if it were the file PLANTED: [line, message]. */
async function maxLenMessages(text: string): Promise<Array<[number, string]>> {
  const eslint = new ESLint({ cwd: ROOT });
  const [result] = await eslint.lintText(text, { filePath: `${ROOT}/${PLANTED}` });
  return result!.messages.filter((m) => m.ruleId === 'max-len').map((m) => [m.line, m.message]);
}

describe('the 120-character line limit', () => {
  it('ESLint fails a planted line of 121 characters in a string and passes one of 120', async () => {
    expect(stringLine(121)).toHaveLength(121);
    const text = `${stringLine(120)}\n${stringLine(121).replace('const s', 'const t')}\n`;
    expect(await maxLenMessages(text)).toEqual([[2, 'This line has a length of 121. Maximum allowed is 120.']]);
  });

  it('ESLint fails a long comment and a long regular expression, not a comment that is a long URL', async () => {
    const comment = `// ${'word '.repeat(30).trim()}`;
    const regex = `export const r = /^${'a'.repeat(110)}$/;`;
    const url = `// https://example.com/${'p'.repeat(120)}`;
    const messages = await maxLenMessages(`${comment}\n${regex}\n${url}\nexport const u = 1;\n`);
    expect(messages.map(([line]) => line)).toEqual([1, 2]);
  });

  it('Prettier formats to 120 columns: a call longer than that is not formatted, the same call broken is', async () => {
    const options = { ...(await prettier.resolveConfig(`${ROOT}/${PLANTED}`)), filepath: `${ROOT}/${PLANTED}` };
    expect(options.printWidth).toBe(120);
    const args = Array.from({ length: 12 }, (_, i) => `argument${String(i).padStart(2, '0')}`);
    const oneLine = `call(${args.join(', ')}, a);\n`;
    expect(oneLine.length - 1).toBeGreaterThan(120);
    expect(await prettier.check(oneLine, options)).toBe(false);
    const formatted = await prettier.format(oneLine, options);
    expect(formatted).toBe(`call(\n${[...args, 'a'].map((a) => `  ${a},`).join('\n')}\n);\n`);
    expect(await prettier.check(formatted, options)).toBe(true);
  });
});
