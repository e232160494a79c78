import { describe, expect, it } from 'vitest';
import { isSameProcess, parseProcStat, readProcessStartTime } from './proc-identity.js';

const FIELDS_AFTER_COMM = 'S 1 4242 4242 0 -1 4194560 100 0 0 0 250 17 0 0 20 0 1 0 987654 1000 100';

describe('parseProcStat', () => {
  it('reads state, process group, CPU ticks and start time (field 22)', () => {
    expect(parseProcStat(`4242 (sleep) ${FIELDS_AFTER_COMM}`)).toEqual({
      pid: 4242,
      state: 'S',
      ppid: 1,
      pgrp: 4242,
      session: 4242,
      utimeTicks: 250,
      stimeTicks: 17,
      startTime: '987654',
    });
  });

  it('parses after the last ")" when the command name has spaces and parentheses', () => {
    expect(parseProcStat(`77 (a) b (c)) ${FIELDS_AFTER_COMM}`)?.startTime).toBe('987654');
    expect(parseProcStat(`77 (a) b (c)) ${FIELDS_AFTER_COMM}`)?.pgrp).toBe(4242);
  });

  it('returns null for text without the stat shape', () => {
    expect(parseProcStat('')).toBeNull();
    expect(parseProcStat('12 (x) S 1 2')).toBeNull();
  });
});

describe('isSameProcess', () => {
  it('is true for this process with its start time, false for another start time or no process', () => {
    const start = readProcessStartTime(process.pid);
    expect(start).toMatch(/^\d+$/);
    expect(isSameProcess(process.pid, start ?? '')).toBe(true);
    expect(isSameProcess(process.pid, `${start}0`)).toBe(false);
    expect(isSameProcess(2 ** 22 + 1, '1')).toBe(false); // above pid_max
    expect(readProcessStartTime(-1)).toBeNull();
  });
});
