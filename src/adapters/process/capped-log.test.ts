import { closeSync, mkdtempSync, openSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { CappedLog, capParts, cutMarker } from './capped-log.js';

/** Folders the test made (a test may write several logs). */
const dirs: string[] = [];
afterEach(() => {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

/** Writes `chunks` through a CappedLog of `capBytes` into a new file; returns the file's bytes. */
function written(capBytes: number, chunks: Buffer[]): Buffer {
  const dir = mkdtempSync(join(tmpdir(), 'gpushare-capped-log-'));
  dirs.push(dir);
  const path = join(dir, 'out.log');
  const fd = openSync(path, 'a');
  const log = new CappedLog(fd, capBytes);
  for (const chunk of chunks) log.write(chunk);
  log.end();
  closeSync(fd);
  return readFileSync(path);
}

describe('CappedLog', () => {
  it('splits a cap into a head and a tail of a quarter, at most 1 MiB', () => {
    expect(capParts(4096)).toEqual({ headBytes: 3072, tailBytes: 1024 });
    expect(capParts(64 << 20)).toEqual({ headBytes: (64 << 20) - (1 << 20), tailBytes: 1 << 20 });
  });

  it('keeps a stream within the cap whole, without a marker', () => {
    const data = Buffer.from('x'.repeat(4000) + 'end\n');
    expect(written(4096, [data.subarray(0, 1000), data.subarray(1000)]).equals(data)).toBe(true);
  });

  it('keeps the head and the tail of a longer stream, whatever the chunking, and marks the bytes cut', () => {
    const data = Buffer.from(Array.from({ length: 2000 }, (_, i) => `${i}\n`).join(''));
    const expected = Buffer.concat([
      data.subarray(0, 3072),
      Buffer.from(cutMarker(data.length - 4096)),
      data.subarray(data.length - 1024),
    ]);
    expect(written(4096, [data]).equals(expected)).toBe(true);
    const chunks: Buffer[] = [];
    for (let at = 0; at < data.length; at += 333) chunks.push(data.subarray(at, at + 333));
    expect(written(4096, chunks).equals(expected)).toBe(true);
    expect(cutMarker(5806)).toBe('\n[gpushare: 5806 bytes cut here]\n');
  });
});
