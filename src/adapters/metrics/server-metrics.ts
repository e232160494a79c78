/**
 * The Prometheus metrics of one server: a prom-client Registry of its own (never the global one),
 * holding gpushare's metrics (docs/metrics.md) and prom-client's default `process_*` / `nodejs_*`
 * metrics. Gauges are computed at scrape time from the control plane; counters and the pass
 * histogram follow the plane's events from the moment the metrics are created, so create them
 * before `plane.start()` to count every pass.
 */
import { Gauge, Registry, collectDefaultMetrics } from 'prom-client';
import type { ControlPlane } from '../../app/scheduling/control-plane.js';
import type { StateStore } from '../../app/ports/state-store.js';
import { registerClusterMetrics } from './cluster-metrics.js';
import { registerDiskMetrics, type DiskMetricsSource } from './disk-metrics.js';
import { registerEventCounters } from './event-counters.js';
import { registerGpuMetrics } from './gpu-metrics.js';
import { registerJobMetrics } from './job-metrics.js';
import { registerQosMetrics } from './qos-metrics.js';
import { registerQueueMetrics } from './queue-metrics.js';
import { perScrape, readSnapshot } from './scrape-snapshot.js';
import { registerTenantMetrics } from './tenant-metrics.js';

/** Options of {@link createServerMetrics}. */
export interface ServerMetricsOptions {
  /** The store the plane keeps its jobs and tenants in (read at each scrape). */
  readonly store: StateStore;
  /** Value of the `node` label (config `nodeName`, default the host name). */
  readonly nodeName: string;
  /** gpushare's version (`gpushare_build_info{version}`). */
  readonly version: string;
  /** Clock, ms since the epoch (queue waits). Default Date.now. */
  readonly nowMs?: () => number;
  /** Register prom-client's default process and Node.js metrics. Default true. */
  readonly defaultMetrics?: boolean;
  /** The data directory's disk (disk-metrics.ts); no disk metrics when absent. */
  readonly disk?: DiskMetricsSource;
}

/** A server's metrics. */
export interface ServerMetrics {
  readonly registry: Registry;
  /** `text/plain; version=0.0.4; charset=utf-8`. */
  readonly contentType: string;
  /** The exposition text of every metric now. */
  render(): Promise<string>;
  /** Stops following the plane's events. */
  close(): void;
}

/** Creates the metrics of `plane`. */
export function createServerMetrics(plane: ControlPlane, options: ServerMetricsOptions): ServerMetrics {
  const registry = new Registry();
  const nowMs = options.nowMs ?? Date.now;
  if (options.defaultMetrics !== false) collectDefaultMetrics({ register: registry });
  new Gauge({
    name: 'gpushare_build_info',
    help: 'gpushare build (always 1).',
    labelNames: ['version'],
    registers: [registry],
  }).set({ version: options.version }, 1);
  const { store } = options;
  const snapshot = perScrape(() => readSnapshot(plane, store, options.nodeName, nowMs()));
  registerGpuMetrics(registry, snapshot);
  registerJobMetrics(registry, snapshot);
  registerQueueMetrics(registry, snapshot);
  registerTenantMetrics(registry, plane, store, snapshot);
  registerClusterMetrics(registry, plane, snapshot);
  if (options.disk) registerDiskMetrics(registry, options.disk);
  const offs = [
    registerQosMetrics(registry, plane),
    registerEventCounters(
      registry,
      plane.events,
      store.listTenants().map((t) => t.name),
    ),
  ];
  return {
    registry,
    contentType: registry.contentType,
    render: () => registry.metrics(),
    close: () => {
      for (const off of offs) off();
    },
  };
}
