/**
 * `GET /metrics`: the Prometheus exposition of the server's metrics (docs/metrics.md), content type
 * `text/plain; version=0.0.4`. Readable without a token by default (the series carry job ids and
 * tenant names, no secrets); with config `metricsRequireToken: true` it needs an admin or tenant
 * bearer token like `/api/v1` (401 without a valid one, 403 for a job's report token). A scrape
 * never measures anything itself: GPU usage comes from the usage poller's latest sample.
 */
import type { FastifyInstance } from 'fastify';
import { forbidden } from '../../../app/errors.js';
import type { AdminService } from '../../../app/control-plane/admin-service.js';
import type { ServerMetrics } from '../../metrics/server-metrics.js';

/** What the route needs. */
export interface MetricsRouteOptions {
  readonly metrics: ServerMetrics;
  readonly admin: AdminService;
  /** Require a bearer token. */
  readonly requireToken: boolean;
}

/** Registers `GET /metrics` on `app` (outside `/api/v1`). */
export function registerMetricsRoute(app: FastifyInstance, { metrics, admin, requireToken }: MetricsRouteOptions): void {
  app.get('/metrics', { schema: { hide: true } }, async (request, reply) => {
    if (requireToken) {
      const principal = admin.authenticate(request.headers.authorization);
      if (principal.role !== 'admin' && principal.role !== 'tenant') throw forbidden('/metrics needs an admin or tenant token; a job\'s report token may only report progress');
    }
    const text = await metrics.render();
    return reply.header('content-type', metrics.contentType).send(text);
  });
}
