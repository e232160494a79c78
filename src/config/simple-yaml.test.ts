/**
 * parseSimpleYaml against the yaml package: what it answers is what `parse` answers, for what the
 * CLI writes (always answered) and for texts built from YAML's tricky pieces (answered or left alone).
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { parse, stringify } from 'yaml';
import { parseSimpleYaml } from './simple-yaml.js';

const PEM =
  '-----BEGIN CERTIFICATE-----\nMIIBhTCCASugAwIBAgIQIRi6zePL6mKjOipn+dNuaTAKBggqhkjOPQQDAjASMRAw\n' +
  'DgYDVQQKEwdBY21lIENvMB4XDTE3MTAyMDE5NDMwNloXDTE4MTAyMDE5NDMwNlow==\n-----END CERTIFICATE-----';

describe('parseSimpleYaml', () => {
  it('reads what the CLI writes (url, token, the CA as a block, caFile) as the yaml package does', () => {
    const word = fc.stringMatching(/^[A-Za-z0-9_-]{1,40}$/);
    const config = fc.record(
      {
        url: fc.constantFrom(
          'https://127.0.0.1:7070',
          'http://gpu-box.example.com:8750/gpushare',
          'https://[::1]:7070',
        ),
        token: word.map((w) => `gs_${w}`),
        ca: fc.constantFrom(PEM, `${PEM}\n`, `${PEM}\n${PEM}\n`),
        caFile: fc.constantFrom('/var/lib/gpushare/tls/ca.crt', 'certs/ca.crt', '_ca.pem'),
      },
      { requiredKeys: [] },
    );
    fc.assert(
      fc.property(config, (values) => {
        const text = stringify(values);
        const ours = parseSimpleYaml(text);
        if (Object.keys(values).length > 0 && !values.url?.includes('[')) expect(ours, text).toEqual(values);
        if (ours !== null) expect(ours).toEqual(parse(text));
      }),
      { numRuns: 500 },
    );
  });

  it("answers only what the yaml package reads the same way, for texts built from YAML's pieces", () => {
    const piece = fc.constantFrom(
      'url',
      'ca',
      'token',
      'x1',
      ':',
      ': ',
      ' ',
      '  ',
      '   ',
      '\n',
      '\n  ',
      '|',
      '|-',
      '|+',
      '>',
      '#',
      ' #',
      "'",
      '"',
      '-',
      '- ',
      '[',
      ']',
      '{',
      '}',
      ',',
      '&a',
      '*a',
      '!',
      '%',
      '@',
      '?',
      '~',
      'null',
      'Null',
      'TRUE',
      'false',
      'yes',
      '.inf',
      '.nan',
      '1',
      '0x1f',
      '0o17',
      '1e3',
      '+1',
      '-1.5',
      '/',
      '_',
      '.',
      'https://h:1',
      'gs_a-b',
      'MIIB+/=',
      '\t',
      '\r',
      '---',
      '...',
      'é',
      '\u202e',
    );
    const key = fc.constantFrom('url', 'ca', 'token', 'x1', 'null', 'TRUE', 'a b', '', '-', 'é');
    const separator = fc.constantFrom(': ', ':', ':  ', ' : ', ': ', ': ', ': ');
    const value = fc.array(piece, { minLength: 1, maxLength: 3 }).map((p) => p.join(''));
    const word = fc.constantFrom('https://h:1', 'gs_a-b', '/etc/ca.crt', 'MIIB+/=', 'x');
    const header = fc.tuple(key, fc.constantFrom(': |', ': |-', ': |+', ': >', ':|'));
    const blockLine = fc
      .tuple(fc.constantFrom('  ', '  ', '   ', ' ', ''), fc.oneof(word, value))
      .map((p) => p.join(''));
    const entry = fc.oneof(
      fc.tuple(key, separator, fc.oneof(word, word, value)).map((p) => p.join('')),
      fc.tuple(header, fc.array(blockLine, { maxLength: 3 })).map(([h, b]) => [h.join(''), ...b].join('\n')),
    );
    const text = fc
      .tuple(fc.array(entry, { minLength: 1, maxLength: 4 }), fc.constantFrom('', '\n', '\n\n'))
      .map(([entries, end]) => entries.join('\n') + end);
    let answered = 0;
    fc.assert(
      fc.property(text, (yamlText) => {
        const ours = parseSimpleYaml(yamlText);
        if (ours === null) return;
        answered += 1;
        expect(parse(yamlText), JSON.stringify(yamlText)).toEqual(ours);
      }),
      { numRuns: 20_000 },
    );
    expect(answered).toBeGreaterThan(100);
  });

  it('leaves comments, quotes, numbers, booleans, null, duplicate keys, other indentation to the yaml package', () => {
    for (const text of [
      '',
      '# a comment\nurl: http://h:1\n',
      "url: 'http://h:1'\n",
      'url: 8750\n',
      'token: true\n',
      'token: Null\n',
      'token:\n',
      'url: a\nurl: b\n',
      'ca: |\n    four spaces\n',
      'ca: |\n',
      'url: a\n\ntoken: b\n',
      'url: a\r\n',
    ])
      expect(parseSimpleYaml(text), JSON.stringify(text)).toBeNull();
  });
});
