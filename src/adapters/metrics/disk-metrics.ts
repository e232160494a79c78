/**
 * The data directory's disk (docs/metrics.md "Disk"): free bytes and the threshold, whether the
 * disk is full or low now, API calls refused for want of space (by reason) and audit entries held
 * back until there is room (app/audit/disk-refusals.ts). All read at scrape time.
 */
import { Counter, type Registry } from 'prom-client';
import type { DiskProblem } from '../../app/ports/disk-space.js';
import type { DiskRefusalBacklog } from '../../app/audit/disk-refusals.js';
import { collectedGauge } from './collected-gauge.js';

/** What the disk metrics read. */
export interface DiskMetricsSource {
  /** The disk's problem now (full or below the threshold), null when none. */
  readonly problem: () => DiskProblem | null;
  readonly refusals: Pick<DiskRefusalBacklog, 'refusedTotals' | 'size'>;
}

/** The reason codes of a refusal for want of space, each series present from the start (0). */
const REFUSAL_REASONS = ['disk-full', 'disk-low'] as const;

/** Registers the disk metrics on `registry`. */
export function registerDiskMetrics(registry: Registry, source: DiskMetricsSource): void {
  collectedGauge(registry, {
    name: 'gpushare_disk_unhealthy',
    help:
      "1 while the data directory's disk is full (reason disk-full) or below --min-free-disk-mib (disk-low), " +
      'else 0.',
    labelNames: ['reason'],
    fill: (set) => {
      const reason = source.problem()?.reason ?? null;
      for (const r of REFUSAL_REASONS) set({ reason: r }, reason === r ? 1 : 0);
    },
  });
  new Counter({
    name: 'gpushare_disk_refused_calls_total',
    help:
      'API calls refused for want of space (507), by reason: disk-full (a write failed) or disk-low (below ' +
      'the threshold).',
    labelNames: ['reason'],
    registers: [registry],
    collect(this: Counter<'reason'>) {
      this.reset();
      const totals = source.refusals.refusedTotals();
      for (const reason of new Set([...REFUSAL_REASONS, ...totals.keys()]))
        this.inc({ reason }, totals.get(reason) ?? 0);
    },
  });
  collectedGauge(registry, {
    name: 'gpushare_audit_backlog_entries',
    help: 'Audit entries held back while the disk is full or low, to be summarized in one entry once there is room.',
    labelNames: [],
    fill: (set) => set({}, source.refusals.size),
  });
}
