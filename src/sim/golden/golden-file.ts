/**
 * The golden placement file (test/golden/): every (policy, seed) placement sequence of a packing
 * replay, brotli-compressed, in one binary file with a JSON index beside it. Recorded once by
 * `node dist/sim/golden/record-golden.js`; the tests compare today's decisions against it.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { brotliCompressSync, brotliDecompressSync } from 'node:zlib';

/** One recorded run in the index. */
export interface GoldenRun {
  /** `policy/seed`, e.g. `fgd/42`. */
  readonly key: string;
  readonly arrivals: number;
  /** SHA-256 of the uncompressed sequence (placement-sequence.ts), hex. */
  readonly sha256: string;
  /** Byte range of its brotli blob in the binary file. */
  readonly offset: number;
  readonly length: number;
}

/** The index file. */
export interface GoldenIndex {
  readonly format: 1;
  /** What was replayed: trace files (basenames) and inflation. */
  readonly nodesFile: string;
  readonly podsFile: string;
  readonly inflation: number;
  /** The commit the sequences were recorded at. */
  readonly recordedAt: string;
  readonly runs: readonly GoldenRun[];
}

/** The key of a run: `policy/seed`. */
export function goldenKey(policy: string, seed: number): string {
  return `${policy}/${seed}`;
}

/** Writes the index (`<base>.json`) and the blobs (`<base>.bin`). */
export function writeGolden(
  base: string,
  header: Omit<GoldenIndex, 'format' | 'runs'>,
  runs: readonly { key: string; sequence: Buffer; sha256: string }[],
): void {
  const blobs: Buffer[] = [];
  const index: GoldenRun[] = [];
  let offset = 0;
  for (const run of runs) {
    const blob = brotliCompressSync(run.sequence);
    index.push({ key: run.key, arrivals: run.sequence.length / 3, sha256: run.sha256, offset, length: blob.length });
    blobs.push(blob);
    offset += blob.length;
  }
  writeFileSync(`${base}.bin`, Buffer.concat(blobs));
  writeFileSync(`${base}.json`, `${JSON.stringify({ format: 1, ...header, runs: index }, null, 1)}\n`);
}

/** A golden file opened for reading. */
export interface Golden {
  readonly index: GoldenIndex;
  /** The recorded sequence of `policy/seed`; throws when the run was not recorded. */
  sequence(key: string): Buffer;
}

/** Opens `<base>.json` and `<base>.bin`. @throws Error for a missing file or an unknown format */
export function readGolden(base: string): Golden {
  const index = JSON.parse(readFileSync(`${base}.json`, 'utf8')) as GoldenIndex;
  if (index.format !== 1) throw new Error(`${base}.json: unknown golden format ${String(index.format)}`);
  const blobs = readFileSync(`${base}.bin`);
  return {
    index,
    sequence(key) {
      const run = index.runs.find((r) => r.key === key);
      if (!run) throw new Error(`${base}.json has no run ${key}`);
      return brotliDecompressSync(blobs.subarray(run.offset, run.offset + run.length));
    },
  };
}
