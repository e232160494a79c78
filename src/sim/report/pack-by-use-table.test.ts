import { describe, expect, it } from 'vitest';
import { packByUse } from '../genai/pack-by-use.js';
import { FOUR_PODS, SMALL_GPU } from '../genai/testing/four-pods.js';
import { renderPackByUseHtml } from './pack-by-use-html.js';
import { formatPackByUse } from './pack-by-use-table.js';

const result = packByUse(FOUR_PODS, { models: [SMALL_GPU], headroom: 'auto', maxOverloadPct: 1 });

describe('the pack-by-use report', () => {
  it('prints the pods, the rule, one row per placement, the headroom and the goals', () => {
    expect(formatPackByUse(result, 'four-pods').split('\n')).toEqual([
      'GenAI pods (four-pods): 4 in both files, 240 minutes 60 s apart; placed from the first 2.0 h (120 minutes), ' +
        'judged on the last 2.0 h (120 minutes)',
      'pods: 4 placed and judged; left out: 0 in one file only, 0 absent from the second half, 0 with fewer than 60 ' +
        'samples of each kind in the first half',
      'rule: on each GPU the co-located duty cycles add up to more than 100% in at most 1% of the minutes it runs a ' +
        'pod (kept on the first half); a missing sample is the last one for up to 5 minutes',
      '',
      'GPU model  placement        headroom  GPUs  saved  mean busy %  rule breaks %  GPUs over rule  ' +
        'GPUs ever overloaded  memory overrun GPU-min  memory floor',
      '---------  ---------------  --------  ----  -----  -----------  -------------  --------------  ' +
        '--------------------  ----------------------  ------------',
      'small      one pod per GPU         —     4      —         5.00          0.000               0  ' +
        '                   0                       0  2 (exact)',
      'small      packed by use          5%     3  25.0%         6.67          0.000               0  ' +
        '                   0                       0',
      '',
      'small: headroom 5%, the smallest of 0%, 5%, … 100% with no memory overrun when 4 pods are placed from the ' +
        'first quarter and judged on the second (overrun GPU-minutes by headroom: 0%: 60, 5%: 0)',
      'goals, small: ≥ 50% fewer GPUs than one pod per GPU: missed (25.0%); within 10% of the memory floor: missed ' +
        '(+50.0%); rule breaks under 1%: met (0.000%); no memory overrun: met (0 GPU-minutes)',
    ]);
  });

  it('renders the same rows as an HTML page', () => {
    const html = renderPackByUseHtml(result, 'four-pods', '2026-01-02T03:04:05.000Z');
    expect(html).toContain('<tr><th scope="row">small</th><td>packed by use</td><td class="num">5%</td>');
    expect(html).toContain('<td class="num">2 (exact)</td>');
    expect(html).toContain('<p>goals, small: ≥ 50% fewer GPUs than one pod per GPU: missed (25.0%);');
    expect(html).toContain('Generated 2026-01-02T03:04:05.000Z.');
  });
});
