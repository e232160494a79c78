import { InvalidArgumentError } from 'commander';
import { describe, expect, it } from 'vitest';
import { parseCancelStates } from './cancel-command.js';
import { formatBulkCancel } from './format-bulk-cancel.js';

describe('gpushare cancel: a bulk answer as text, and --state', () => {
  it(
    'lists ids as ranges, skipped ids with why, the reason; a dry run says "would"; control characters ' + 'escaped',
    () => {
      const result = {
        dryRun: false,
        cancelled: [1, 2, 3, 7],
        stopping: [],
        reason: 'cancelled by an admin: x\u001b[2J',
        skipped: [
          { id: 9, reason: 'not-found' as const, message: 'job 9 not found' },
          { id: 12, reason: 'already-ended' as const, message: 'job 12 already ended (failed)' },
        ],
      };
      expect(
        formatBulkCancel(result)
          .split('\n')
          .map((l) => l.trimEnd()),
      ).toEqual([
        'cancelled 4: 1-3,7',
        'stopping 0',
        'skipped 2:',
        '  ID  REASON         MESSAGE',
        '  9   not-found      job 9 not found',
        '  12  already-ended  job 12 already ended (failed)',
        'reason: cancelled by an admin: x\\x1b[2J',
      ]);
      expect(formatBulkCancel({ ...result, dryRun: true, skipped: [], stopping: [4] })).toBe(
        'would cancel 4: 1-3,7\nwould stop 1: 4\nwould skip 0\nreason: cancelled by an admin: x\\x1b[2J',
      );
    },
  );

  it('takes a comma list of cancellable states and refuses the others, naming the allowed ones', () => {
    expect(parseCancelStates('pending,preempted,pending')).toEqual(['pending', 'preempted']);
    expect(() => parseCancelStates('pending,cancelled')).toThrow(InvalidArgumentError);
    expect(() => parseCancelStates('pending,cancelled')).toThrow(
      "'pending,cancelled': 'cancelled' is not a state a job can be cancelled in (allowed: pending, " +
        'scheduled, running, preempted)',
    );
  });
});
