import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';
import { afterAll, describe, expect, it } from 'vitest';
import { readGenaiTrace } from './read-genai-trace.js';

const dir = mkdtempSync(join(tmpdir(), 'gpushare-genai-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('readGenaiTrace', () => {
  it('reads the two gzipped files of a folder', async () => {
    writeFileSync(join(dir, 'pod_gpu_duty_cycle_anon.csv.gz'), gzipSync('value,timestamp_anon,container_ip\n5,60,a\n'));
    writeFileSync(
      join(dir, 'pod_gpu_memory_used_bytes_anon.csv.gz'),
      gzipSync('timestamp_anon,value,container_ip\n60,1048576,a\n'),
    );
    const trace = await readGenaiTrace(dir);
    expect(trace.instantsSeconds).toEqual([60]);
    expect(trace.pods.map((p) => [p.pod, p.dutyPct[0], p.memoryMiB[0]])).toEqual([['a', 5, 1]]);
  });

  it('names a file that is not gzip', async () => {
    writeFileSync(join(dir, 'pod_gpu_memory_used_bytes_anon.csv.gz'), 'timestamp_anon,value,container_ip\n');
    await expect(readGenaiTrace(dir)).rejects.toThrow(
      `${join(dir, 'pod_gpu_memory_used_bytes_anon.csv.gz')}: not a gzip file: incorrect header check`,
    );
  });

  it('names the duty-cycle file when both files fail, even when the memory file fails first', async () => {
    const both = join(dir, 'both');
    mkdirSync(both);
    // A large non-gzip duty file fails after a long read; the missing memory file fails at once.
    writeFileSync(join(both, 'pod_gpu_duty_cycle_anon.csv.gz'), Buffer.alloc(32 * 1024 * 1024, 0x41));
    await expect(readGenaiTrace(both)).rejects.toThrow(
      `${join(both, 'pod_gpu_duty_cycle_anon.csv.gz')}: not a gzip file: incorrect header check`,
    );
  });
});
