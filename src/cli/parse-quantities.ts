/**
 * Parsers for the quantities `gpushare submit` takes on the command line: GPU shares, memory
 * sizes, durations, CPU, priorities and bounded integers. Each throws {@link QuantityError} with a
 * message that names the flag and the allowed values; commands turn it into a usage error.
 */
import { PRIORITY_CLASS_NAMES } from '../core/index.js';

/** A flag value that does not parse; the message names the flag and what it accepts. */
export class QuantityError extends Error {
  constructor(
    readonly flag: string,
    readonly value: string,
    allowed: string,
  ) {
    super(`${flag}: '${value}' is not valid; expected ${allowed}`);
    this.name = 'QuantityError';
  }
}

/** Most GPUs one job may ask for (the contract's `gpuCount` maximum). */
export const MAX_GPU_COUNT = 64;
/** Most retries of a job (the contract's `retries` maximum). */
export const MAX_RETRIES = 100;
/** Highest numeric priority (the contract's maximum). */
export const MAX_PRIORITY = 1_000_000;

const GPU_ALLOWED =
  `a fraction of one GPU in (0,1] with at most 3 decimals (e.g. 0.5), or a whole number of GPUs ` +
  `1..${MAX_GPU_COUNT} (e.g. 2)`;
const MEMORY_ALLOWED = 'a whole number of MiB, or a size with unit MiB or GiB (e.g. 512MiB, 20GiB, 20480)';
const DURATION_ALLOWED = 'seconds (90), or whole numbers with units d, h, m, s in that order (90s, 15m, 2h, 1h30m, 1d)';
const CPU_ALLOWED = 'CPU cores with at most 3 decimals (e.g. 2, 0.5) or milli-cores with suffix m (e.g. 500m)';

/** What `--gpu` says: a share of one GPU, or a number of whole GPUs. */
export type GpuShare =
  { readonly kind: 'fraction'; readonly gpuMilli: number } | { readonly kind: 'whole'; readonly gpuCount: number };

/**
 * Parses a decimal number with at most three decimals into thousandths (`0.5` → 500, `2` → 2000).
 * @returns The value × 1000, or null when `text` is not such a number.
 */
function parseThousandths(text: string): number | null {
  const match = /^(\d*)(?:\.(\d*))?$/.exec(text);
  if (match === null) return null;
  const whole = match[1] ?? '';
  const decimals = (match[2] ?? '').replace(/0+$/, '');
  if (whole === '' && (match[2] ?? '') === '') return null;
  if (decimals.length > 3 || whole.length > 12) return null;
  return Number(whole || '0') * 1000 + Number(decimals.padEnd(3, '0'));
}

/**
 * Parses `--gpu`: `0.5` is half of one GPU, `1` one whole GPU, `2` two whole GPUs.
 * Fractions above 1 (`1.5`) are rejected: a job gets either a share of each GPU or whole GPUs.
 * @param text - The flag value.
 * @returns A fraction in milli-GPU (1..1000; `1` is `{ kind: 'fraction', gpuMilli: 1000 }`) or a count of whole GPUs (≥
 * 2).
 * @throws QuantityError naming `--gpu` and the allowed values.
 */
export function parseGpuShare(text: string): GpuShare {
  const thousandths = parseThousandths(text.trim());
  if (thousandths === null || thousandths <= 0) throw new QuantityError('--gpu', text, GPU_ALLOWED);
  if (thousandths <= 1000) return { kind: 'fraction', gpuMilli: thousandths };
  if (thousandths % 1000 !== 0 || thousandths / 1000 > MAX_GPU_COUNT)
    throw new QuantityError('--gpu', text, GPU_ALLOWED);
  return { kind: 'whole', gpuCount: thousandths / 1000 };
}

/** The GPU part of a submit, per GPU (as the contract's GpuRequestSchema without the mode). */
export interface GpuAmount {
  /** Number of distinct GPUs, 1..64. */
  readonly gpuCount: number;
  /** Compute share of each GPU in milli-GPU, 1..1000. */
  readonly gpuMilli: number;
}

/**
 * Combines `--gpu` and `--gpu-count`: `--gpu 0.6 --gpu-count 2` is 600 milli on each of two GPUs;
 * `--gpu 2` is two whole GPUs; `--gpu-count N` alone is N whole GPUs; neither is one whole GPU.
 * @param share - Parsed `--gpu`, if given.
 * @param gpuCount - Parsed `--gpu-count`, if given.
 * @throws QuantityError when `--gpu` asks for whole GPUs and `--gpu-count` gives another number.
 */
export function resolveGpuAmount(share: GpuShare | undefined, gpuCount: number | undefined): GpuAmount {
  if (share === undefined) return { gpuCount: gpuCount ?? 1, gpuMilli: 1000 };
  if (share.kind === 'fraction') return { gpuCount: gpuCount ?? 1, gpuMilli: share.gpuMilli };
  if (gpuCount !== undefined && gpuCount !== share.gpuCount) {
    throw new QuantityError(
      '--gpu-count',
      String(gpuCount),
      `no --gpu-count, or the same number as --gpu ${share.gpuCount} (whole GPUs); for a share of each of ` +
        `several GPUs use --gpu 0.5 --gpu-count ${gpuCount}`,
    );
  }
  return { gpuCount: share.gpuCount, gpuMilli: 1000 };
}

/**
 * Parses a memory size in MiB: `20480` (MiB), `512MiB`, `20GiB`, `1.5GiB` (units case-insensitive).
 * @param flag - The flag's name for messages (e.g. `--gpu-memory`).
 * @param text - The flag value.
 * @param minMiB - Smallest allowed result (default 1).
 * @returns Whole MiB.
 * @throws QuantityError naming `flag` and the units when the value does not parse, is below `minMiB`
 *   or is not a whole number of MiB.
 */
export function parseMemoryMiB(flag: string, text: string, minMiB = 1): number {
  const match = /^(\d+(?:\.\d+)?|\.\d+)\s*(mib|gib)?$/i.exec(text.trim());
  const allowed = minMiB > 0 ? `${MEMORY_ALLOWED}, at least ${minMiB} MiB` : MEMORY_ALLOWED;
  if (match === null) throw new QuantityError(flag, text, allowed);
  const number = match[1] ?? '';
  const unit = (match[2] ?? 'mib').toLowerCase();
  let mib: number | null;
  if (unit === 'gib') {
    const thousandths = parseThousandths(number);
    mib = thousandths === null ? null : (thousandths * 1024) / 1000;
  } else {
    mib = /^\d+$/.test(number) ? Number(number) : null;
  }
  if (mib === null || !Number.isSafeInteger(mib) || mib < minMiB) throw new QuantityError(flag, text, allowed);
  return mib;
}

/** Seconds per duration unit. */
const UNIT_SECONDS = { d: 86_400, h: 3_600, m: 60, s: 1 } as const;

/**
 * Parses `--time-limit`: `90` (seconds), `90s`, `15m`, `2h`, `1h30m`, `1d`, `1d2h3m4s`.
 * @returns Whole seconds, ≥ 1.
 * @throws QuantityError naming `--time-limit` for anything else, units out of order or repeated, or 0.
 */
export function parseDurationSeconds(text: string, flag = '--time-limit'): number {
  const trimmed = text.trim().toLowerCase();
  let seconds: number;
  if (/^\d+$/.test(trimmed)) {
    seconds = Number(trimmed);
  } else {
    const match = /^(?:(\d+)d)?(?:(\d+)h)?(?:(\d+)m)?(?:(\d+)s)?$/.exec(trimmed);
    if (match === null || trimmed === '') throw new QuantityError(flag, text, DURATION_ALLOWED);
    const [, d, h, m, s] = match;
    seconds =
      Number(d ?? 0) * UNIT_SECONDS.d +
      Number(h ?? 0) * UNIT_SECONDS.h +
      Number(m ?? 0) * UNIT_SECONDS.m +
      Number(s ?? 0);
  }
  if (!Number.isSafeInteger(seconds) || seconds < 1)
    throw new QuantityError(flag, text, `${DURATION_ALLOWED}, at least 1 second`);
  return seconds;
}

/**
 * Parses `--cpu`: cores (`2`, `0.5`, at most 3 decimals) or milli-cores with suffix `m` (`500m`).
 * @returns Milli-cores, ≥ 0.
 * @throws QuantityError naming `--cpu`.
 */
export function parseCpuMilli(text: string): number {
  const trimmed = text.trim();
  const milli = /^\d+m$/i.test(trimmed) ? Number(trimmed.slice(0, -1)) : parseThousandths(trimmed);
  if (milli === null || !Number.isSafeInteger(milli)) throw new QuantityError('--cpu', text, CPU_ALLOWED);
  return milli;
}

/**
 * Parses `--priority`: a class name (low, normal, high, critical) or an integer 0..1000000.
 * @returns The class name (lower-cased) or the number.
 * @throws QuantityError naming `--priority` and the classes.
 */
export function parsePriority(text: string): number | (typeof PRIORITY_CLASS_NAMES)[number] {
  const trimmed = text.trim().toLowerCase();
  const named = PRIORITY_CLASS_NAMES.find((name) => name === trimmed);
  if (named !== undefined) return named;
  const value = /^\d+$/.test(trimmed) ? Number(trimmed) : Number.NaN;
  if (!(value >= 0 && value <= MAX_PRIORITY)) {
    throw new QuantityError(
      '--priority',
      text,
      `a class (${PRIORITY_CLASS_NAMES.join(', ')}) or an integer 0..${MAX_PRIORITY}`,
    );
  }
  return value;
}

/**
 * Parses a whole number in `[min, max]`.
 * @param flag - The flag's name for messages.
 * @throws QuantityError naming `flag` and the range.
 */
export function parseIntegerInRange(flag: string, text: string, min: number, max: number): number {
  const trimmed = text.trim();
  const value = /^\d+$/.test(trimmed) ? Number(trimmed) : Number.NaN;
  if (!(value >= min && value <= max)) throw new QuantityError(flag, text, `an integer ${min}..${max}`);
  return value;
}

/**
 * Parses one `--env` pair `KEY=VALUE` (the value may be empty and may contain `=`).
 * @returns The key and the value.
 * @throws QuantityError naming `--env` when there is no `=` or the key is not a variable name.
 */
export function parseEnvPair(text: string): [key: string, value: string] {
  const eq = text.indexOf('=');
  const key = eq < 0 ? '' : text.slice(0, eq);
  if (!/^[A-Za-z_][A-Za-z0-9_]*$/.test(key)) {
    throw new QuantityError(
      '--env',
      text,
      'KEY=VALUE with KEY made of letters, digits and _, not starting with a digit',
    );
  }
  return [key, text.slice(eq + 1)];
}

/** Most GPU-equivalents a quota may name (the contract's maximum). */
export const MAX_GPU_EQUIVALENTS = 1_000_000;

/**
 * Parses a quota figure in GPU-equivalents (one = one whole GPU): a decimal number ≥ 0 such as
 * `1`, `0.5`, `2.25` (no sign, no exponent), at most {@link MAX_GPU_EQUIVALENTS}. With
 * `allowNone`, `none` (any case) means no limit.
 * @param flag - The flag's name for messages (`--guaranteed`, `--limit`).
 * @returns The number, or null for `none`.
 * @throws QuantityError naming `flag` and the allowed values.
 */
export function parseGpuEquivalents(flag: string, text: string, allowNone: true): number | null;
export function parseGpuEquivalents(flag: string, text: string, allowNone?: false): number;
export function parseGpuEquivalents(flag: string, text: string, allowNone = false): number | null {
  const trimmed = text.trim();
  if (allowNone && trimmed.toLowerCase() === 'none') return null;
  const value = /^(?:\d+(?:\.\d*)?|\.\d+)$/.test(trimmed) ? Number(trimmed) : Number.NaN;
  if (!(value >= 0 && value <= MAX_GPU_EQUIVALENTS)) {
    throw new QuantityError(
      flag,
      text,
      `a number of GPU-equivalents 0..${MAX_GPU_EQUIVALENTS} (1 = one whole GPU; e.g. 1, 0.5, 2.25)` +
        `${allowNone ? ', or none for no limit' : ''}`,
    );
  }
  return value;
}

/**
 * Formats GPU-equivalents for tables: at most 3 decimals (1 → `1`, 0.4285714 → `0.429`); null
 * (no limit) → `none`.
 */
export function formatGpuEquivalents(value: number | null): string {
  return value === null ? 'none' : String(Math.round(value * 1000) / 1000);
}
