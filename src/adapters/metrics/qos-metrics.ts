/**
 * QoS gauges and counters (docs/metrics.md "QoS"), from the plane's QoS tracker
 * (src/app/qos/qos-tracker.ts) for the gauges, and from the plane's `qos` events for the counters
 * (one report event per reported kind, one violation event per violation raised).
 */
import { Counter, type Registry } from 'prom-client';
import type { ControlPlane } from '../../app/scheduling/control-plane.js';
import type { QosJobStatus } from '../../app/qos/qos-tracker.js';
import { collectedGauge } from './collected-gauge.js';

/** Registers the QoS metrics; returns the function that stops following QoS events. */
export function registerQosMetrics(registry: Registry, plane: ControlPlane): () => void {
  const labels = (s: QosJobStatus) => ({ job_id: String(s.jobId), tenant: s.tenant, kind: s.kind });
  collectedGauge(registry, {
    name: 'gpushare_job_qos_target_seconds',
    help: "The job's declared QoS target, seconds (step: per training step; latency: per request).",
    labelNames: ['job_id', 'tenant', 'kind'],
    fill: (set) => {
      for (const s of plane.qos.statuses()) set(labels(s), s.targetSeconds);
    },
  });
  collectedGauge(registry, {
    name: 'gpushare_job_qos_observed_seconds',
    help: "The job's latest reported value, seconds; absent before its first report.",
    labelNames: ['job_id', 'tenant', 'kind'],
    fill: (set) => {
      for (const s of plane.qos.statuses()) if (s.lastObservedSeconds !== null) set(labels(s), s.lastObservedSeconds);
    },
  });
  const reports = new Counter({
    name: 'gpushare_qos_reports_total',
    help: 'QoS reports received, by tenant and target kind.',
    labelNames: ['tenant', 'kind'],
    registers: [registry],
  });
  const violations = new Counter({
    name: 'gpushare_qos_violations_total',
    help: 'QoS violations raised, by tenant and target kind.',
    labelNames: ['tenant', 'kind'],
    registers: [registry],
  });
  const off = plane.events.on((event) => {
    if (event.type !== 'qos') return;
    if (event.kind === 'report') reports.inc({ tenant: event.tenant, kind: event.qosKind });
    else if (event.kind === 'violation') violations.inc({ tenant: event.tenant, kind: event.qosKind });
  });
  collectedGauge(registry, {
    name: 'gpushare_job_qos_violation',
    help: '1 while the job violates its QoS target (missed for the configured time), else 0.',
    labelNames: ['job_id', 'tenant', 'kind'],
    fill: (set) => {
      for (const s of plane.qos.statuses()) set(labels(s), s.violating ? 1 : 0);
    },
  });
  return off;
}
