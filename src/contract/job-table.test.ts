import { describe, expect, it } from 'vitest';
import { sampleJob } from '../adapters/http-client/testing/api-fixtures.js';
import { formatAge, formatGpuMilli, JOB_TABLE_COLUMNS, jobNote, jobTableRow } from './job-table.js';

describe('formatGpuMilli', () => {
  it.each([
    [500, '0.5'],
    [1000, '1'],
    [125, '0.125'],
    [1, '0.001'],
  ])('%d → %s', (milli, text) => {
    expect(formatGpuMilli(milli)).toBe(text);
  });
});

describe('formatAge', () => {
  it.each([
    [-5_000, '0s'],
    [0, '0s'],
    [59_999, '59s'],
    [60_000, '1m'],
    [3_599_000, '59m'],
    [3_600_000, '1h'],
    [5_400_000, '1h30m'],
    [86_400_000, '1d'],
    [93_600_000, '1d2h'],
  ])('%d ms → %s', (ms, text) => {
    expect(formatAge(ms)).toBe(text);
  });
});

describe('jobTableRow', () => {
  const submittedMs = Date.parse('2025-01-01T00:00:00.000Z');

  it('writes one cell per column: a running job where it runs, without the attempt-started reason', () => {
    const job = sampleJob({
      reason: 'attempt 1 started (pid 4242)',
      reasonCode: 'attempt-started',
      submittedAt: '2025-01-01T00:00:00.000Z',
    });
    const row = jobTableRow(job, submittedMs + 90_000);
    expect(row).toHaveLength(JOB_TABLE_COLUMNS.length);
    expect(row).toEqual(['12', 'train', 'team-a', 'running', '0.5 × 1', 'mps', '1m  on GPU 0']);
  });

  it('a pending job: the mode it asked for and its wait reason after the age', () => {
    const job = sampleJob({
      state: 'pending',
      placement: null,
      attempt: 0,
      reason: 'waiting for 0.5 GPU: every GPU is full',
      submittedAt: '2025-01-01T00:00:00.000Z',
    });
    expect(jobTableRow(job, submittedMs + 7_200_000)).toEqual([
      '12',
      'train',
      'team-a',
      'pending',
      '0.5 × 1',
      'auto',
      '2h  waiting for 0.5 GPU: every GPU is full',
    ]);
  });

  it('a second attempt says so; a reason beyond the start follows after a semicolon', () => {
    const job = sampleJob({ attempt: 2, reason: 'resumed from checkpoint 3' });
    expect(jobNote(job)).toBe('on GPU 0, attempt 2; resumed from checkpoint 3');
  });

  it('an unreadable submit time is an age of ?', () => {
    expect(jobTableRow(sampleJob({ submittedAt: 'not a time', reason: null }), 0)[6]).toBe('?  on GPU 0');
  });

  it('keeps control characters as they are (the client escapes them)', () => {
    expect(jobTableRow(sampleJob({ name: 'a\u001b[2Jb' }), 0)[1]).toBe('a\u001b[2Jb');
  });
});
