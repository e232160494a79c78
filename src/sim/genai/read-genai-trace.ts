/**
 * Reads the GenAI pods' two gzipped sample files from a folder (gpushare ships them in
 * data/alibaba-genai-v2026-gpu-util): the I/O around parseGenaiTrace.
 */
import { join } from 'node:path';
import { gunzipSync } from 'node:zlib';
import { readBytes } from '../traces/alibaba-csv.js';
import { TraceFormatError } from '../traces/trace-types.js';
import { GENAI_FILES, parseGenaiTrace, type GenaiTrace } from './genai-trace.js';

/** One gzipped file as text. @throws TraceFormatError when it cannot be read or is not gzip */
async function gunzipText(path: string): Promise<string> {
  const bytes = await readBytes(path);
  try {
    return gunzipSync(bytes).toString('utf8');
  } catch (err) {
    throw new TraceFormatError(
      path,
      null,
      null,
      `not a gzip file: ${err instanceof Error ? err.message : String(err)}`,
    );
  }
}

/**
 * Reads `pod_gpu_duty_cycle_anon.csv.gz` and `pod_gpu_memory_used_bytes_anon.csv.gz` from `dir`.
 * Both are read at once; when both fail, the duty-cycle file's error is the one thrown, so the
 * message does not depend on which read finished first.
 * @throws TraceFormatError when a file is missing, unreadable, not gzip or malformed (parseGenaiTrace)
 */
export async function readGenaiTrace(dir: string): Promise<GenaiTrace> {
  const files = { duty: join(dir, GENAI_FILES.duty), memory: join(dir, GENAI_FILES.memory) };
  const [duty, memory] = await Promise.allSettled([gunzipText(files.duty), gunzipText(files.memory)]);
  if (duty.status === 'rejected') throw duty.reason;
  if (memory.status === 'rejected') throw memory.reason;
  return parseGenaiTrace(duty.value, memory.value, files);
}
