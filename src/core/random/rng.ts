/**
 * Seeded pseudo-random numbers for the core (which may not call Math.random). xoshiro128**
 * (Blackman & Vigna, "Scrambled linear pseudorandom number generators", 2018), seeded through
 * splitmix32 so that nearby seeds give unrelated streams. Deterministic across platforms.
 */

/** The randomness the core consumes; pass one in, never create one from the clock inside core. */
export interface Rng {
  /** Uniform 32-bit unsigned integer. */
  nextUint32(): number;
  /** Uniform integer in [0, n). @throws RangeError when n is not a positive safe integer */
  intn(n: number): number;
  /** Uniform double in [0, 1). */
  nextFloat(): number;
}

/** xoshiro128** generator. */
export class SeededRng implements Rng {
  private s0: number;
  private s1: number;
  private s2: number;
  private s3: number;

  /** @param seed any integer (e.g. 42); equal seeds give equal streams */
  constructor(seed: number) {
    let x = seed | 0;
    const next = (): number => {
      x = (x + 0x9e3779b9) | 0;
      let z = x;
      z = Math.imul(z ^ (z >>> 16), 0x85ebca6b);
      z = Math.imul(z ^ (z >>> 13), 0xc2b2ae35);
      return (z ^ (z >>> 16)) >>> 0;
    };
    this.s0 = next();
    this.s1 = next();
    this.s2 = next();
    this.s3 = next();
    if ((this.s0 | this.s1 | this.s2 | this.s3) === 0) this.s0 = 1;
  }

  nextUint32(): number {
    const result = Math.imul(rotl(Math.imul(this.s1, 5), 7), 9) >>> 0;
    const t = this.s1 << 9;
    this.s2 ^= this.s0;
    this.s3 ^= this.s1;
    this.s1 ^= this.s2;
    this.s0 ^= this.s3;
    this.s2 ^= t;
    this.s3 = rotl(this.s3, 11);
    return result;
  }

  nextFloat(): number {
    // 53 random bits from two draws.
    const hi = this.nextUint32() >>> 5;
    const lo = this.nextUint32() >>> 6;
    return (hi * 67108864 + lo) / 9007199254740992;
  }

  intn(n: number): number {
    if (!Number.isSafeInteger(n) || n <= 0) throw new RangeError(`intn: n must be a positive integer, got ${n}`);
    return Math.floor(this.nextFloat() * n);
  }
}

function rotl(x: number, k: number): number {
  return (x << k) | (x >>> (32 - k));
}

/** Shuffles `items` in place (Fisher–Yates) and returns it. */
export function shuffleInPlace<T>(items: T[], rng: Rng): T[] {
  for (let i = items.length - 1; i > 0; i--) {
    const j = rng.intn(i + 1);
    const tmp = items[i]!;
    items[i] = items[j]!;
    items[j] = tmp;
  }
  return items;
}

/** A uniform random permutation of 0..n-1. */
export function randomPermutation(n: number, rng: Rng): Int32Array {
  const perm = new Int32Array(n);
  for (let i = 0; i < n; i++) perm[i] = i;
  for (let i = n - 1; i > 0; i--) {
    const j = rng.intn(i + 1);
    const tmp = perm[i]!;
    perm[i] = perm[j]!;
    perm[j] = tmp;
  }
  return perm;
}
