/**
 * The audit log benchmark (`npm run bench -- --only audit`): fills a SQLite store in a temporary
 * data directory with 100,000 audit entries (one transaction each, as the server appends them,
 * with the head journal), then times `gpushare audit verify`'s work (verifyDataDirAudit: open the
 * store read-only, read the journal, recompute the chain) against a baseline measured in the same
 * run: reading the same 100,000 rows without hashing. Target: verify under 2 s. Each figure is the
 * median of 3 runs.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { NewAuditEntry } from '../app/ports/audit-log.js';
import { openAuditHeadJournal } from '../adapters/store/audit-head-journal.js';
import { createSqliteAuditLog, readAuditRows } from '../adapters/store/sqlite-audit-log.js';
import { openSqliteStore } from '../adapters/store/sqlite-store.js';
import { verifyDataDirAudit } from '../main/audit-verify.js';
import { AUDIT_HEAD_FILE } from '../main/server-audit.js';
import { median } from '../lib/statistics.js';
import { num, times } from './format.js';

const ENTRIES = 100_000;
const RUNS = 3;
const TARGET_MS = 2000;

/** Results of the audit benchmark. */
export interface AuditBenchResult {
  readonly entries: number;
  /** Appends per second while filling (one transaction each, journal included). */
  readonly appendsPerSecond: number;
  readonly verifyMs: readonly number[];
  readonly medianVerifyMs: number;
  /** CPU time of each verify (user + system), ms. */
  readonly verifyCpuMs: readonly number[];
  readonly medianVerifyCpuMs: number;
  /** Reading the rows without hashing, ms. */
  readonly readRowsMs: readonly number[];
  readonly medianReadRowsMs: number;
  /** Median verify ÷ median read. */
  readonly ratioToRead: number;
  readonly targetMs: number;
}

/** An entry shaped like a recorded submit. */
const entryOf = (i: number): NewAuditEntry => ({
  atMs: 1_700_000_000_000 + i * 10,
  actor: `tenant-admin token ${i % 50} of team-${i % 7}`,
  role: 'tenant-admin',
  tenant: `team-${i % 7}`,
  action: 'job.submit',
  target: `job ${i}`,
  summary: {
    method: 'POST',
    route: '/api/v1/jobs',
    body: {
      command: ['python', 'train.py', '--epochs', String(i % 100)],
      environment: ['WANDB_API_KEY', 'HF_HOME'],
      gpu: { gpuMilli: 500, gpuMemoryMiB: 20480 },
      priority: 'normal',
    },
  },
  outcome: { result: 'ok', httpStatus: 201, message: null },
});

const timed = (fn: () => unknown): number => timedCpu(fn).wallMs;

/**
 * Wall and CPU time (user + system of this process) of `fn`, ms: on a loaded machine the CPU time says what the work
 * costs.
 */
function timedCpu(fn: () => unknown): { wallMs: number; cpuMs: number } {
  const cpu = process.cpuUsage();
  const started = performance.now();
  fn();
  const used = process.cpuUsage(cpu);
  return { wallMs: performance.now() - started, cpuMs: (used.user + used.system) / 1000 };
}

/** Runs the benchmark; progress goes to `progress`. */
export function runAuditBench(progress: (message: string) => void): { lines: string[]; results: AuditBenchResult } {
  const dir = mkdtempSync(join(tmpdir(), 'gpushare-audit-bench-'));
  try {
    const store = openSqliteStore(join(dir, 'gpushare.db'));
    const journal = openAuditHeadJournal(join(dir, AUDIT_HEAD_FILE));
    const log = createSqliteAuditLog(store.database, { onAppend: (e) => journal.record(e.seq, e.hash) });
    progress(`audit: appending ${ENTRIES.toLocaleString('en-US')} entries…`);
    const fillMs = timed(() => {
      for (let i = 1; i <= ENTRIES; i++) log.append(entryOf(i));
    });
    journal.close();
    store.close();
    const verifyMs: number[] = [];
    const verifyCpuMs: number[] = [];
    const readRowsMs: number[] = [];
    for (let run = 0; run < RUNS; run++) {
      readRowsMs.push(
        timed(() => {
          const reader = openSqliteStore(join(dir, 'gpushare.db'), { readonly: true });
          let count = 0;
          for (const row of readAuditRows(reader.database)) count += row.seq > 0 ? 1 : 0;
          reader.close();
          if (count !== ENTRIES) throw new Error(`audit bench: read ${count} rows, expected ${ENTRIES}`);
        }),
      );
      const verifyTime = timedCpu(() => {
        const report = verifyDataDirAudit(dir);
        if (!report.ok || report.entries !== ENTRIES)
          throw new Error(`audit bench: verify failed: ${JSON.stringify(report.firstBad)}`);
      });
      verifyMs.push(verifyTime.wallMs);
      verifyCpuMs.push(verifyTime.cpuMs);
      progress(
        `audit: verify ${num(verifyTime.wallMs, 0)} ms (CPU ${num(verifyTime.cpuMs, 0)} ms), read ` +
          `${num(readRowsMs.at(-1)!, 0)} ms`,
      );
    }
    const results: AuditBenchResult = {
      entries: ENTRIES,
      appendsPerSecond: ENTRIES / (fillMs / 1000),
      verifyMs,
      medianVerifyMs: median(verifyMs),
      verifyCpuMs,
      medianVerifyCpuMs: median(verifyCpuMs),
      readRowsMs,
      medianReadRowsMs: median(readRowsMs),
      ratioToRead: median(verifyMs) / median(readRowsMs),
      targetMs: TARGET_MS,
    };
    return { lines: formatAuditBench(results), results };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/** The report lines. */
function formatAuditBench(r: AuditBenchResult): string[] {
  return [
    'Audit log (SQLite store, 100,000 entries, median of 3)',
    `  append: ${num(r.appendsPerSecond, 0)} entries/s (one transaction each, head journal included)`,
    `  audit verify: ${num(r.medianVerifyMs, 0)} ms wall, ${num(r.medianVerifyCpuMs, 0)} ms CPU (` +
      `${times(r.ratioToRead)} reading the rows alone: ${num(r.medianReadRowsMs, 0)} ms); target < ` +
      `${r.targetMs} ms wall: ${r.medianVerifyMs < r.targetMs ? 'met' : 'MISSED'}`,
  ];
}
