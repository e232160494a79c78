import { describe, expect, it } from 'vitest';
import { MAX_SHAPE_IDS, MAX_WHOLE_ANSWERS, NodeAnswerMemo } from './node-answer-memo.js';

const keyOf = (i: number) => `tenant-a\u0000{"gpuCount":1,"gpuMemoryMiB":${i}}`;
const candidates = ['gpu-a', 'gpu-b'];

describe('NodeAnswerMemo bounds', () => {
  it(`gives at most ${MAX_SHAPE_IDS} keys an id after 10,000 distinct ones, and never reuses an id`, () => {
    const memo = new NodeAnswerMemo();
    const ids = new Set<number>();
    const hot = memo.shapeId(keyOf(0));
    for (let i = 1; i <= 10_000; i++) {
      ids.add(memo.shapeId(keyOf(i)));
      // A key used now and then keeps its id (the least recently used key is forgotten).
      if (i % 1000 === 0) expect(memo.shapeId(keyOf(0))).toBe(hot);
    }
    expect(ids.size).toBe(10_000);
    expect(ids.has(hot)).toBe(false);
    expect(memo.sizes().shapeIds).toBe(MAX_SHAPE_IDS);
    // A forgotten key gets a new id, one no other key ever had.
    const forgotten = memo.shapeId(keyOf(1));
    expect(forgotten).toBe(10_001);
    expect(memo.sizes().shapeIds).toBe(MAX_SHAPE_IDS);
  });

  it('never answers a new key with what was stored under a forgotten key', () => {
    const memo = new NodeAnswerMemo();
    const old = memo.shapeId(keyOf(0));
    memo.set('gpu-a', old, 1, 0, { score: 42, failed: null });
    memo.storeWhole(old, candidates, 1, new Map([['gpu-a', 42]]), new Map());
    expect(memo.get(memo.slotsOf(candidates)[0], old, 1, 0)).toMatchObject({ score: 42, failed: null });
    for (let i = 1; i <= MAX_SHAPE_IDS; i++) memo.shapeId(keyOf(i));
    // keyOf(0) was the least recently used: forgotten with its whole answer.
    expect(memo.sizes()).toEqual({ shapeIds: MAX_SHAPE_IDS, wholes: 0 });
    const fresh = memo.shapeId(keyOf(0));
    expect(fresh).toBe(MAX_SHAPE_IDS + 1);
    expect(memo.whole(fresh, candidates, 1)).toBeUndefined();
    expect(memo.get(memo.slotsOf(candidates)[0], fresh, 1, 0)).toBeUndefined();
  });

  it(`keeps at most ${MAX_WHOLE_ANSWERS} whole answers, the most recently stored`, () => {
    const memo = new NodeAnswerMemo();
    for (let i = 0; i < 10_000; i++) {
      const id = memo.shapeId(keyOf(i));
      memo.storeWhole(id, candidates, 1, new Map([['gpu-a', i]]), new Map());
    }
    expect(memo.sizes()).toEqual({ shapeIds: MAX_SHAPE_IDS, wholes: MAX_WHOLE_ANSWERS });
    expect(memo.whole(memo.shapeId(keyOf(9_999)), candidates, 1)?.scores).toEqual(new Map([['gpu-a', 9_999]]));
    expect(memo.whole(memo.shapeId(keyOf(10_000 - MAX_WHOLE_ANSWERS - 1)), candidates, 1)).toBeUndefined();
  });
});
