import { describe, it, expect } from 'vitest';
import { randomPermutation, SeededRng, shuffleInPlace, type Rng } from './rng.js';

const firstUint32s = (rng: Rng, n: number): number[] => Array.from({ length: n }, () => rng.nextUint32());

describe('SeededRng', () => {
  it('equal seeds give equal streams', () => {
    expect(firstUint32s(new SeededRng(42), 5)).toEqual(firstUint32s(new SeededRng(42), 5));
    const a = new SeededRng(7);
    const b = new SeededRng(7);
    expect(Array.from({ length: 5 }, () => a.nextFloat())).toEqual(Array.from({ length: 5 }, () => b.nextFloat()));
  });

  it('nearby seeds give different streams', () => {
    const s42 = firstUint32s(new SeededRng(42), 5);
    const s43 = firstUint32s(new SeededRng(43), 5);
    expect(s42).not.toEqual(s43);
    for (let i = 0; i < 5; i++) expect(s42[i]).not.toBe(s43[i]);
  });

  it('seed 0 and negative seeds work', () => {
    expect(firstUint32s(new SeededRng(0), 5).some((x) => x !== 0)).toBe(true);
    expect(firstUint32s(new SeededRng(-1), 5)).toEqual(firstUint32s(new SeededRng(-1), 5));
  });

  it('nextUint32 returns unsigned 32-bit integers', () => {
    const rng = new SeededRng(1);
    for (let i = 0; i < 1000; i++) {
      const x = rng.nextUint32();
      if (!(Number.isInteger(x) && x >= 0 && x <= 0xffffffff)) throw new Error(`not a uint32: ${x}`);
    }
  });

  it('nextFloat is in [0, 1)', () => {
    const rng = new SeededRng(2);
    for (let i = 0; i < 1000; i++) {
      const x = rng.nextFloat();
      if (!(x >= 0 && x < 1)) throw new Error(`out of [0, 1): ${x}`);
    }
  });

  it('intn(n) is an integer in [0, n) and hits every value', () => {
    const rng = new SeededRng(3);
    for (const n of [1, 2, 7, 1213]) {
      const seen = new Set<number>();
      let bad = 0;
      for (let i = 0; i < 20 * n; i++) {
        const x = rng.intn(n);
        if (!(Number.isInteger(x) && x >= 0 && x < n)) bad++;
        seen.add(x);
      }
      expect(bad).toBe(0);
      if (n <= 7) expect(seen.size).toBe(n);
    }
  });

  it.each([0, -1, 1.5, Number.NaN, Number.POSITIVE_INFINITY, 2 ** 53])('intn(%s) throws RangeError', (n) => {
    expect(() => new SeededRng(4).intn(n)).toThrow(RangeError);
  });
});

describe('randomPermutation / shuffleInPlace', () => {
  it.each([0, 1, 2, 10, 1213])('randomPermutation(%i) is a permutation of 0..n-1', (n) => {
    const perm = randomPermutation(n, new SeededRng(42));
    expect(perm).toBeInstanceOf(Int32Array);
    expect(perm).toHaveLength(n);
    expect(Array.from(perm).sort((a, b) => a - b)).toEqual(Array.from({ length: n }, (_x, i) => i));
  });

  it('randomPermutation is deterministic per seed and actually permutes', () => {
    expect(randomPermutation(50, new SeededRng(9))).toEqual(randomPermutation(50, new SeededRng(9)));
    expect(Array.from(randomPermutation(50, new SeededRng(9)))).not.toEqual(Array.from({ length: 50 }, (_x, i) => i));
    expect(randomPermutation(50, new SeededRng(9))).not.toEqual(randomPermutation(50, new SeededRng(10)));
  });

  it('shuffleInPlace returns the same array holding the same items', () => {
    const items = ['a', 'b', 'c', 'd', 'e', 'f'];
    const out = shuffleInPlace(items, new SeededRng(5));
    expect(out).toBe(items);
    expect([...out].sort()).toEqual(['a', 'b', 'c', 'd', 'e', 'f']);
  });
});
