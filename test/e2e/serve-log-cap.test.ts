/**
 * End-to-end: a job that writes more than the per-stream log cap (`jobLogCapBytes`) runs to its
 * end and succeeds; its log keeps the head and the tail with the cut marked between them, and the
 * logs API reads the file as it is, offsets and all.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import {
  api,
  cleanupServe,
  jobFolder,
  shellJob,
  startServe,
  waitForJob,
  type ServeHandle,
} from './support/serve-harness.js';

let server: ServeHandle | null = null;
afterEach(async () => {
  if (server) await cleanupServe(server);
  server = null;
});

/** Cap of the test server: 64 KiB per stream, of which the tail is a quarter (16 KiB). */
const CAP_BYTES = 65_536;
const TAIL_BYTES = 16_384;
const HEAD_BYTES = CAP_BYTES - TAIL_BYTES;
const LINES = 30_000;

describe('gpushare serve: the job log cap', () => {
  it('keeps the head and the tail of a stream over the cap, marks the cut, and the job succeeds', async () => {
    server = await startServe({ simulateGpus: '1xA100-80GB', config: { jobLogCapBytes: CAP_BYTES } });
    const script = `i=0; while [ $i -lt ${LINES} ]; do echo "line $i"; i=$((i+1)); done; echo small >&2`;
    const submitted = await api(server, 'POST', '/api/v1/jobs', shellJob(script, { gpuMilli: 100, mode: 'timeslice' }));
    expect(submitted.status).toBe(201);
    const job = await waitForJob(server, submitted.body.id, (j) =>
      ['succeeded', 'failed', 'cancelled'].includes(j.state),
    );
    expect(job.state).toBe('succeeded');
    expect(job.exitCode).toBe(0);

    const full = Buffer.from(Array.from({ length: LINES }, (_, i) => `line ${i}\n`).join(''));
    expect(full.length).toBe(318_890);
    const cutBytes = full.length - HEAD_BYTES - TAIL_BYTES;
    const expected = Buffer.concat([
      full.subarray(0, HEAD_BYTES),
      Buffer.from(`\n[gpushare: ${cutBytes} bytes cut here]\n`),
      full.subarray(full.length - TAIL_BYTES),
    ]);
    const folder = jobFolder(server, submitted.body.id);
    const stdout = readFileSync(join(folder, 'attempt-1.stdout.log'));
    expect(stdout.length).toBe(expected.length);
    expect(stdout.equals(expected)).toBe(true);
    expect(stdout.toString().endsWith(`line ${LINES - 1}\n`)).toBe(true);
    expect(readFileSync(join(folder, 'attempt-1.stderr.log'), 'utf8')).toBe('small\n');

    // The logs API reads the capped file: offsets are byte offsets in it, chunk after chunk.
    let offset = 0;
    let text = '';
    for (let i = 0; i < 100; i++) {
      const { status, body } = await api(
        server,
        'GET',
        `/api/v1/jobs/${submitted.body.id}/logs?stream=stdout&offset=${offset}`,
      );
      expect(status).toBe(200);
      text += body.text as string;
      if (body.nextOffset === offset) break;
      offset = body.nextOffset as number;
    }
    expect(offset).toBe(expected.length);
    expect(text).toBe(expected.toString());
  });
});
