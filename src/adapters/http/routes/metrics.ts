/**
 * `GET /metrics`: the Prometheus exposition of the server's metrics (docs/metrics.md), content type
 * `text/plain; version=0.0.4`. Needs an admin bearer token by default, since the series name every
 * tenant's jobs (401 without a valid token; 403 for a tenant's or a job's token); with config
 * `metricsOpen: true` (`gpushare serve --metrics-open`) it is served without one. A scrape never
 * measures anything itself: GPU usage comes from the usage poller's latest sample.
 */
import type { FastifyInstance } from 'fastify';
import { isAllowed } from '../../../app/auth/authorize.js';
import { forbidden } from '../../../app/errors.js';
import type { AdminService } from '../../../app/services/admin-service.js';
import type { MetricsExposition } from '../server-services.js';

/** What the route needs. */
export interface MetricsRouteOptions {
  readonly metrics: MetricsExposition;
  readonly admin: AdminService;
  /** Serve without a token. */
  readonly open: boolean;
}

/** Registers `GET /metrics` on `app` (outside `/api/v1`). */
export function registerMetricsRoute(app: FastifyInstance, { metrics, admin, open }: MetricsRouteOptions): void {
  app.get('/metrics', { schema: { hide: true } }, async (request, reply) => {
    if (!open && !isAllowed(admin.authenticate(request.headers.authorization), 'metrics.read')) {
      throw forbidden(
        '/metrics needs an admin token: its series name the jobs of every tenant (or run the server with ' +
          '--metrics-open)',
      );
    }
    const text = await metrics.render();
    return reply.header('content-type', metrics.contentType).send(text);
  });
}
