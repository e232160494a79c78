/**
 * Metrics of the audit anchor command (`--audit-anchor-command`, docs/metrics.md): whether it runs,
 * how many entries it has not received yet, heads dropped from its full queue and its restarts. Read
 * from its state at every scrape; registered only when the server has an anchor command.
 */
import { Counter, type Registry } from 'prom-client';
import { collectedGauge } from './collected-gauge.js';

/** What the metrics read of the anchor (the anchor's status). */
export interface AuditAnchorMetricsSource {
  readonly up: boolean;
  readonly anchoredSeq: number;
  readonly headSeq: number;
  readonly droppedHeads: number;
  readonly restarts: number;
}

/** A counter whose value is read from `value` at every scrape. */
function readCounter(registry: Registry, name: string, help: string, value: () => number): void {
  new Counter({
    name,
    help,
    registers: [registry],
    collect(this: Counter) {
      this.reset();
      this.inc(value());
    },
  });
}

/** Registers the anchor's metrics on `registry`. */
export function registerAuditAnchorMetrics(registry: Registry, status: () => AuditAnchorMetricsSource): void {
  collectedGauge(registry, {
    name: 'gpushare_audit_anchor_up',
    help: 'Whether the audit anchor command runs and takes heads (1) or not (0).',
    labelNames: [],
    fill: (set) => set({}, status().up ? 1 : 0),
  });
  collectedGauge(registry, {
    name: 'gpushare_audit_anchor_unanchored_entries',
    help: 'Audit entries after the last head written to the audit anchor command.',
    labelNames: [],
    fill: (set) => {
      const now = status();
      set({}, Math.max(0, now.headSeq - now.anchoredSeq));
    },
  });
  readCounter(
    registry,
    'gpushare_audit_anchor_dropped_heads_total',
    'Audit heads dropped because the anchor queue was full (a later head witnesses their entries).',
    () => status().droppedHeads,
  );
  readCounter(
    registry,
    'gpushare_audit_anchor_restarts_total',
    'Times the audit anchor command was started again after it exited or its input broke.',
    () => status().restarts,
  );
}
