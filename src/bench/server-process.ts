/**
 * The server under benchmark as a child process: `node bin/gpushare serve --port 0` on 127.0.0.1
 * with simulated GPUs, its data in the benchmark's temp dir and XDG_CONFIG_HOME / XDG_DATA_HOME
 * pointing into it (so the user's CLI config is left alone). Started until it prints its URL;
 * stopped with SIGTERM, then SIGKILL. It is started with its defaults: HTTPS with its local CA
 * for this checkout, plain HTTP for a baseline build from before TLS (which prints an http URL).
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { fileURLToPath } from 'node:url';
import type { BenchCleanup } from './bench-cleanup.js';
import type { ServerBenchOptions } from './server-bench-options.js';

const BIN = fileURLToPath(new URL('../../bin/gpushare', import.meta.url));
const START_TIMEOUT_MS = 30_000;
const STOP_TIMEOUT_MS = 15_000;
const STDERR_TAIL_CHARS = 8_000;

/**
 * Where the started server listens: port, scheme, and for https the PEM of the CA to trust (`<data-dir>/tls/ca.crt`).
 */
export interface ServerEndpoint {
  readonly port: number;
  readonly scheme: 'http' | 'https';
  readonly caCert: string | null;
}

/**
 * Starts the server (recorded as `cleanup.server` at once); resolves with its endpoint once it
 * prints its URL. Both pipes are drained for the whole run; the last 8,000 characters of stderr
 * are kept in `stderrTail.text`.
 * With `singleTenant` false the server runs its jobs in its sandbox when the host has one.
 * @throws Error with the server's output when it cannot start, exits or does not print its URL within 30 s
 */
export async function startServerProcess(
  cleanup: BenchCleanup,
  options: Pick<ServerBenchOptions, 'serverNodeArgs' | 'simulateGpus' | 'bin'>,
  stderrTail: { text: string },
  singleTenant = true,
): Promise<ServerEndpoint> {
  const { port, scheme } = await startAndReadUrl(cleanup, options, stderrTail, singleTenant);
  return {
    port,
    scheme,
    caCert: scheme === 'https' ? readFileSync(join(cleanup.dataDir, 'tls', 'ca.crt'), 'utf8') : null,
  };
}

function startAndReadUrl(
  cleanup: BenchCleanup,
  options: Pick<ServerBenchOptions, 'serverNodeArgs' | 'simulateGpus' | 'bin'>,
  stderrTail: { text: string },
  singleTenant: boolean,
): Promise<{ port: number; scheme: 'http' | 'https' }> {
  const dir = cleanup.dir;
  const child = spawn(
    process.execPath,
    [
      ...options.serverNodeArgs,
      options.bin ?? BIN,
      'serve',
      '--port',
      '0',
      '--host',
      '127.0.0.1',
      '--data-dir',
      cleanup.dataDir,
      '--simulate-gpus',
      options.simulateGpus,
      // The server bench's jobs (`sleep` in a folder under the temp dir) are the machine owner's own: no sandbox.
      ...(singleTenant ? ['--single-tenant'] : []),
      // The benches' jobs are `sleep`: 64 MiB of host memory each, not the default 1024 MiB that would hold a 24 GiB
      // machine to 23 running jobs (a baseline build of before the default knows no such flag).
      ...(options.bin === undefined ? ['--default-host-memory-mib', '64'] : []),
    ],
    {
      env: { ...process.env, XDG_CONFIG_HOME: join(dir, 'config'), XDG_DATA_HOME: join(dir, 'xdg-data') },
      stdio: ['ignore', 'pipe', 'pipe'],
    },
  );
  cleanup.server = child;
  // Both pipes are drained for the whole run, so the server never blocks on a full pipe.
  child.stderr!.setEncoding('utf8');
  child.stderr!.on('data', (chunk: string) => {
    stderrTail.text = (stderrTail.text + chunk).slice(-STDERR_TAIL_CHARS);
  });
  child.stdout!.setEncoding('utf8');
  return new Promise((resolvePort, rejectPort) => {
    let stdout = '';
    let settled = false;
    const fail = (message: string): void => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      rejectPort(
        new Error(`${message}\nserver stdout: ${stdout.slice(-2000)}\nserver stderr: ${stderrTail.text.slice(-2000)}`),
      );
    };
    const timer = setTimeout(
      () => fail(`the server did not print its URL within ${START_TIMEOUT_MS / 1000} s`),
      START_TIMEOUT_MS,
    );
    child.stdout!.on('data', (chunk: string) => {
      stdout += chunk;
      const match = /listening on (https?):\/\/127\.0\.0\.1:(\d+)/.exec(stdout);
      if (match && !settled) {
        settled = true;
        clearTimeout(timer);
        resolvePort({ port: Number(match[2]), scheme: match[1] as 'http' | 'https' });
      }
    });
    child.once('error', (error) => fail(`cannot start the server: ${error.message}`));
    child.once('exit', (code, signal) => fail(`the server exited during start (code ${code}, signal ${signal})`));
  });
}

/** SIGTERM, then SIGKILL after 15 s; resolves once the server has exited (at once when it already has). */
export async function stopServerProcess(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  const exited = new Promise<void>((r) => child.once('exit', () => r()));
  child.kill('SIGTERM');
  const timedOut = await Promise.race([exited.then(() => false), sleep(STOP_TIMEOUT_MS).then(() => true)]);
  if (timedOut) {
    child.kill('SIGKILL');
    await exited;
  }
}
