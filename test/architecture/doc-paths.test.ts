/**
 * Every repository path the documentation names exists. The documents are README.md and every
 * Markdown file under docs/. The rules, kept simple on purpose:
 *
 * - A Markdown link or image `[text](target)` whose target is not a URL (`scheme:`) and not only an
 *   anchor (`#...`) names a path relative to the document's folder; its `#anchor` is dropped.
 * - A word that starts with a top-level folder of the repository (`src/`, `docs/`, `test/`,
 *   `scripts/`, `deploy/`, `web/`, `bin/`, `proto/`, `examples/`) names a path relative to the
 *   repository root, in prose or in code. It is not preceded by a letter, digit, `.`, `/`, `-` or `~`
 *   (so `/usr/bin/x`, `~/src/x` and URLs do not count), and it ends at the first character that is
 *   not a letter, digit, `_`, `-`, `.` or `/`; a trailing `.` is dropped. A word with a wildcard
 *   or placeholder right after it (`*`, `<`, `{`, `$`) is a pattern, not a path, and is skipped.
 *   On a line that runs `kubectl`, `deploy/<name>` without a `.` is a Deployment
 *   (`kubectl logs deploy/gpushare-extender`), not a path.
 *
 * A missing path is printed with the document and line that name it.
 */
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));

/** Top-level folders whose paths the documents name. */
const FOLDERS = ['src', 'docs', 'test', 'scripts', 'deploy', 'web', 'bin', 'proto', 'examples'];

const LINK = /!?\[[^\]]*\]\(([^)\s]+)(?:\s+"[^"]*")?\)/g;
const REPO_PATH = new RegExp(`(?<![\\w./~-])((?:${FOLDERS.join('|')})/[\\w./-]*)([*<{$]?)`, 'g');

/** README.md and the Markdown files under docs/, as paths from the root. */
function documents(): string[] {
  const found = ['README.md'];
  const walk = (dir: string): void => {
    for (const entry of readdirSync(join(ROOT, dir), { withFileTypes: true })) {
      const path = `${dir}/${entry.name}`;
      if (entry.isDirectory()) walk(path);
      else if (entry.name.endsWith('.md')) found.push(path);
    }
  };
  walk('docs');
  return found.sort();
}

/** One path a document names: where, and the path from the root. */
interface NamedPath {
  readonly document: string;
  readonly line: number;
  readonly path: string;
}

/** The paths `document` names, by the rules above. */
function pathsIn(document: string): NamedPath[] {
  const named: NamedPath[] = [];
  readFileSync(join(ROOT, document), 'utf8')
    .split('\n')
    .forEach((text, i) => {
      for (const [, target] of text.matchAll(LINK)) {
        if (/^[a-z][a-z0-9+.-]*:/i.test(target!) || target!.startsWith('#')) continue;
        const file = decodeURIComponent(target!.replace(/#.*$/, ''));
        named.push({ document, line: i + 1, path: relative(ROOT, join(ROOT, dirname(document), file)) });
      }
      for (const [, path, wildcard] of text.matchAll(REPO_PATH)) {
        if (wildcard !== '' || (text.includes('kubectl') && /^deploy\/[^./]+$/.test(path!))) continue;
        named.push({ document, line: i + 1, path: path!.replace(/\.+$/, '') });
      }
    });
  return named;
}

describe('paths named in the documentation', () => {
  it('finds paths by the rules', () => {
    expect(REPO_PATH.source).toContain('src|docs|test');
    const sample = 'See src/core/schedule.ts. Not /usr/bin/x, ~/src/y, src/**/*.ts or src/<name>.ts; [a](../b.md#c).';
    const found = [...sample.matchAll(REPO_PATH)].map((m) => [m[1], m[2]]);
    expect(found).toEqual([
      ['src/core/schedule.ts.', ''],
      ['src/', '*'],
      ['src/', '<'],
    ]);
    expect([...sample.matchAll(LINK)].map((m) => m[1])).toEqual(['../b.md#c']);
  });

  it('exist', () => {
    const named = documents().flatMap(pathsIn);
    // The rules find the paths of the documents (a guard against a rule that finds nothing).
    expect(named.length).toBeGreaterThan(500);
    const missing = named
      .filter(({ path }) => path === '' || !existsSync(join(ROOT, path)))
      .map(({ document, line, path }) => `${document}:${line}: ${path === '' ? '(empty link)' : path}`);
    if (missing.length > 0) console.log(`paths the documentation names that do not exist:\n${missing.join('\n')}`);
    expect(missing).toEqual([]);
  });
});
