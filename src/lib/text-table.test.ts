import { describe, expect, it } from 'vitest';
import { formatTable } from './text-table.js';

describe('formatTable', () => {
  it('aligns columns two spaces apart, numbers right, with a rule under the header', () => {
    expect(
      formatTable(
        [
          ['policy', 'seeds', 'unalloc'],
          ['fgd', '42-51', '4.80'],
          ['best-fit', '42', '17.06'],
        ],
        { right: [false, false, true] },
      ),
    ).toBe(
      [
        'policy    seeds  unalloc',
        '--------  -----  -------',
        'fgd       42-51     4.80',
        'best-fit  42       17.06',
      ].join('\n'),
    );
  });

  it('leaves the rule out on request, trims trailing spaces and fills short rows', () => {
    expect(
      formatTable(
        [
          ['ID', 'NAME', 'STATE'],
          ['1', 'train'],
          ['12', 'a', 'running'],
        ],
        { rule: false },
      ),
    ).toBe('ID  NAME   STATE\n1   train\n12  a      running');
    expect(formatTable([])).toBe('');
  });
});
