/**
 * The whole placement sequence of one packing replay, as bytes, so that two versions of the
 * scheduler core can be compared decision by decision (test/golden/). Each arrival is 3 bytes: the
 * node index (u16, little-endian; 0xffff when the pod fits nowhere) and the bitmask of the node's
 * GPUs it got (u8: nodes of the openb trace have at most 8 GPUs).
 */
import { createHash } from 'node:crypto';
import { prepareReplay, replayArrivals, type ReplayInput } from '../packing-replay.js';

/** Bytes per arrival in a placement sequence. */
export const BYTES_PER_ARRIVAL = 3;
/** Node index written for a pod that fits nowhere. */
export const UNPLACED_NODE = 0xffff;

/**
 * Replays `input` with one policy and seed and records every decision.
 * @returns `BYTES_PER_ARRIVAL` bytes per arrival, in arrival order
 * @throws RangeError when a node index or GPU index does not fit the format
 * @throws UnknownPolicyError for an unregistered policy name
 */
export function recordPlacementSequence(input: ReplayInput, policyName: string, seed: number): Buffer {
  const prepared = prepareReplay(input, policyName, seed);
  const out = Buffer.alloc(prepared.arrivals.length * BYTES_PER_ARRIVAL);
  let i = 0;
  replayArrivals(prepared, (_request, decision) => {
    let node = UNPLACED_NODE;
    let mask = 0;
    if (decision !== null) {
      node = decision.nodeIndex;
      for (const g of decision.gpuIndices) {
        if (g > 7) throw new RangeError(`GPU index ${g} does not fit the 8-bit mask`);
        mask |= 1 << g;
      }
    }
    if (node > UNPLACED_NODE) throw new RangeError(`node index ${node} does not fit 16 bits`);
    out.writeUInt16LE(node, i * BYTES_PER_ARRIVAL);
    out.writeUInt8(mask, i * BYTES_PER_ARRIVAL + 2);
    i++;
  });
  return out;
}

/** One decision of a sequence, readable. */
export interface SequenceDecision {
  /** Node index, or null when the pod fit nowhere. */
  readonly node: number | null;
  /** GPU indices on that node, ascending. */
  readonly gpus: readonly number[];
}

/** Decision `arrival` (0-based) of a recorded sequence. */
export function decisionAt(sequence: Buffer, arrival: number): SequenceDecision {
  const node = sequence.readUInt16LE(arrival * BYTES_PER_ARRIVAL);
  const mask = sequence.readUInt8(arrival * BYTES_PER_ARRIVAL + 2);
  const gpus: number[] = [];
  for (let g = 0; g < 8; g++) if (mask & (1 << g)) gpus.push(g);
  return { node: node === UNPLACED_NODE ? null : node, gpus };
}

/** SHA-256 of a sequence, hex. */
export function sequenceDigest(sequence: Buffer): string {
  return createHash('sha256').update(sequence).digest('hex');
}

/**
 * The first arrival (0-based) at which two sequences differ, or null when they are equal. A
 * sequence that is a strict prefix of the other differs at its length.
 */
export function firstDivergence(expected: Buffer, actual: Buffer): number | null {
  const n = Math.min(expected.length, actual.length);
  for (let i = 0; i < n; i++) {
    if (expected[i] !== actual[i]) return Math.floor(i / BYTES_PER_ARRIVAL);
  }
  return expected.length === actual.length ? null : Math.floor(n / BYTES_PER_ARRIVAL);
}
