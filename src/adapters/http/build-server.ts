/**
 * Builds the Fastify HTTP server (no listen): `/healthz`, `/openapi.json`, `/metrics` (when given), the web dashboard
 * at `/`
 * (static files, no token; docs/dashboard.md) and the API under
 * `/api/v1` (bearer token on every call, then the token's request rate: app/auth/api-limits.ts). Request bodies and
 * queries are validated with the zod
 * schemas of src/contract; failures become 400 with the field path, catalogue errors their status.
 * Tests use `inject()`; `src/main/serve.ts` listens.
 */
import fastify, { type FastifyInstance } from 'fastify';
import swagger from '@fastify/swagger';
import { serializerCompiler, validatorCompiler, type ZodTypeProvider } from 'fastify-type-provider-zod';
import type { Principal } from '../../app/auth/tokens.js';
import { GpushareError } from '../../app/errors.js';
import { registerErrorHandler, type InternalErrorLog } from './error-handler.js';
import { registerErrorResponses } from './error-responses.js';
import { BODY_LIMIT_BYTES, registerJsonBodyParser } from './json-body.js';
import type { ServerServices } from './server-services.js';
import { registerAdminRoutes } from './routes/admin.js';
import { registerTokenRoutes } from './routes/tokens.js';
import { registerGpuRoutes } from './routes/gpus.js';
import { registerJobRoutes } from './routes/jobs.js';
import { registerMetricsRoute } from './routes/metrics.js';
import { registerQosRoutes } from './routes/qos.js';
import { checkJobTokenScope } from '../../app/auth/job-scope.js';
import { registerDashboard } from './dashboard.js';
import { registerEventRoutes } from './routes/events.js';
import { registerDashboardJobRoutes } from './routes/dashboard-jobs.js';
import { registerUsageHistoryRoutes } from './routes/usage-history.js';
import { registerAuditHook } from './audit-hook.js';
import { registerAuditRoutes } from './routes/audit.js';
import { registerHistoryRoutes } from './routes/history.js';
import { isMethodNotAllowedRoute, trackMethods } from './method-not-allowed.js';
import { openApiTransform, optionalEmptyBodies } from './text-responses.js';

export type { ServerServices } from './server-services.js';

declare module 'fastify' {
  interface FastifyRequest {
    principal: Principal;
  }
}

/** Options of `buildServer`. */
export interface BuildServerOptions {
  /** Fastify's own request logging: `false` (default) or a logger configuration. */
  readonly logger?: boolean | object;
  /** Where the details of a 500 go (the server's log); dropped when absent. */
  readonly logInternalError?: InternalErrorLog;
  /** Serve HTTPS with this PEM key and certificate (chain); absent or null: plain HTTP. */
  readonly https?: { readonly key: string; readonly cert: string } | null;
  /**
   * Told every route as it is registered (method and URL pattern), e.g. to check each has a documented rule; not the
   * 405 answers of the methods a path does not serve (method-not-allowed.ts).
   */
  readonly onRoute?: (route: { readonly method: string; readonly url: string }) => void;
}

/**
 * The path a request reached, from its route pattern and decoded parameters (`/api/v1/jobs/:id/
 * qos-reports` with id 7 → `/api/v1/jobs/7/qos-reports`), so that a scope check sees what the
 * router matched, not how the client spelled it. An unmatched request keeps an empty path.
 */
function apiPath(pattern: string | undefined, params: unknown): string {
  if (pattern === undefined) return '';
  const values = (params ?? {}) as Record<string, unknown>;
  return pattern.replace(/:([A-Za-z_]+)/g, (_, name: string) => String(values[name] ?? ''));
}

/** The app with every route registered; call `.listen()` or `.inject()`. */
export async function buildServer(
  services: ServerServices,
  options: BuildServerOptions = {},
): Promise<FastifyInstance> {
  // Fastify types an HTTPS instance apart; routes and listen() are the same for both.
  const base = options.https
    ? (fastify({
        logger: options.logger ?? false,
        bodyLimit: BODY_LIMIT_BYTES,
        https: { ...options.https },
      }) as unknown as FastifyInstance)
    : fastify({ logger: options.logger ?? false, bodyLimit: BODY_LIMIT_BYTES });
  const app = base.withTypeProvider<ZodTypeProvider>();
  const { onRoute } = options;
  if (onRoute) {
    app.addHook('onRoute', (route) => {
      if (isMethodNotAllowedRoute(route)) return;
      for (const method of [route.method].flat()) onRoute({ method: String(method), url: route.url });
    });
  }
  app.setValidatorCompiler(validatorCompiler);
  app.setSerializerCompiler(serializerCompiler);
  registerErrorHandler(app, options.logInternalError);
  registerErrorResponses(app);
  registerJsonBodyParser(app);
  await app.register(swagger, {
    openapi: {
      // 3.1: its schemas are JSON Schema 2020-12, which can say what 3.0 cannot (the names of a map's
      // keys: propertyNames).
      openapi: '3.1.0',
      info: {
        title: 'gpushare API',
        version: services.version,
        description: 'Fractional GPU jobs on one server: submit, watch, cancel; GPUs and tenants.',
      },
      components: { securitySchemes: { bearer: { type: 'http', scheme: 'bearer' } } },
      security: [{ bearer: [] }],
    },
    transform: openApiTransform,
    transformObject: optionalEmptyBodies,
  });
  app.decorateRequest('principal', null as unknown as Principal);
  // 200 `{ status: 'ok' }`; 503 `{ status: 'unhealthy', reason }` while the server cannot work: with a disk problem,
  // `reason` is its code (`disk-full`, `disk-low`) beside `message`, `freeBytes` and `minFreeBytes`. With an audit
  // anchor command, `auditAnchor: { up, anchoredSeq, unanchoredEntries }` either way.
  app.get('/healthz', { schema: { hide: true } }, async (_request, reply) => {
    const anchor = services.auditAnchor === undefined ? {} : { auditAnchor: services.auditAnchor() };
    const disk = services.diskProblem?.() ?? null;
    if (disk !== null) {
      const { reason, message, freeBytes, minFreeBytes } = disk;
      return reply.status(503).send({ status: 'unhealthy', reason, message, freeBytes, minFreeBytes, ...anchor });
    }
    return { status: 'ok', ...anchor };
  });
  app.get('/openapi.json', { schema: { hide: true } }, async () => app.swagger());
  if (services.metrics)
    registerMetricsRoute(app, {
      metrics: services.metrics,
      admin: services.admin,
      open: services.metricsOpen ?? false,
    });
  await app.register(
    async (api) => {
      // Authentication belongs to the API's own scope: it runs for every route of this plugin,
      // however the request spells the path (`/%61pi/v1/...` reaches these routes too), and for
      // unknown paths under the prefix.
      const methods = trackMethods(api);
      api.addHook('onRequest', async (request) => {
        request.principal = services.admin.authenticate(request.headers.authorization);
        // A job's report token may only report for its own job (403 for anything else).
        checkJobTokenScope(request.principal, request.method, apiPath(request.routeOptions.url, request.params));
        // Per-token request rate (429 with Retry-After); admins are never throttled.
        services.limits?.admitRequest(request.principal);
      });
      const { onDiskRefusal } = services;
      if (onDiskRefusal)
        api.addHook('onError', async (_request, _reply, error) => {
          const reason = error instanceof GpushareError ? error.details?.reason : undefined;
          if (error instanceof GpushareError && error.httpStatus === 507 && typeof reason === 'string')
            onDiskRefusal(reason);
        });
      registerJobRoutes(api.withTypeProvider<ZodTypeProvider>(), services);
      registerGpuRoutes(api.withTypeProvider<ZodTypeProvider>(), services);
      registerAdminRoutes(api.withTypeProvider<ZodTypeProvider>(), services);
      registerTokenRoutes(api.withTypeProvider<ZodTypeProvider>(), services);
      registerQosRoutes(api.withTypeProvider<ZodTypeProvider>(), services);
      registerUsageHistoryRoutes(api.withTypeProvider<ZodTypeProvider>(), services);
      registerHistoryRoutes(api.withTypeProvider<ZodTypeProvider>(), services);
      registerEventRoutes(api.withTypeProvider<ZodTypeProvider>(), services);
      registerDashboardJobRoutes(api.withTypeProvider<ZodTypeProvider>(), services);
      if (services.audit) {
        registerAuditHook(api, services.audit);
        registerAuditRoutes(api.withTypeProvider<ZodTypeProvider>(), services.audit);
      }
      methods.answerOtherMethods();
    },
    { prefix: '/api/v1' },
  );
  await registerDashboard(app);
  await app.ready();
  return app;
}
