import { describe, expect, it } from 'vitest';
import {
  formatGpuEquivalents,
  parseCpuMilli,
  parseDurationSeconds,
  parseEnvPair,
  parseGpuEquivalents,
  parseGpuShare,
  parseIntegerInRange,
  parseMemoryMiB,
  parsePriority,
  QuantityError,
  resolveGpuAmount,
} from './parse-quantities.js';

describe('parseGpuShare (--gpu)', () => {
  it.each([
    ['0.5', { kind: 'fraction', gpuMilli: 500 }],
    ['.25', { kind: 'fraction', gpuMilli: 250 }],
    ['0.125', { kind: 'fraction', gpuMilli: 125 }],
    ['0.001', { kind: 'fraction', gpuMilli: 1 }],
    ['0.5000', { kind: 'fraction', gpuMilli: 500 }],
    ['1', { kind: 'fraction', gpuMilli: 1000 }],
    ['1.0', { kind: 'fraction', gpuMilli: 1000 }],
    [' 0.6 ', { kind: 'fraction', gpuMilli: 600 }],
    ['2', { kind: 'whole', gpuCount: 2 }],
    ['8', { kind: 'whole', gpuCount: 8 }],
    ['64', { kind: 'whole', gpuCount: 64 }],
  ])('%j → %j', (text, expected) => {
    expect(parseGpuShare(text)).toEqual(expected);
  });

  it.each(['1.5', '2.5', '0', '0.0', '0.0005', '65', '-1', 'half', '', '.', '50%', '1e3', '0x1'])(
    'rejects %j naming the flag and the allowed values',
    (text) => {
      expect(() => parseGpuShare(text)).toThrow(QuantityError);
      expect(() => parseGpuShare(text)).toThrow(
        `--gpu: '${text}' is not valid; expected a fraction of one GPU in (0,1] with at most 3 decimals ` +
          `(e.g. 0.5), or a whole number of GPUs 1..64 (e.g. 2)`,
      );
    },
  );
});

describe('resolveGpuAmount (--gpu with --gpu-count)', () => {
  it.each([
    ['neither: one whole GPU', undefined, undefined, { gpuCount: 1, gpuMilli: 1000 }],
    ['--gpu-count 3 alone: three whole GPUs', undefined, 3, { gpuCount: 3, gpuMilli: 1000 }],
    ['--gpu 0.5: half of one GPU', '0.5', undefined, { gpuCount: 1, gpuMilli: 500 }],
    ['--gpu 0.6 --gpu-count 2: 600 milli on each of two', '0.6', 2, { gpuCount: 2, gpuMilli: 600 }],
    ['--gpu 1 --gpu-count 3: three whole GPUs', '1', 3, { gpuCount: 3, gpuMilli: 1000 }],
    ['--gpu 2: two whole GPUs', '2', undefined, { gpuCount: 2, gpuMilli: 1000 }],
    ['--gpu 2 --gpu-count 2: consistent', '2', 2, { gpuCount: 2, gpuMilli: 1000 }],
  ] as const)('%s', (_label, gpu, count, expected) => {
    expect(resolveGpuAmount(gpu === undefined ? undefined : parseGpuShare(gpu), count)).toEqual(expected);
  });

  it('rejects --gpu 2 --gpu-count 3, naming --gpu-count', () => {
    expect(() => resolveGpuAmount(parseGpuShare('2'), 3)).toThrow(
      /^--gpu-count: '3' is not valid; expected no --gpu-count, or the same number as --gpu 2/,
    );
  });
});

describe('parseMemoryMiB (--gpu-memory, --host-memory)', () => {
  it.each([
    ['20480', 20480],
    ['512MiB', 512],
    ['512mib', 512],
    ['20GiB', 20480],
    ['20gib', 20480],
    ['20 GiB', 20480],
    ['1.5GiB', 1536],
    ['0.5GiB', 512],
    ['1', 1],
  ])('%j → %d MiB', (text, mib) => {
    expect(parseMemoryMiB('--gpu-memory', text)).toBe(mib);
  });

  it.each(['20GB', '20G', '20M', '20MB', '1TiB', '', 'lots', '-1', '0', '1.5', '1.5MiB', '0.3GiB', '20 GiBs'])(
    'rejects %j naming the flag and the units',
    (text) => {
      expect(() => parseMemoryMiB('--gpu-memory', text)).toThrow(QuantityError);
      expect(() => parseMemoryMiB('--gpu-memory', text)).toThrow(
        `--gpu-memory: '${text}' is not valid; expected a whole number of MiB, or a size with unit MiB or ` +
          `GiB (e.g. 512MiB, 20GiB, 20480), at least 1 MiB`,
      );
    },
  );

  it('allows 0 when the minimum is 0 (--host-memory)', () => {
    expect(parseMemoryMiB('--host-memory', '0', 0)).toBe(0);
    expect(() => parseMemoryMiB('--host-memory', '4GB', 0)).toThrow(
      /^--host-memory: '4GB' is not valid; expected .* MiB or GiB/,
    );
  });
});

describe('parseDurationSeconds (--time-limit)', () => {
  it.each([
    ['90', 90],
    ['90s', 90],
    ['15m', 900],
    ['2h', 7200],
    ['1h30m', 5400],
    ['1d', 86400],
    ['1d2h3m4s', 93784],
    ['1H30M', 5400],
    ['100m', 6000],
    [' 45s ', 45],
  ])('%j → %d s', (text, seconds) => {
    expect(parseDurationSeconds(text)).toBe(seconds);
  });

  it.each(['', '0', '0s', '0h0m', '1.5h', '30m1h', '1h1h', '1w', 'h', 'soon', '-5', '1 h'])(
    'rejects %j naming --time-limit',
    (text) => {
      expect(() => parseDurationSeconds(text)).toThrow(QuantityError);
      expect(() => parseDurationSeconds(text)).toThrow(
        `--time-limit: '${text}' is not valid; expected seconds (90), or whole numbers with units d, h, ` +
          `m, s in that order`,
      );
    },
  );
});

describe('parseCpuMilli (--cpu)', () => {
  it.each([
    ['2', 2000],
    ['0.5', 500],
    ['0.25', 250],
    ['500m', 500],
    ['1500M', 1500],
    ['0', 0],
  ])('%j → %d milli', (text, milli) => {
    expect(parseCpuMilli(text)).toBe(milli);
  });

  it.each(['two', '0.0001', '-1', '1c', '', 'm'])('rejects %j', (text) => {
    expect(() => parseCpuMilli(text)).toThrow(`--cpu: '${text}' is not valid; expected CPU cores`);
  });
});

describe('parsePriority (--priority)', () => {
  it.each([
    ['low', 'low'],
    ['HIGH', 'high'],
    ['critical', 'critical'],
    ['0', 0],
    ['750', 750],
    ['1000000', 1_000_000],
  ] as const)('%j → %j', (text, value) => {
    expect(parsePriority(text)).toBe(value);
  });

  it.each(['urgent', '-1', '1000001', '1.5', ''])('rejects %j listing the classes', (text) => {
    expect(() => parsePriority(text)).toThrow(
      `--priority: '${text}' is not valid; expected a class (low, normal, high, critical) or an integer 0..1000000`,
    );
  });
});

describe('parseIntegerInRange', () => {
  it('accepts the bounds and rejects outside them', () => {
    expect(parseIntegerInRange('--retries', '0', 0, 100)).toBe(0);
    expect(parseIntegerInRange('--retries', '100', 0, 100)).toBe(100);
    for (const bad of ['101', '-1', '1.0', 'x', '']) {
      expect(() => parseIntegerInRange('--retries', bad, 0, 100)).toThrow(
        `--retries: '${bad}' is not valid; expected an integer 0..100`,
      );
    }
  });
});

describe('parseEnvPair (--env)', () => {
  it.each([
    ['A=1', ['A', '1']],
    ['EMPTY=', ['EMPTY', '']],
    ['URL=a=b', ['URL', 'a=b']],
    ['_x9=y z', ['_x9', 'y z']],
  ])('%j → %j', (text, pair) => {
    expect(parseEnvPair(text)).toEqual(pair);
  });

  it.each(['NOVALUE', '=1', '1A=2', 'A-B=1'])('rejects %j', (text) => {
    expect(() => parseEnvPair(text)).toThrow(`--env: '${text}' is not valid; expected KEY=VALUE`);
  });
});

describe('parseGpuEquivalents (quota set --guaranteed, --limit)', () => {
  it.each([
    ['0', 0],
    ['1', 1],
    ['0.5', 0.5],
    ['.25', 0.25],
    ['2.', 2],
    [' 1.5 ', 1.5],
    ['0.4286', 0.4286],
    ['1000000', 1_000_000],
  ])('%j → %d', (text, value) => {
    expect(parseGpuEquivalents('--guaranteed', text)).toBe(value);
    expect(parseGpuEquivalents('--limit', text, true)).toBe(value);
  });

  it('takes none (any case) as no limit only where allowed', () => {
    expect(parseGpuEquivalents('--limit', 'none', true)).toBeNull();
    expect(parseGpuEquivalents('--limit', 'NONE', true)).toBeNull();
    expect(() => parseGpuEquivalents('--guaranteed', 'none')).toThrow(
      "--guaranteed: 'none' is not valid; expected a number of GPU-equivalents 0..1000000 (1 = one whole " +
        'GPU; e.g. 1, 0.5, 2.25)',
    );
  });

  it.each(['-1', '', '.', 'one', '1e3', '0x1', '1,5', '1000000.5', 'Infinity', 'NaN', '1/2'])(
    'rejects %j naming the flag',
    (text) => {
      expect(() => parseGpuEquivalents('--limit', text, true)).toThrow(QuantityError);
      expect(() => parseGpuEquivalents('--limit', text, true)).toThrow(
        `--limit: '${text}' is not valid; expected a number of GPU-equivalents 0..1000000 (1 = one whole ` +
          `GPU; e.g. 1, 0.5, 2.25), or none for no limit`,
      );
    },
  );

  it('formats with at most 3 decimals, null as none', () => {
    expect([
      formatGpuEquivalents(1),
      formatGpuEquivalents(0.5),
      formatGpuEquivalents(3 / 7),
      formatGpuEquivalents(0),
      formatGpuEquivalents(null),
    ]).toEqual(['1', '0.5', '0.429', '0', 'none']);
  });
});
