/**
 * The services `buildServer` needs, over a plane kit (src/app/testing/plane-kit.ts), for tests of
 * the HTTP routes in process: status, dashboard and QoS composed as `gpushare serve` composes them
 * (version `9.9.9`, simulated GPUs, a signal checkpoint), with `extra` added or replacing.
 */
import { dashboardSnapshot } from '../../../app/services/dashboard-snapshot.js';
import { dashboardJobs } from '../../../app/services/dashboard-jobs.js';
import { serverStatus } from '../../../app/services/server-status.js';
import { UsageHistory } from '../../../app/services/usage-history.js';
import { QosService } from '../../../app/qos/qos-service.js';
import type { PlaneKit } from '../../../app/testing/plane-kit.js';
import type { ServerServices } from '../server-services.js';

/** A logger that drops everything. */
const silent = { info: () => undefined, warn: () => undefined, error: () => undefined };

/**
 * @param kit the plane and its in-memory adapters
 * @param extra services to add (metrics, audit, limits) or replace (the QoS service's logger)
 */
export function kitServices(kit: PlaneKit, extra: Partial<ServerServices> = {}): ServerServices {
  const usageHistory = extra.usageHistory ?? new UsageHistory(60_000);
  return {
    plane: kit.plane,
    jobs: kit.jobs,
    admin: kit.admin,
    version: '9.9.9',
    usageHistory,
    onDrained: () => undefined,
    status: (principal) =>
      serverStatus(
        {
          version: '9.9.9',
          plane: kit.plane,
          jobs: kit.jobs,
          gpuSource: 'simulated',
          freezer: kit.launcher.freezerKind,
          enforcement: kit.launcher.enforcement,
          isolation: kit.launcher.isolation,
          checkpoint: { method: 'signal', transparentAvailable: false, detail: 'test' },
        },
        principal,
      ),
    dashboard: (principal) =>
      dashboardSnapshot(
        {
          plane: kit.plane,
          jobs: kit.jobs,
          admin: kit.admin,
          usageHistory,
          version: '9.9.9',
          store: kit.store,
          clock: kit.clock,
          gpuSource: 'simulated',
        },
        principal,
      ),
    dashboardJobs: (principal, filter) =>
      dashboardJobs({ plane: kit.plane, jobs: kit.jobs, store: kit.store }, principal, filter),
    qos: new QosService(kit.plane, kit.store, kit.clock, silent),
    ...extra,
  };
}
