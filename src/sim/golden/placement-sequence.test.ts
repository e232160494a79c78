import { describe, expect, it } from 'vitest';
import { decisionAt, firstDivergence, sequenceDigest, UNPLACED_NODE } from './placement-sequence.js';

/** A sequence of (node, gpu mask) records. */
function seq(records: readonly [number, number][]): Buffer {
  const b = Buffer.alloc(records.length * 3);
  records.forEach(([node, mask], i) => {
    b.writeUInt16LE(node, i * 3);
    b.writeUInt8(mask, i * 3 + 2);
  });
  return b;
}

describe('placement sequences', () => {
  const golden = seq([
    [3, 0b1],
    [700, 0b110],
    [UNPLACED_NODE, 0],
    [12, 0b10000000],
  ]);

  it('equal sequences do not diverge and share a digest', () => {
    expect(firstDivergence(golden, Buffer.from(golden))).toBeNull();
    expect(sequenceDigest(golden)).toBe(sequenceDigest(Buffer.from(golden)));
  });

  it('names the first arrival whose node or GPUs differ', () => {
    expect(
      firstDivergence(
        golden,
        seq([
          [3, 0b1],
          [700, 0b101],
          [UNPLACED_NODE, 0],
          [12, 0b10000000],
        ]),
      ),
    ).toBe(1);
    expect(
      firstDivergence(
        golden,
        seq([
          [3, 0b1],
          [700, 0b110],
          [4, 0b1],
          [12, 0b10000000],
        ]),
      ),
    ).toBe(2);
    expect(
      firstDivergence(
        golden,
        seq([
          [3, 0b1],
          [956, 0b110],
          [UNPLACED_NODE, 0],
          [12, 0b10000000],
        ]),
      ),
    ).toBe(1);
  });

  it('a shorter sequence diverges where it ends', () => {
    expect(firstDivergence(golden, golden.subarray(0, 6))).toBe(2);
  });

  it('decodes node and GPU indices, and unplaced pods', () => {
    expect(decisionAt(golden, 1)).toEqual({ node: 700, gpus: [1, 2] });
    expect(decisionAt(golden, 2)).toEqual({ node: null, gpus: [] });
    expect(decisionAt(golden, 3)).toEqual({ node: 12, gpus: [7] });
  });
});
