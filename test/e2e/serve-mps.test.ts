/**
 * End-to-end: MPS control daemons through a stand-in `nvidia-cuda-mps-control` on PATH that records
 * every invocation. The first `mps` job on a GPU starts that GPU's daemon (its own pipe and log
 * directories), the job gets CUDA_MPS_PIPE_DIRECTORY and its limits, enforcement says
 * driver-per-process (memory and compute), and the daemon is told to `quit` when the GPU has no MPS job left.
 */
import { chmodSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import {
  api,
  cleanupServe,
  jobFolder,
  pollFor,
  type ServeHandle,
  shellJob,
  startServe,
  waitForJob,
  untilFileExists,
} from './support/serve-harness.js';

const bin = mkdtempSync(join(tmpdir(), 'gpushare-mps-bin-'));
const log = join(bin, 'calls.log');
writeFileSync(
  join(bin, 'nvidia-cuda-mps-control'),
  `#!/bin/sh
printf 'run [%s] CUDA_VISIBLE_DEVICES=%s pipe=%s\\n' "$*" "$CUDA_VISIBLE_DEVICES" "$CUDA_MPS_PIPE_DIRECTORY" >> '${log}'
pidfile="$CUDA_MPS_PIPE_DIRECTORY/nvidia-cuda-mps-control.pid"
if [ "$1" = "-d" ]; then sleep 300 >/dev/null 2>&1 </dev/null & echo $! > "$pidfile"; exit 0; fi
while IFS= read -r line; do
  printf 'stdin %s\\n' "$line" >> '${log}'
  case "$line" in
    quit) kill "$(cat "$pidfile")"; rm -f "$pidfile" ;;
    get_default_active_thread_percentage) echo 100.0 ;;
  esac
done
`,
);
chmodSync(join(bin, 'nvidia-cuda-mps-control'), 0o755);
writeFileSync(log, '');

let server: ServeHandle | null = null;
afterEach(async () => {
  if (server) await cleanupServe(server);
  server = null;
});
afterAll(() => rmSync(bin, { recursive: true, force: true }));

describe('gpushare serve with MPS', () => {
  it(
    'starts one daemon per GPU on demand, hands the pipe to the job, and quits it when the GPU has ' + 'no MPS job',
    async () => {
      server = await startServe({ simulateGpus: '1xA100-80GB', env: { PATH: `${bin}:${process.env.PATH}` } });
      // Both jobs run until the gate file appears: they share the GPU's one daemon.
      const gate = join(server.dataDir, 'release');
      const script =
        'echo "pipe=$CUDA_MPS_PIPE_DIRECTORY threads=$CUDA_MPS_ACTIVE_THREAD_PERCENTAGE ' +
        `limit=$CUDA_MPS_PINNED_DEVICE_MEM_LIMIT"; ${untilFileExists(gate)}`;
      const first = (
        await api(server, 'POST', '/api/v1/jobs', shellJob(script, { gpuMilli: 250, gpuMemoryMiB: 10240 }))
      ).body;
      const second = (await api(server, 'POST', '/api/v1/jobs', shellJob(script, { gpuMilli: 500 }))).body;
      const running = await waitForJob(server, first.id, (j) => j.state === 'running');
      await waitForJob(server, second.id, (j) => j.state === 'running');
      expect(running.placement.mode).toBe('mps');
      expect(running.placement.enforcement).toEqual({ gpuMemory: 'driver-per-process', compute: 'driver-per-process' });
      const uuid = running.placement.gpus[0].uuid as string;
      writeFileSync(gate, '');
      const done = await Promise.all(
        [first.id, second.id].map((id) => waitForJob(server!, id, (j) => j.state === 'succeeded')),
      );
      expect(done.length).toBe(2);
      // The daemon is told to quit once the GPU has no MPS job left.
      const calls = await pollFor('the MPS daemon to be told to quit', () => {
        const lines = readFileSync(log, 'utf8').trim().split('\n');
        return lines.at(-1) === 'stdin quit' ? lines : undefined;
      });
      const pipe = join(server.dataDir, 'data', 'mps', uuid, 'pipe');
      expect(calls[0]).toBe(`run [-d] CUDA_VISIBLE_DEVICES=${uuid} pipe=${pipe}`);
      expect(calls.filter((c) => c.startsWith('run [-d]'))).toHaveLength(1); // one daemon for both jobs
      expect(calls.at(-1)).toBe('stdin quit');
      const out = readFileSync(join(jobFolder(server, first.id), 'attempt-1.stdout.log'), 'utf8');
      expect(out).toBe(`pipe=${pipe} threads=25 limit=${uuid}=10240M\n`);
    },
  );
});
