import { describe, expect, it } from 'vitest';
import { sampleJob } from '../adapters/http-client/testing/api-fixtures.js';
import { formatJobEnd, jobExitStatus } from './format-jobs.js';
import { formatBar, formatTextTable } from './text-table.js';

describe('jobExitStatus (submit --wait)', () => {
  it.each([
    ['succeeded', { state: 'succeeded', exitCode: 0, signal: null }, 0],
    ['failed with code 3', { state: 'failed', exitCode: 3, signal: null }, 3],
    ['failed with code 0 (e.g. time limit reached as it exited)', { state: 'failed', exitCode: 0, signal: null }, 1],
    ['failed without code', { state: 'failed', exitCode: null, signal: null }, 1],
    ['SIGKILL', { state: 'failed', exitCode: null, signal: 'SIGKILL' }, 137],
    ['SIGTERM', { state: 'failed', exitCode: null, signal: 'SIGTERM' }, 143],
    ['signal as a number', { state: 'failed', exitCode: null, signal: '9' }, 137],
    ['unknown signal name', { state: 'failed', exitCode: null, signal: 'SIGWHAT' }, 1],
    ['cancelled, even with a signal', { state: 'cancelled', exitCode: null, signal: 'SIGTERM' }, 130],
    ['code above 255', { state: 'failed', exitCode: 258, signal: null }, 2],
  ] as const)('%s → %d', (_label, job, status) => {
    expect(jobExitStatus(job)).toBe(status);
  });
});

describe('formatJobEnd', () => {
  it('names the exit code or signal and a reason that adds something', () => {
    expect(formatJobEnd(sampleJob({ state: 'failed', exitCode: 3, reason: 'exit code 3' }))).toBe(
      'job 12 failed (exit code 3)',
    );
    expect(formatJobEnd(sampleJob({ state: 'failed', signal: 'SIGKILL', reason: 'killed by SIGKILL' }))).toBe(
      'job 12 failed (signal SIGKILL)',
    );
    expect(formatJobEnd(sampleJob({ state: 'failed', signal: 'SIGKILL', reason: 'time limit of 60 s reached' }))).toBe(
      'job 12 failed (signal SIGKILL, time limit of 60 s reached)',
    );
    expect(formatJobEnd(sampleJob({ state: 'cancelled', reason: null }))).toBe('job 12 cancelled');
  });
});

describe('text tables and bars', () => {
  it('pads columns to the widest cell and trims line ends', () => {
    expect(
      formatTextTable(
        ['A', 'LONG'],
        [
          ['xyz', ''],
          ['1', '2'],
        ],
      ),
    ).toBe('A    LONG\nxyz\n1    2');
  });

  it('fills a bar in proportion, clamped', () => {
    expect(formatBar(250, 1000, 4)).toBe('[#...]');
    expect(formatBar(2000, 1000, 4)).toBe('[####]');
    expect(formatBar(5, 0, 4)).toBe('[....]');
  });
});
