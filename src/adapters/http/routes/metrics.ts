/**
 * `GET /metrics`: the Prometheus exposition of the server's metrics (docs/metrics.md), content type
 * `text/plain; version=0.0.4`. Readable without a token by default (the series carry job ids and
 * tenant names, no secrets); with config `metricsRequireToken: true` it needs an admin bearer token
 * (401 without a valid one; 403 for a tenant's token, since the series name every tenant's jobs,
 * and for a job's report token). A scrape
 * never measures anything itself: GPU usage comes from the usage poller's latest sample.
 */
import type { FastifyInstance } from 'fastify';
import { forbidden } from '../../../app/errors.js';
import type { AdminService } from '../../../app/control-plane/admin-service.js';
import type { MetricsExposition } from '../server-services.js';

/** What the route needs. */
export interface MetricsRouteOptions {
  readonly metrics: MetricsExposition;
  readonly admin: AdminService;
  /** Require a bearer token. */
  readonly requireToken: boolean;
}

/** Registers `GET /metrics` on `app` (outside `/api/v1`). */
export function registerMetricsRoute(app: FastifyInstance, { metrics, admin, requireToken }: MetricsRouteOptions): void {
  app.get('/metrics', { schema: { hide: true } }, async (request, reply) => {
    if (requireToken) {
      const principal = admin.authenticate(request.headers.authorization);
      if (principal.role !== 'admin') throw forbidden('/metrics needs an admin token: its series name the jobs of every tenant');
    }
    const text = await metrics.render();
    return reply.header('content-type', metrics.contentType).send(text);
  });
}
