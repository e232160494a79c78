/**
 * Remembers a node's score per pod shape until the node changes. Scheduling a pod touches one node,
 * so almost every score of the next cycle can be reused; this is what makes a full-cluster,
 * every-node score affordable (the FGD authors' simulator rescans everything per event).
 */
import type { NodeState } from './node-state.js';

/** Flat cache: entry (node, shape) is valid while node.version and the epoch are unchanged. */
export class ScoreCache {
  private shapeCapacity = 16;
  private scores: Float64Array;
  private versions: Int32Array;
  private epochs: Int32Array;

  constructor(private readonly nodeCount: number) {
    this.scores = new Float64Array(nodeCount * this.shapeCapacity);
    this.versions = new Int32Array(nodeCount * this.shapeCapacity).fill(-1);
    this.epochs = new Int32Array(nodeCount * this.shapeCapacity);
  }

  /** The cached score, or undefined when absent or stale. */
  get(node: NodeState, shapeId: number, epoch: number): number | undefined {
    if (shapeId >= this.shapeCapacity) return undefined;
    const i = node.index * this.shapeCapacity + shapeId;
    return this.versions[i] === node.version && this.epochs[i] === epoch ? this.scores[i] : undefined;
  }

  set(node: NodeState, shapeId: number, epoch: number, score: number): void {
    if (shapeId >= this.shapeCapacity) this.grow(shapeId + 1);
    const i = node.index * this.shapeCapacity + shapeId;
    this.scores[i] = score;
    this.versions[i] = node.version;
    this.epochs[i] = epoch;
  }

  private grow(minShapes: number): void {
    let capacity = this.shapeCapacity;
    while (capacity < minShapes) capacity *= 2;
    const scores = new Float64Array(this.nodeCount * capacity);
    const versions = new Int32Array(this.nodeCount * capacity).fill(-1);
    const epochs = new Int32Array(this.nodeCount * capacity);
    for (let n = 0; n < this.nodeCount; n++) {
      const from = n * this.shapeCapacity;
      const to = n * capacity;
      scores.set(this.scores.subarray(from, from + this.shapeCapacity), to);
      versions.set(this.versions.subarray(from, from + this.shapeCapacity), to);
      epochs.set(this.epochs.subarray(from, from + this.shapeCapacity), to);
    }
    this.scores = scores;
    this.versions = versions;
    this.epochs = epochs;
    this.shapeCapacity = capacity;
  }
}
