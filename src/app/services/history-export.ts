/**
 * `GET /api/v1/history`: the jobs a server ran as a trace in the simulator's pod-list format
 * (contract/history-csv.ts, docs/server.md "History as a trace"). A job is in it once it has ended
 * (succeeded, failed or cancelled) after at least one attempt started; its run time is that of all
 * its attempts. The store is read a page of jobs at a time and the CSV handed out in chunks, so an
 * export of any size holds one page in memory.
 */
import { TERMINAL_STATES } from '../../core/index.js';
import { historyCsvHeader, historyCsvLine, type HistoryRow } from '../../contract/history.js';
import { authorize } from '../auth/authorize.js';
import type { Principal } from '../auth/tokens.js';
import type { AttemptRecord, JobRecord, JobUsagePeak, StateStore } from '../ports/state-store.js';

/** Which jobs an export holds: those submitted at or after `sinceMs` and before `untilMs` (ms since the epoch). */
export interface HistoryQuery {
  readonly sinceMs?: number;
  readonly untilMs?: number;
}

/** Jobs read from the store at a time. */
export const HISTORY_PAGE_JOBS = 500;

/**
 * The export's row of an ended job, or null when none of its attempts started. Run time: each
 * attempt from its start to its end (the job's end for an attempt without one).
 */
export function historyRowOf(
  job: JobRecord,
  attempts: readonly AttemptRecord[],
  peak: JobUsagePeak | null,
): HistoryRow | null {
  const first = attempts[0];
  if (first === undefined) return null;
  const runMs = attempts.reduce(
    (sum, a) => sum + Math.max(0, (a.endedAtMs ?? job.endedAtMs ?? a.startedAtMs) - a.startedAtMs),
    0,
  );
  return {
    name: job.name,
    id: job.id,
    cpuMilli: job.cpuMilli,
    hostMemoryMiB: job.hostMemoryMiB,
    gpuCount: job.gpu.gpuCount,
    gpuMilli: job.gpu.gpuMilli,
    allowedGpuModels: job.gpu.allowedGpuModels ?? [],
    submittedAtMs: job.submittedAtMs,
    firstStartedAtMs: first.startedAtMs,
    runMs,
    tenant: job.tenant,
    priority: job.priority,
    sharingMode: job.placement?.mode ?? '',
    gpuMemoryMiB: job.gpu.gpuMemoryMiB,
    measuredGpuMemoryMiB: peak?.gpuMemoryMiB ?? null,
    measuredGpuUtilPct: peak?.gpuUtilizationPct ?? null,
  };
}

/**
 * The history export of the jobs `principal` may read (an admin: every tenant's; anyone else: its
 * own tenant's), as CSV chunks: the header, then the rows of one page of jobs per chunk, by id.
 * @throws GpushareError 403 at once (not when read) for a principal that may not read jobs
 */
export function historyExport(store: StateStore, principal: Principal, query: HistoryQuery): Iterable<string> {
  authorize(principal, 'job.read');
  const tenant = principal.role === 'admin' ? undefined : (principal.tenant ?? undefined);
  return historyChunks(store, tenant, query);
}

function* historyChunks(store: StateStore, tenant: string | undefined, query: HistoryQuery): Generator<string> {
  yield historyCsvHeader();
  let afterId = 0;
  for (;;) {
    const page = store.listJobs({
      states: TERMINAL_STATES,
      afterId,
      limit: HISTORY_PAGE_JOBS,
      ...(tenant === undefined ? {} : { tenant }),
      ...(query.sinceMs === undefined ? {} : { submittedSinceMs: query.sinceMs }),
    });
    let chunk = '';
    for (const job of page) {
      if (query.untilMs !== undefined && job.submittedAtMs >= query.untilMs) continue;
      const row = historyRowOf(job, store.listAttempts(job.id), store.getUsagePeak(job.id));
      if (row !== null) chunk += historyCsvLine(row);
    }
    if (chunk !== '') yield chunk;
    if (page.length < HISTORY_PAGE_JOBS) return;
    afterId = page.at(-1)!.id;
  }
}
