// A test harness: API bodies are checked field by field by each test.
/* eslint-disable @typescript-eslint/no-explicit-any */
/**
 * Test harness: runs `gpushare serve` as a real child process on 127.0.0.1 (port 0) with its own
 * data dir and CLI config home, talks to it over HTTPS (trusting only the server's local CA, as
 * the CLI does; plain HTTP for a server started with --insecure-http) and through the real CLI,
 * and cleans up every job process it started (jobs outlive the server by design).
 */
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmdirSync, rmSync, writeFileSync } from 'node:fs';
import { request as httpRequest, type IncomingMessage } from 'node:http';
import { request as httpsRequest } from 'node:https';
import { tmpdir } from 'node:os';
import { cgroupMounts, detectCgroupLayout, jobCgroupParent } from '../../../src/adapters/process/cgroup-layout.js';
import { isExitedState, readProcStat } from '../../../src/host/proc-identity.js';
import { join } from 'node:path';
import { WAIT_MS } from '../../../src/testing/deadlines.js';
import { processesNaming } from '../../support/local-process.js';

const BIN = join(import.meta.dirname, '..', '..', '..', 'bin', 'gpushare');
/** This checkout's `bin/gpushare` (absolute): what a job runs for `gpushare report`. */
export const GPUSHARE_BIN = BIN;

/** A running server under test. */
export interface ServeHandle {
  /** `https://127.0.0.1:PORT` (`http://` with --insecure-http). */
  url: string;
  adminToken: string;
  /** PEM of the CA the server's certificate chains to: `<data>/tls/ca.crt`, or `--tls-ca`'s; null for plain HTTP. */
  caCert: string | null;
  readonly dataDir: string;
  readonly configHome: string;
  process: ChildProcess;
  stderr: string;
}

/**
 * Settings of every server under test unless a test gives its own: passes every 100 ms and exits
 * noticed within 50 ms, so that waiting on a condition (a state, a number of passes) is quick; jobs
 * unsandboxed (`singleTenant`), so that they may use the test's own temporary folders; the sandbox
 * has its own tests (serve-sandbox.test.ts), which set `singleTenant: false`.
 */
export const TEST_SERVER_CONFIG: Readonly<Record<string, string | number | boolean>> = {
  scheduleIntervalMs: 100,
  monitorIntervalMs: 50,
  singleTenant: true,
};

/**
 * Starts `gpushare serve --port 0` on `dataDir` (made when absent) and waits for its URL line.
 * `config` (config file keys) is merged over TEST_SERVER_CONFIG and given with `--config`; `uid`
 * runs the server as that (unprivileged) user, gid the same (the caller makes `dataDir` theirs, and
 * gives `bin` where that user cannot read this checkout: test/support/readable-checkout.ts);
 * `bin` is the `gpushare` command to run (default: this checkout's bin/gpushare);
 * `inheritedPipe` gives it an extra inherited descriptor (4); `wrap` is a command the server runs
 * under (e.g. bwrap and its arguments, ending before the program), the handle's process being that command.
 */
export async function startServe(options: {
  simulateGpus?: string;
  dataDir?: string;
  configHome?: string;
  extraArgs?: string[];
  env?: Record<string, string>;
  config?: Record<string, string | number | boolean>;
  uid?: number;
  bin?: string;
  inheritedPipe?: boolean;
  wrap?: readonly string[];
}): Promise<ServeHandle> {
  const dataDir = options.dataDir ?? mkdtempSync(join(tmpdir(), 'gpushare-e2e-'));
  const configHome = options.configHome ?? join(dataDir, 'config-home');
  const gpuArgs = options.simulateGpus === undefined ? [] : ['--simulate-gpus', options.simulateGpus];
  const configFile = join(dataDir, 'serve-config.yaml');
  const config = { ...TEST_SERVER_CONFIG, ...options.config };
  writeFileSync(
    configFile,
    Object.entries(config)
      .map(([key, value]) => `${key}: ${JSON.stringify(value)}\n`)
      .join(''),
  );
  const wrap = options.wrap ?? [];
  const child = spawn(
    wrap[0] ?? process.execPath,
    [
      ...(wrap.length === 0 ? [] : [...wrap.slice(1), process.execPath]),
      options.bin ?? BIN,
      'serve',
      '--port',
      '0',
      '--data-dir',
      join(dataDir, 'data'),
      '--config',
      configFile,
      ...gpuArgs,
      '--log-level',
      'warn',
      ...(options.extraArgs ?? []),
    ],
    {
      env: {
        ...process.env,
        XDG_CONFIG_HOME: configHome,
        GPUSHARE_URL: '',
        GPUSHARE_TOKEN: '',
        GPUSHARE_CA_FILE: '',
        GPUSHARE_CA_CERT: '',
        ...options.env,
      },
      // `inheritedPipe`: one more open descriptor (4) the server inherits, as from a log pipe of whoever starts it.
      stdio: options.inheritedPipe === true ? ['ignore', 'pipe', 'pipe', 'ignore', 'pipe'] : ['ignore', 'pipe', 'pipe'],
      ...(options.uid === undefined ? {} : { uid: options.uid, gid: options.uid }),
    },
  );
  const handle: ServeHandle = {
    url: '',
    adminToken: '',
    caCert: null,
    dataDir,
    configHome,
    process: child,
    stderr: '',
  };
  child.stderr!.on('data', (d: Buffer) => (handle.stderr += d.toString()));
  try {
    handle.url = await new Promise<string>((resolve, reject) => {
      let out = '';
      // A bound on a hang (WAIT_MS): on a loaded machine a start takes seconds.
      const timer = setTimeout(
        () => reject(new Error(`serve did not start in ${WAIT_MS} ms: ${out} ${handle.stderr}`)),
        WAIT_MS,
      );
      child.stdout!.on('data', (d: Buffer) => {
        out += d.toString();
        const match = /listening on (https?:\/\/\S+)/.exec(out);
        if (match) {
          clearTimeout(timer);
          resolve(match[1]!);
        }
      });
      child.once('exit', (code) => {
        clearTimeout(timer);
        reject(new Error(`serve exited with ${code}: ${out} ${handle.stderr}`));
      });
    });
  } catch (error) {
    // Leave nothing behind: the caller gets no handle to clean up with.
    child.kill('SIGKILL');
    if (options.dataDir === undefined) rmSync(dataDir, { recursive: true, force: true });
    throw error;
  }
  handle.adminToken = readFileSync(join(dataDir, 'data', 'admin-token'), 'utf8').trim();
  handle.caCert = caCertOf(handle, options.extraArgs ?? []);
  return handle;
}

/**
 * The CA a started server's clients trust: `--tls-ca`'s file, else the local CA; null for plain HTTP or an own
 * certificate without --tls-ca.
 */
function caCertOf(handle: ServeHandle, extraArgs: readonly string[]): string | null {
  if (!handle.url.startsWith('https:')) return null;
  const flag = extraArgs.indexOf('--tls-ca');
  if (flag >= 0) return readFileSync(extraArgs[flag + 1]!, 'utf8');
  if (extraArgs.includes('--tls-cert')) return null;
  return readFileSync(join(handle.dataDir, 'data', 'tls', 'ca.crt'), 'utf8');
}

/** The answer of {@link serverFetch}: as much of a fetch Response as the tests read. */
export interface ServerResponse {
  readonly status: number;
  readonly headers: Readonly<Record<string, string | string[] | undefined>>;
  text(): Promise<string>;
  json(): Promise<unknown>;
}

/**
 * One request to the server at `path` (e.g. `/metrics`), over HTTPS trusting only `handle.caCert`
 * (host name checked), or plain HTTP for an http URL; reads the whole body.
 * @throws the socket or TLS error (with its `code`)
 */
export function serverFetch(
  handle: Pick<ServeHandle, 'url' | 'caCert'>,
  path: string,
  init: { method?: string; headers?: Record<string, string>; body?: string } = {},
): Promise<ServerResponse> {
  const url = new URL(`${handle.url}${path}`);
  const headers: Record<string, string> = {
    ...init.headers,
    ...(init.body === undefined ? {} : { 'content-length': String(Buffer.byteLength(init.body)) }),
  };
  return new Promise((resolve, reject) => {
    const onResponse = (res: IncomingMessage): void => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('error', reject);
      res.on('end', () => {
        const text = Buffer.concat(chunks).toString('utf8');
        resolve({
          status: res.statusCode ?? 0,
          headers: res.headers,
          text: () => Promise.resolve(text),
          json: () => Promise.resolve(JSON.parse(text) as unknown),
        });
      });
    };
    const options = { method: init.method ?? 'GET', headers };
    const req =
      url.protocol === 'https:'
        ? httpsRequest(url, { ...options, ca: handle.caCert ?? undefined }, onResponse)
        : httpRequest(url, options, onResponse);
    req.on('error', reject);
    req.end(init.body);
  });
}

/** Sends a signal to the server and waits for it to exit. */
export async function stopServe(handle: ServeHandle, signal: NodeJS.Signals = 'SIGTERM'): Promise<number | null> {
  if (handle.process.exitCode !== null || handle.process.signalCode !== null) return handle.process.exitCode;
  const exited = new Promise<number | null>((resolve) => handle.process.once('exit', (code) => resolve(code)));
  handle.process.kill(signal);
  return exited;
}

/** Calls the API; returns status and parsed JSON body. */
export async function api(
  handle: ServeHandle,
  method: string,
  path: string,
  body?: unknown,
  token = handle.adminToken,
): Promise<{ status: number; body: any }> {
  const response = await serverFetch(handle, path, {
    method,
    headers: {
      authorization: `Bearer ${token}`,
      ...(body === undefined ? {} : { 'content-type': 'application/json' }),
    },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  const text = await response.text();
  return { status: response.status, body: text ? JSON.parse(text) : null };
}

/** Runs the real CLI with the server's config home (so no flags are needed); killed after WAIT_MS. */
export function cli(
  handle: ServeHandle,
  args: string[],
  cwd = handle.dataDir,
): { code: number; stdout: string; stderr: string } {
  const result = spawnSync(process.execPath, [BIN, ...args], {
    cwd,
    env: {
      ...process.env,
      XDG_CONFIG_HOME: handle.configHome,
      GPUSHARE_URL: '',
      GPUSHARE_TOKEN: '',
      GPUSHARE_CA_FILE: '',
      GPUSHARE_CA_CERT: '',
    },
    encoding: 'utf8',
    timeout: WAIT_MS,
  });
  return { code: result.status ?? -1, stdout: result.stdout, stderr: result.stderr };
}

/**
 * The job id `gpushare submit` printed (its last line).
 * @throws Error with the run's exit code and output when it did not exit 0 without a message
 */
export function submittedId(result: { code: number; stdout: string; stderr: string }): number {
  if (result.code !== 0 || result.stderr !== '')
    throw new Error(`submit exited ${result.code}: ${result.stderr}${result.stdout}`);
  return Number(result.stdout.trim().split('\n').at(-1));
}

/** Polls a job until `predicate` holds (bounded by `timeoutMs`, default WAIT_MS: src/testing/deadlines.ts). */
export async function waitForJob(
  handle: ServeHandle,
  id: number,
  predicate: (job: any) => boolean,
  timeoutMs = WAIT_MS,
): Promise<any> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const { body } = await api(handle, 'GET', `/api/v1/jobs/${id}`);
    if (predicate(body)) return body;
    if (Date.now() > deadline)
      throw new Error(`job ${id} did not reach the expected state in ${timeoutMs} ms: ${JSON.stringify(body)}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

/**
 * Polls until `predicate` returns a value other than undefined (bounded by `timeoutMs`, default
 * WAIT_MS); `what` explains a timeout.
 */
export async function pollFor<T>(
  what: string,
  predicate: () => Promise<T | undefined> | T | undefined,
  timeoutMs = WAIT_MS,
): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await predicate();
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error(`${what}: not within ${timeoutMs} ms`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

/** Scheduling passes the server has run or skipped (nothing changed since the last) so far (`GET /api/v1/status`). */
export async function passCount(handle: ServeHandle): Promise<number> {
  const { scheduler } = (await api(handle, 'GET', '/api/v1/status')).body as {
    scheduler: { passes: number; passesSkipped: number };
  };
  return scheduler.passes + scheduler.passesSkipped;
}

/**
 * Waits until the server has had `count` more scheduling passes, run or skipped because nothing
 * changed (one per timer tick while jobs wait): what it would do about the jobs waiting now, it
 * has done.
 */
export async function waitForPasses(handle: ServeHandle, count: number): Promise<void> {
  const start = await passCount(handle);
  await pollFor(`${count} more scheduling passes`, async () =>
    (await passCount(handle)) >= start + count ? true : undefined,
  );
}

/**
 * Kills the process group of every job attempt whose pid file is in the server's data directory
 * (its job folders and the quarantined ones); a job already gone is fine.
 */
export function killRecordedJobs(handle: ServeHandle): void {
  const data = join(handle.dataDir, 'data');
  const quarantine = join(data, 'quarantine');
  const folders = [
    join(data, 'jobs'),
    ...(existsSync(quarantine) ? readdirSync(quarantine).map((time) => join(quarantine, time)) : []),
  ];
  for (const parent of folders.filter((f) => existsSync(f))) {
    for (const folder of readdirSync(parent, { withFileTypes: true }).filter((d) => d.isDirectory())) {
      for (const file of readdirSync(join(parent, folder.name)).filter((f) => f.endsWith('.pid'))) {
        try {
          const { jobPid } = JSON.parse(readFileSync(join(parent, folder.name, file), 'utf8')) as { jobPid: number };
          process.kill(-jobPid, 'SIGKILL');
        } catch {
          // already gone
        }
      }
    }
  }
}

/** Kills every job process group recorded under the data dir, then removes the directory. */
export async function cleanupServe(handle: ServeHandle): Promise<void> {
  await stopServe(handle, 'SIGKILL');
  killRecordedJobs(handle);
  // The supervisor outlives the server (its own session) and writes an outcome file when a job
  // dies: kill it too (its command line names its folder in the data dir), and wait until it is
  // gone, so nothing writes into the directory while it is removed.
  const supervisors = processesNaming(handle.dataDir);
  for (const pid of supervisors) {
    try {
      process.kill(pid, 'SIGKILL');
    } catch {
      // already gone
    }
  }
  await pollFor('the supervisors of the test server to exit', () => (supervisors.every(hasExited) ? true : undefined));
  await endJobCgroups(join(handle.dataDir, 'data'));
  rmSync(handle.dataDir, { recursive: true, force: true, maxRetries: 20, retryDelay: 100 });
}

/**
 * Kills what is left in the cgroups a server on `dataDir` (its `--data-dir`) made for its jobs, waits
 * for it to exit, then removes those cgroups: a job a supervisor started as it was killed has no
 * pid file yet, and a killed server does not remove its cgroup folder.
 */
export async function endJobCgroups(dataDir: string): Promise<void> {
  const dirs = jobCgroupDirs(dataDir);
  const leftover = [...new Set(dirs.flatMap(cgroupPids))];
  for (const pid of leftover) {
    try {
      process.kill(pid, 'SIGKILL');
    } catch {
      // already gone
    }
  }
  await pollFor("the processes left in a test server's job cgroups to exit", () =>
    leftover.every(hasExited) ? true : undefined,
  );
  removeJobCgroups(dirs);
}

/** True when `pid` has exited, reaped or not. */
export function hasExited(pid: number): boolean {
  const stat = readProcStat(pid);
  return stat === null || isExitedState(stat.state);
}

/**
 * The cgroup folders a server on `dataDir` (its `--data-dir`) made for its jobs, in each hierarchy:
 * the job cgroups, then their parent (src/adapters/process/cgroup-layout.ts names it).
 */
export function jobCgroupDirs(dataDir: string): string[] {
  return cgroupMounts(detectCgroupLayout())
    .map((mount) => join(mount, jobCgroupParent(dataDir)))
    .filter((dir) => existsSync(dir))
    .flatMap((dir) => [
      ...readdirSync(dir, { withFileTypes: true })
        .filter((d) => d.isDirectory())
        .map((d) => join(dir, d.name)),
      dir,
    ]);
}

/** The pids in cgroup `dir` (none when it is gone or unreadable). */
function cgroupPids(dir: string): number[] {
  try {
    return readFileSync(join(dir, 'cgroup.procs'), 'utf8').split('\n').filter(Boolean).map(Number);
  } catch {
    return [];
  }
}

/** Removes the (empty) cgroup folders `dirs` (children before parents); one still busy is left. */
function removeJobCgroups(dirs: readonly string[]): void {
  for (const dir of dirs) {
    try {
      rmdirSync(dir);
    } catch {
      // still busy or already gone
    }
  }
}

/**
 * The folder of job `id` in the server's data dir (`<data>/jobs/<id>-<16 hex>`, or `<id>` for a job
 * of an older release). @throws Error when there is none, or more than one
 */
export function jobFolder(handle: Pick<ServeHandle, 'dataDir'>, id: number): string {
  const jobs = join(handle.dataDir, 'data', 'jobs');
  const found = existsSync(jobs)
    ? readdirSync(jobs).filter((name) => new RegExp(`^${id}(-[0-9a-f]{16})?$`).test(name))
    : [];
  if (found.length !== 1) throw new Error(`job ${id}: expected one folder in ${jobs}, found ${JSON.stringify(found)}`);
  return join(jobs, found[0]!);
}

/**
 * A shell command that waits until the file `path` exists: a job runs it to keep running until the
 * test has seen what it checks, then creates the file (a gate, never a fixed sleep).
 */
export function untilFileExists(path: string): string {
  return `until [ -e '${path}' ]; do sleep 0.05; done`;
}

/** Submit body for a shell script job. */
export function shellJob(
  script: string,
  gpu: Record<string, unknown>,
  extra: Record<string, unknown> = {},
): Record<string, unknown> {
  return { command: ['sh', '-c', script], workingDirectory: '/tmp', gpu, ...extra };
}

/**
 * Submits three CPU-bound `timeslice` jobs of 0.6, 0.3 and 0.1 GPU to a server with one GPU and
 * waits until all three run on GPU 0. Returns their ids and process groups (from the pid files).
 */
export async function startTimesliceTrio(handle: ServeHandle): Promise<{ ids: number[]; pgids: number[] }> {
  const ids: number[] = [];
  for (const gpuMilli of [600, 300, 100]) {
    const { status, body } = await api(
      handle,
      'POST',
      '/api/v1/jobs',
      shellJob('while :; do :; done', { gpuMilli, mode: 'timeslice' }),
    );
    if (status !== 201)
      throw new Error(`submit of a ${gpuMilli} milli timeslice job: HTTP ${status} ${JSON.stringify(body)}`);
    ids.push(body.id);
  }
  const jobs = await Promise.all(ids.map((id) => waitForJob(handle, id, (j) => j.state === 'running')));
  const placed = jobs.map((j) => `${j.placement.mode}@${j.placement.gpus[0].index}`);
  if (placed.some((p) => p !== 'timeslice@0'))
    throw new Error(`expected three timeslice jobs on GPU 0, got ${placed.join(', ')}`);
  const pgids = ids.map(
    (id) =>
      (JSON.parse(readFileSync(join(jobFolder(handle, id), 'attempt-1.pid'), 'utf8')) as { jobPid: number }).jobPid,
  );
  return { ids, pgids };
}
