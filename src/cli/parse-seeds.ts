/**
 * Parser for the `--seeds` option: `42-51`, `1,3,5`, or a mix such as `42,45-47`.
 */

/** Largest seed accepted (the RNG folds seeds to 32-bit signed integers). */
export const MAX_SEED = 2_147_483_647;
/** Most seeds one list may expand to. */
export const MAX_SEED_COUNT = 10_000;

/** Thrown for a malformed seed list; the message says what is allowed. */
export class SeedListError extends Error {
  constructor(detail: string) {
    super(
      `${detail}; expected integers in 0..${MAX_SEED} as a range a-b (a <= b), a comma list, or a mix like 42,45-47`,
    );
    this.name = 'SeedListError';
  }
}

function seedOf(text: string): number {
  if (!/^\d+$/.test(text)) throw new SeedListError(`'${text}' is not a seed`);
  const value = Number(text);
  if (value > MAX_SEED) throw new SeedListError(`seed ${text} is too large`);
  return value;
}

/**
 * Expands a seed list into seeds in the order written, e.g. `42,45-47` → [42, 45, 46, 47].
 * Spaces around items are ignored.
 *
 * @param text - The option value.
 * @returns The seeds (non-negative integers ≤ {@link MAX_SEED}), without duplicates.
 * @throws SeedListError for an empty list or item, a non-integer or negative value, a reversed
 *   range, a seed listed twice, or more than {@link MAX_SEED_COUNT} seeds.
 */
export function parseSeeds(text: string): number[] {
  if (text.trim() === '') throw new SeedListError('empty seed list');
  const seeds: number[] = [];
  const seen = new Set<number>();
  for (const raw of text.split(',')) {
    const item = raw.trim();
    if (item === '') throw new SeedListError(`empty item in '${text}'`);
    const range = /^(\d+)\s*-\s*(\d+)$/.exec(item);
    const [from, to] = range ? [seedOf(range[1] ?? ''), seedOf(range[2] ?? '')] : [seedOf(item), seedOf(item)];
    if (from > to) throw new SeedListError(`range '${item}' is reversed`);
    if (seeds.length + (to - from + 1) > MAX_SEED_COUNT) throw new SeedListError(`more than ${MAX_SEED_COUNT} seeds`);
    for (let seed = from; seed <= to; seed++) {
      if (seen.has(seed)) throw new SeedListError(`seed ${seed} is listed twice`);
      seen.add(seed);
      seeds.push(seed);
    }
  }
  return seeds;
}
