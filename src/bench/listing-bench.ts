/**
 * `npm run bench -- --only listing`: listing 2,000 jobs. Starts a real `gpushare serve` (child
 * process, simulated GPUs, HTTPS with its local CA), submits 2,000 jobs of one whole GPU each (4
 * run, the rest stay pending), then measures in rounds, one of each per round so that a noisy
 * neighbour slows them alike:
 *  (a) `gpushare jobs` as a fresh child process, spawn to exit, every job printed;
 *  (b) the same listing as one `GET /api/v1/jobs` from this process on a new connection (TLS
 *      handshake included), request to the body's end;
 *  (c) the same through a fresh `curl` process, when curl is installed;
 *  (d) the time from spawning `gpushare jobs` until its first 500 jobs are printed;
 *  (e) the same GET from a fresh `node` process of a dozen lines (node:https): what any client
 *      written for Node pays before its first byte of work;
 *  (f) the CLI's own request, the job table's rows (`?view=table`), as (b);
 *  and `node -e 0` for scale. Every fresh process is spawned alike (async, output piped and read).
 * Reports median and worst, the ratios a/b, a/c and a/e, and PASS/FAIL of (a) against 0.5 s, of
 * a/b against 3×, and of the CLI's own cost, (a) minus `node -e 0`, against 3 × (b) (issue 21: what
 * the CLI adds to a bare Node start is at most three GETs), all from the medians of the same rounds.
 */
import { spawn, spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { request } from 'node:https';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { median } from '../lib/statistics.js';
import { formatTable } from '../lib/text-table.js';
import { BenchCleanup, reapJobs } from './bench-cleanup.js';
import { num, times } from './format.js';
import { closedLoop, KeepAliveClient } from './http-load.js';
import { startServerProcess, stopServerProcess } from './server-process.js';

const BIN = fileURLToPath(new URL('../../bin/gpushare', import.meta.url));
const JOBS = 2000;
const GPUS = '4xA100-80GB';
/** (d) is the time until this many jobs are printed (the CLI's page before it asked once for all). */
const FIRST_PAGE_JOBS = 500;
const TARGET_WALL_MS = 500;
const TARGET_RATIO = 3;
/** (a) minus `node -e 0` may be at most this many times (b). */
const TARGET_ABOVE_NODE_RATIO = 3;

/** Median and worst of one measurement, ms. */
export interface Spread {
  readonly runsMs: readonly number[];
  readonly medianMs: number;
  readonly worstMs: number;
}

/** What the listing benchmark reports. */
export interface ListingBenchResult {
  readonly jobs: number;
  readonly rounds: number;
  readonly bytes: number;
  readonly cli: Spread;
  readonly api: Spread;
  /** The CLI's own request, `GET /api/v1/jobs?view=table` (the table's rows), new connection. */
  readonly apiTable: Spread;
  /** Bytes of its body. */
  readonly tableBytes: number;
  readonly curl: Spread | null;
  /**
   * The same GET from a fresh `node` process (a dozen lines of node:https): the floor of any client written for Node.
   */
  readonly nodeClient: Spread;
  readonly cliFirstPage: Spread;
  readonly nodeStart: Spread;
  readonly ratioCliToApi: number;
  readonly ratioCliToCurl: number | null;
  readonly ratioCliToNodeClient: number;
  /** Median of (a) minus the median of `node -e 0`: what the CLI adds to a bare Node start, ms. */
  readonly cliAboveNodeMs: number;
  readonly targets: {
    readonly cliWallMs: { readonly target: number; readonly measured: number; readonly pass: boolean };
    readonly cliToApi: { readonly target: number; readonly measured: number; readonly pass: boolean };
    /** (a) − node -e 0 ÷ (b): measured, against `target` (3). */
    readonly cliAboveNodeToApi: { readonly target: number; readonly measured: number; readonly pass: boolean };
  };
}

const spread = (runs: readonly number[]): Spread => ({
  runsMs: runs,
  medianMs: median(runs),
  worstMs: Math.max(...runs),
});

/**
 * `gpushare jobs` once: wall ms to exit and to the first page on stdout. @throws Error unless it exits 0 having printed
 * every job
 */
function timeCli(env: NodeJS.ProcessEnv): Promise<{ wallMs: number; firstPageMs: number }> {
  return new Promise((resolve, reject) => {
    const started = performance.now();
    let firstPageMs = Number.NaN;
    let lines = 0;
    let stderr = '';
    const child = spawn(process.execPath, [BIN, 'jobs'], { env, stdio: ['ignore', 'pipe', 'pipe'] });
    child.stdout.on('data', (chunk: Buffer) => {
      // indexOf, not a loop over each byte: the child waits while this process drains the pipe.
      for (let at = chunk.indexOf(10); at !== -1; at = chunk.indexOf(10, at + 1)) lines += 1;
      // The header and the first page's rows.
      if (Number.isNaN(firstPageMs) && lines >= FIRST_PAGE_JOBS + 1) firstPageMs = performance.now() - started;
    });
    child.stderr.on('data', (chunk: Buffer) => {
      stderr += chunk.toString();
    });
    child.once('error', reject);
    child.once('close', (code) => {
      const wallMs = performance.now() - started;
      if (code !== 0 || lines !== JOBS + 1)
        reject(new Error(`gpushare jobs exited ${code} after ${lines} lines: ${stderr.slice(-500)}`));
      else resolve({ wallMs, firstPageMs });
    });
  });
}

/**
 * One `GET /api/v1/jobs` (`query`, e.g. `?view=table`) on a new connection: ms to the body's end,
 * and the body's bytes.
 */
function timeApi(port: number, token: string, ca: string, query = ''): Promise<{ ms: number; bytes: number }> {
  return new Promise((resolve, reject) => {
    const started = performance.now();
    const req = request(
      {
        host: '127.0.0.1',
        port,
        path: `/api/v1/jobs${query}`,
        ca,
        agent: false,
        headers: { authorization: `Bearer ${token}` },
      },
      (res) => {
        let bytes = 0;
        res.on('data', (chunk: Buffer) => {
          bytes += chunk.length;
        });
        res.on('end', () =>
          res.statusCode === 200
            ? resolve({ ms: performance.now() - started, bytes })
            : reject(new Error(`GET /api/v1/jobs answered ${res.statusCode}`)),
        );
        res.on('error', reject);
      },
    );
    req.on('error', reject);
    req.end();
  });
}

/**
 * Wall ms of a command run to its exit, spawned as (a) is (async spawn, stdout and stderr piped and
 * read), so that every fresh process is timed alike. @throws Error when it exits non-zero
 */
function timeCommand(argv: readonly string[], env: NodeJS.ProcessEnv = process.env): Promise<number> {
  return new Promise((resolve, reject) => {
    const started = performance.now();
    const child = spawn(argv[0]!, argv.slice(1), { env, stdio: ['ignore', 'pipe', 'pipe'] });
    child.stdout.resume();
    child.stderr.resume();
    child.once('error', reject);
    child.once('close', (code) => {
      const ms = performance.now() - started;
      if (code === 0) resolve(ms);
      else reject(new Error(`${argv.join(' ')} exited ${code}`));
    });
  });
}

/**
 * A one-request Node client: GET argv[2] trusting the CA file argv[3], token from GPUSHARE_BENCH_TOKEN; exits 0 on 200.
 */
const NODE_CLIENT = `import { request } from 'node:https';
import { readFileSync } from 'node:fs';
const headers = { authorization: 'Bearer ' + process.env.GPUSHARE_BENCH_TOKEN };
const req = request(process.argv[2], { ca: readFileSync(process.argv[3]), headers }, (res) => {
  res.resume();
  res.on('end', () => process.exit(res.statusCode === 200 ? 0 : 1));
});
req.on('error', () => process.exit(2));
req.end();
`;

/** True when `curl --version` runs. */
function hasCurl(): boolean {
  return spawnSync('curl', ['--version'], { stdio: 'ignore' }).status === 0;
}

/** Runs the listing benchmark with `rounds` rounds (one warm-up round first, not counted). */
export async function runListingBench(
  rounds: number,
  progress: (message: string) => void,
): Promise<ListingBenchResult> {
  const dir = mkdtempSync(join(tmpdir(), 'gpushare-listing-bench-'));
  const workDir = join(dir, 'work');
  mkdirSync(workDir);
  const cleanup = new BenchCleanup(dir);
  let client: KeepAliveClient | null = null;
  try {
    const { port, caCert } = await startServerProcess(
      cleanup,
      { serverNodeArgs: [], simulateGpus: GPUS },
      { text: '' },
    );
    if (caCert === null) throw new Error('the listing benchmark expects an HTTPS server');
    const token = readFileSync(join(cleanup.dataDir, 'admin-token'), 'utf8').trim();
    client = new KeepAliveClient(port, token, 8, caCert);
    const c = client;
    const body = (i: number): string =>
      JSON.stringify({
        command: ['sleep', '100000'],
        workingDirectory: workDir,
        name: `bench-${i}`,
        gpu: { gpuCount: 1, gpuMilli: 1000 },
      });
    const submit = await closedLoop(JOBS, 8, 300, (i) => c.call('POST', '/api/v1/jobs', body(i)));
    if (submit.ok !== JOBS)
      throw new Error(`submitted ${submit.ok} of ${JOBS} jobs: ${submit.firstFailure ?? 'time bound reached'}`);
    progress(`listing: ${JOBS} jobs submitted in ${num(submit.wallSeconds, 1)} s`);
    c.close();
    client = null;
    // The CLI finds the server through the config file the server wrote under this XDG_CONFIG_HOME.
    const env = { ...process.env, XDG_CONFIG_HOME: join(dir, 'config') };
    const caFile = join(dir, 'ca.crt');
    const headerFile = join(dir, 'auth-header');
    writeFileSync(caFile, caCert);
    writeFileSync(headerFile, `Authorization: Bearer ${token}\n`, { mode: 0o600 });
    const curl = hasCurl()
      ? [
          'curl',
          '-sf',
          '--cacert',
          caFile,
          '-H',
          `@${headerFile}`,
          '-o',
          '/dev/null',
          `https://127.0.0.1:${port}/api/v1/jobs`,
        ]
      : null;
    const nodeClientFile = join(dir, 'get.mjs');
    writeFileSync(nodeClientFile, NODE_CLIENT);
    const nodeClient = [process.execPath, nodeClientFile, `https://127.0.0.1:${port}/api/v1/jobs`, caFile];
    const runs = {
      cli: [] as number[],
      firstPage: [] as number[],
      api: [] as number[],
      apiTable: [] as number[],
      curl: [] as number[],
      node: [] as number[],
      nodeClient: [] as number[],
    };
    let bytes = 0;
    let tableBytes = 0;
    for (let round = 0; round <= rounds; round++) {
      const cli = await timeCli(env);
      const api = await timeApi(port, token, caCert);
      const apiTable = await timeApi(port, token, caCert, '?view=table');
      const curlMs = curl === null ? null : await timeCommand(curl);
      const nodeMs = await timeCommand([process.execPath, '-e', '0']);
      const nodeClientMs = await timeCommand(nodeClient, { ...process.env, GPUSHARE_BENCH_TOKEN: token });
      if (round === 0) continue;
      runs.nodeClient.push(nodeClientMs);
      runs.cli.push(cli.wallMs);
      runs.firstPage.push(cli.firstPageMs);
      runs.api.push(api.ms);
      runs.apiTable.push(apiTable.ms);
      tableBytes = apiTable.bytes;
      if (curlMs !== null) runs.curl.push(curlMs);
      runs.node.push(nodeMs);
      bytes = api.bytes;
      progress(
        `listing: round ${round}/${rounds}: gpushare jobs ${num(cli.wallMs, 1)} ms (first page ` +
          `${num(cli.firstPageMs, 1)} ms), GET ${num(api.ms, 1)} ms` +
          `${curlMs === null ? '' : `, curl ${num(curlMs, 1)} ms`}`,
      );
    }
    const cli = spread(runs.cli);
    const api = spread(runs.api);
    const curlSpread = curl === null ? null : spread(runs.curl);
    const ratioCliToApi = cli.medianMs / api.medianMs;
    const nodeClientSpread = spread(runs.nodeClient);
    const nodeStart = spread(runs.node);
    const cliAboveNodeMs = cli.medianMs - nodeStart.medianMs;
    const aboveNodeToApi = cliAboveNodeMs / api.medianMs;
    return {
      jobs: JOBS,
      rounds,
      bytes,
      cli,
      api,
      apiTable: spread(runs.apiTable),
      tableBytes,
      curl: curlSpread,
      nodeClient: nodeClientSpread,
      ratioCliToNodeClient: cli.medianMs / nodeClientSpread.medianMs,
      cliFirstPage: spread(runs.firstPage),
      nodeStart,
      ratioCliToApi,
      cliAboveNodeMs,
      ratioCliToCurl: curlSpread === null ? null : cli.medianMs / curlSpread.medianMs,
      targets: {
        cliWallMs: { target: TARGET_WALL_MS, measured: cli.medianMs, pass: cli.medianMs <= TARGET_WALL_MS },
        cliToApi: { target: TARGET_RATIO, measured: ratioCliToApi, pass: ratioCliToApi <= TARGET_RATIO },
        cliAboveNodeToApi: {
          target: TARGET_ABOVE_NODE_RATIO,
          measured: aboveNodeToApi,
          pass: aboveNodeToApi <= TARGET_ABOVE_NODE_RATIO,
        },
      },
    };
  } finally {
    client?.close();
    if (cleanup.server) await stopServerProcess(cleanup.server);
    await reapJobs(cleanup);
    rmSync(dir, { recursive: true, force: true });
  }
}

/** Report lines of the listing benchmark. */
export function formatListingBench(result: ListingBenchResult, title: string): string[] {
  const row = (what: string, s: Spread | null): string[] =>
    s === null ? [what, '-', '-'] : [what, num(s.medianMs, 1), num(s.worstMs, 1)];
  const verdict = (pass: boolean): string => (pass ? 'PASS' : 'FAIL');
  const above = result.targets.cliAboveNodeToApi;
  return [
    `${title}: ${result.jobs} jobs (${num(result.bytes / 1024, 0)} KiB as one GET), ${result.rounds} rounds, wall time`,
    formatTable(
      [
        ['measurement', 'median (ms)', 'worst (ms)'],
        row('(a) gpushare jobs (fresh process, every job printed)', result.cli),
        row('(b) GET /api/v1/jobs (new connection)', result.api),
        row(
          `(f) GET /api/v1/jobs?view=table, the CLI's request (${num(result.tableBytes / 1024, 0)} KiB)`,
          result.apiTable,
        ),
        row('(c) curl GET /api/v1/jobs (fresh process)', result.curl),
        row(`(d) gpushare jobs: first ${FIRST_PAGE_JOBS} jobs printed`, result.cliFirstPage),
        row('(e) the same GET from a fresh node process (node:https)', result.nodeClient),
        row('node -e 0', result.nodeStart),
      ],
      { right: [false, true, true] },
    ),
    `a/b ${times(result.ratioCliToApi)}` +
      `${result.ratioCliToCurl === null ? '' : `, a/c ${times(result.ratioCliToCurl)}`}, a/e ` +
      `${times(result.ratioCliToNodeClient)}`,
    `${verdict(result.targets.cliWallMs.pass)} gpushare jobs within ${result.targets.cliWallMs.target} ms ` +
      `(median ${num(result.cli.medianMs, 1)} ms)`,
    `${verdict(result.targets.cliToApi.pass)} gpushare jobs within ${result.targets.cliToApi.target}× GET ` +
      `/api/v1/jobs (${times(result.ratioCliToApi)})`,
    `${verdict(above.pass)} gpushare jobs above node -e 0 within ${above.target}× GET /api/v1/jobs: ` +
      `${num(result.cliAboveNodeMs, 1)} ms = ${times(above.measured)} (${num(result.api.medianMs, 1)} ms)`,
  ];
}
