/**
 * The bulk cancel benchmark (`npm run bench -- --only bulk`): a real `gpushare serve` (child
 * process, HTTPS, one simulated A100, its GPU cordoned so that nothing is placed) holds 2,000
 * pending jobs; ONE `POST /api/v1/jobs/cancel` (`state: pending`, `name: bulk-*`) is timed end to
 * end against baselines measured in the same run: `GET /healthz` and listing the 2,000 jobs
 * (`GET /api/v1/jobs`), each the median of 5, and the mean of 50 single cancels (`POST
 * /jobs/:id/cancel`, what cancelling them took before, one call per job). Target: the bulk call
 * under 1 s. Afterwards it checks from the API that every one of the 2,000 is `cancelled` with the
 * same reason, and that the audit log holds exactly one `job.cancel-bulk` entry, whose outcome
 * reads `cancelled 2000 (<first>-<last>); stopping 0; skipped 0`. Prints PASS or FAIL.
 */
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { median } from '../lib/statistics.js';
import { BenchCleanup, reapJobs } from './bench-cleanup.js';
import { num, times } from './format.js';
import { closedLoop, KeepAliveClient } from './http-load.js';
import { DEFAULT_SERVER_BENCH_OPTIONS } from './server-bench-options.js';
import { startServerProcess, stopServerProcess } from './server-process.js';

const JOBS = 2000;
const SINGLE_CANCELS = 50;
const BASELINE_RUNS = 5;
const TARGET_MS = 1000;
const REASON = 'bench';

/** Results of the bulk cancel benchmark. */
export interface BulkCancelBenchResult {
  readonly jobs: number;
  /** The one bulk call, end to end (request sent to answer read), ms. */
  readonly bulkCancelMs: number;
  readonly medianHealthzMs: number;
  /** Listing the 2,000 pending jobs, ms (median). */
  readonly medianListJobsMs: number;
  /** One `POST /jobs/:id/cancel`, ms (mean of 50). */
  readonly meanSingleCancelMs: number;
  /** 2,000 × that mean: cancelling the same jobs one call each. */
  readonly projectedSingleCancelsMs: number;
  readonly bulkToListRatio: number;
  readonly targetMs: number;
  /** What the checks afterwards found. */
  readonly verified: {
    readonly cancelledWithReason: number;
    readonly auditEntries: number;
    readonly auditMessage: string | null;
    readonly expectedMessage: string;
  };
  readonly pass: boolean;
}

/** Wall time of `fn`, ms. */
async function timed<T>(fn: () => Promise<T>): Promise<{ ms: number; value: T }> {
  const started = performance.now();
  const value = await fn();
  return { ms: performance.now() - started, value };
}

/** Runs the benchmark; progress goes to `progress`. */
export async function runBulkCancelBench(
  progress: (message: string) => void,
): Promise<{ lines: string[]; results: BulkCancelBenchResult }> {
  const dir = mkdtempSync(join(tmpdir(), 'gpushare-bulk-bench-'));
  const workDir = join(dir, 'work');
  mkdirSync(workDir);
  const cleanup = new BenchCleanup(dir);
  const stderrTail = { text: '' };
  let client: KeepAliveClient | null = null;
  try {
    const { port, caCert } = await startServerProcess(
      cleanup,
      { ...DEFAULT_SERVER_BENCH_OPTIONS, simulateGpus: '1xA100-80GB' },
      stderrTail,
    );
    const token = readFileSync(join(cleanup.dataDir, 'admin-token'), 'utf8').trim();
    const c = new KeepAliveClient(port, token, 8, caCert);
    client = c;
    const ok = async (method: string, path: string, body?: unknown): Promise<unknown> => {
      const answer = await c.call(method, path, body === undefined ? undefined : JSON.stringify(body));
      if (answer.status >= 300) throw new Error(`${method} ${path}: ${answer.status} ${answer.body.slice(0, 500)}`);
      return JSON.parse(answer.body) as unknown;
    };
    await ok('POST', '/api/v1/gpus/0/cordon');
    const submit = (name: string) =>
      JSON.stringify({ command: ['sleep', '100000'], workingDirectory: workDir, name, gpu: { gpuMilli: 100 } });
    progress(`bulk: submitting ${JOBS} + ${SINGLE_CANCELS} jobs to a server whose GPU is cordoned…`);
    const submitted = await closedLoop(JOBS + SINGLE_CANCELS, 8, 300, (i) =>
      c.call('POST', '/api/v1/jobs', submit(i < JOBS ? `bulk-${i}` : `single-${i}`)),
    );
    if (submitted.failed > 0) throw new Error(`bulk: ${submitted.failed} submits failed: ${submitted.firstFailure}`);
    const pending = ((await ok('GET', '/api/v1/jobs?state=pending')) as { jobs: { id: number; name: string }[] }).jobs;
    const bulkIds = pending
      .filter((j) => j.name.startsWith('bulk-'))
      .map((j) => j.id)
      .sort((a, b) => a - b);
    const singleIds = pending.filter((j) => j.name.startsWith('single-')).map((j) => j.id);
    if (bulkIds.length !== JOBS || singleIds.length !== SINGLE_CANCELS)
      throw new Error(
        `bulk: expected ${JOBS} + ${SINGLE_CANCELS} pending jobs, found ${bulkIds.length} + ${singleIds.length}`,
      );

    // Baselines of the same run, warm connection.
    const healthzMs: number[] = [];
    const listMs: number[] = [];
    for (let run = 0; run < BASELINE_RUNS; run++) {
      healthzMs.push((await timed(() => ok('GET', '/healthz'))).ms);
      listMs.push((await timed(() => ok('GET', '/api/v1/jobs?state=pending'))).ms);
    }
    const single = await timed(async () => {
      for (const id of singleIds) await ok('POST', `/api/v1/jobs/${id}/cancel`);
    });
    const meanSingleCancelMs = single.ms / SINGLE_CANCELS;
    progress(
      `bulk: /healthz ${num(median(healthzMs), 1)} ms, list ${JOBS} jobs ${num(median(listMs), 1)} ms, ` +
        `one single cancel ${num(meanSingleCancelMs, 2)} ms`,
    );

    const bulk = await timed(() =>
      ok('POST', '/api/v1/jobs/cancel', { state: ['pending'], name: 'bulk-*', reason: REASON }),
    );
    const answer = bulk.value as { cancelled: number[]; stopping: number[]; skipped: unknown[]; reason: string };
    progress(`bulk: one bulk cancel of ${answer.cancelled.length} jobs in ${num(bulk.ms, 1)} ms`);

    // Checks from the API: every job cancelled with the same reason; exactly one audit entry.
    const all = (
      (await ok('GET', '/api/v1/jobs?all=true')) as { jobs: { id: number; state: string; reason: string | null }[] }
    ).jobs;
    const wanted = new Set(bulkIds);
    const reason = `cancelled by an admin: ${REASON}`;
    const cancelledWithReason = all.filter(
      (j) => wanted.has(j.id) && j.state === 'cancelled' && j.reason === reason,
    ).length;
    const entries = (
      (await ok('GET', '/api/v1/audit?limit=10000')) as {
        entries: { action: string; outcome: { message: string | null } }[];
      }
    ).entries.filter((e) => e.action === 'job.cancel-bulk');
    const expectedMessage = `cancelled ${JOBS} (${bulkIds[0]}-${bulkIds[JOBS - 1]}); stopping 0; skipped 0`;
    const verified = {
      cancelledWithReason,
      auditEntries: entries.length,
      auditMessage: entries[0]?.outcome.message ?? null,
      expectedMessage,
    };
    const pass =
      bulk.ms < TARGET_MS &&
      answer.cancelled.length === JOBS &&
      answer.skipped.length === 0 &&
      answer.reason === reason &&
      cancelledWithReason === JOBS &&
      entries.length === 1 &&
      verified.auditMessage === expectedMessage;
    const results: BulkCancelBenchResult = {
      jobs: JOBS,
      bulkCancelMs: bulk.ms,
      medianHealthzMs: median(healthzMs),
      medianListJobsMs: median(listMs),
      meanSingleCancelMs,
      projectedSingleCancelsMs: meanSingleCancelMs * JOBS,
      bulkToListRatio: bulk.ms / median(listMs),
      targetMs: TARGET_MS,
      verified,
      pass,
    };
    return { lines: formatBulkCancelBench(results), results };
  } catch (error) {
    if (stderrTail.text) progress(`server stderr (tail):\n${stderrTail.text.slice(-2000)}`);
    throw error;
  } finally {
    client?.close();
    if (cleanup.server) await stopServerProcess(cleanup.server);
    if (existsSync(dir)) {
      await reapJobs(cleanup);
      rmSync(dir, { recursive: true, force: true });
    }
  }
}

/** The report lines. */
function formatBulkCancelBench(r: BulkCancelBenchResult): string[] {
  return [
    `Bulk cancel (gpushare serve, ${r.jobs.toLocaleString('en-US')} pending jobs, one POST /api/v1/jobs/cancel)`,
    `  bulk cancel: ${num(r.bulkCancelMs, 1)} ms end to end; target < ${r.targetMs} ms: ` +
      `${r.bulkCancelMs < r.targetMs ? 'met' : 'MISSED'}`,
    `  baselines (same run): GET /healthz ${num(r.medianHealthzMs, 2)} ms; listing the ${r.jobs} jobs ` +
      `${num(r.medianListJobsMs, 1)} ms (bulk cancel = ${times(r.bulkToListRatio)} that);` +
      (` one single cancel ${num(r.meanSingleCancelMs, 2)} ms, so ${r.jobs} single cancels ≈ ` +
        `${num(r.projectedSingleCancelsMs / 1000, 1)} s (` +
        `${times(r.projectedSingleCancelsMs / r.bulkCancelMs, 0)} the bulk call)`),
    `  afterwards: ${r.verified.cancelledWithReason}/${r.jobs} jobs cancelled with the same reason; ` +
      `${r.verified.auditEntries} job.cancel-bulk audit entry: ${JSON.stringify(r.verified.auditMessage)}`,
    `  ${r.pass ? 'PASS' : 'FAIL'}`,
  ];
}
