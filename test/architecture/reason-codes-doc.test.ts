/**
 * docs/reasons.md lists every Status code of the core once, in a table row of its own, and no
 * code the core does not have: a code added to the union without its meaning fails here.
 */
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { STATUS_CODES } from '../../src/core/index.js';

const doc = readFileSync(new URL('../../docs/reasons.md', import.meta.url), 'utf8');

describe('docs/reasons.md', () => {
  it('has one table row for each Status code, and none for a code the core lacks', () => {
    const rows = doc
      .split('\n')
      .map((line) => /^\| `([a-z-]+)` \|/.exec(line)?.[1])
      .filter((code): code is string => code !== undefined);
    expect(rows).toEqual([...STATUS_CODES]);
  });
});
