/**
 * The extender's HTTP(S) server: `POST <prefix>/filter`, `<prefix>/prioritize`, `<prefix>/bind`
 * for the kube-scheduler (any status but 200 is an error to it), `GET /metrics`, `/healthz` (the
 * process answers) and `/readyz` (active replica with a synced cache). Until the cache is synced,
 * or while another replica holds the Lease, filter and bind answer with an `Error` saying so.
 */
import fastify, { type FastifyInstance } from 'fastify';
import type { ClusterView } from './cluster-view.js';
import { EvaluationCache, filterResult, parseExtenderArgs, priorityList } from './extender-verbs.js';
import { parseBindingArgs, type PodBinder } from './pod-binder.js';

/** Where the server counts its calls and whose registry /metrics serves (adapters/metrics/extender-metrics.ts). */
export interface ExtenderServerMetrics {
  readonly registry: { readonly contentType: string; metrics(): Promise<string> };
  observe(verb: string, outcome: string, durationSeconds: number): void;
}

/** How the server is put together. */
export interface ExtenderServerOptions {
  readonly view: ClusterView;
  readonly binder: PodBinder;
  readonly metrics: ExtenderServerMetrics;
  /** null when this replica may answer; else why not (cache not synced, not the active replica). */
  readonly notReady: () => string | null;
  /** Path prefix of the verbs (the scheduler's `urlPrefix` path). @defaultValue '/scheduler' */
  readonly urlPrefix?: string;
  /**
   * Serve HTTPS with this certificate and key (PEM); with `clientCaPem`, only callers presenting a
   * client certificate that CA signed are served (the kube-scheduler's tlsConfig certFile/keyFile).
   */
  readonly tls?: { readonly certPem: string; readonly keyPem: string; readonly clientCaPem?: string };
}

/** Largest request body: 10,000 node names and a Pod take well under 1 MiB (node-cache-capable). */
const BODY_LIMIT_BYTES = 16 * 1024 * 1024;

/** Builds the server (not listening). */
export function buildExtenderServer(options: ExtenderServerOptions): FastifyInstance {
  const app = (options.tls
    ? fastify({
        logger: false,
        bodyLimit: BODY_LIMIT_BYTES,
        https: {
          cert: options.tls.certPem,
          key: options.tls.keyPem,
          ...(options.tls.clientCaPem
            ? { ca: options.tls.clientCaPem, requestCert: true, rejectUnauthorized: true }
            : {}),
        },
      })
    : fastify({ logger: false, bodyLimit: BODY_LIMIT_BYTES })) as unknown as FastifyInstance;
  // The scheduler is a trusted caller with large bodies (thousands of node names): plain JSON.parse,
  // without the prototype-poisoning scan of Fastify's default parser (whose result is not merged anywhere here).
  app.removeContentTypeParser('application/json');
  app.addContentTypeParser('application/json', { parseAs: 'string' }, (_request, body, done) => {
    try {
      done(null, JSON.parse(body as string));
    } catch (err) {
      (err as { statusCode?: number }).statusCode = 400;
      done(err as Error, undefined);
    }
  });
  const prefix = (options.urlPrefix ?? '/scheduler').replace(/\/$/, '');
  const cache = new EvaluationCache(options.view);
  const timed = <T>(verb: string, work: () => T): T => {
    const t0 = process.hrtime.bigint();
    let outcome = 'error';
    try {
      const result = work();
      outcome = (result as { Error?: string }).Error ? 'error' : 'ok';
      return result;
    } finally {
      options.metrics.observe(verb, outcome, Number(process.hrtime.bigint() - t0) / 1e9);
    }
  };

  app.post(`${prefix}/filter`, async (request, reply) => {
    const args = parseExtenderArgs(request.body);
    if ('error' in args) return reply.code(400).send({ Error: args.error });
    return timed('filter', () => {
      const blocked = options.notReady();
      if (blocked !== null)
        return {
          Nodes: null,
          NodeNames: null,
          FailedNodes: {},
          FailedAndUnresolvableNodes: {},
          Error: `gpushare extender: ${blocked}`,
        };
      return filterResult(args, cache.evaluate(args));
    });
  });
  app.post(`${prefix}/prioritize`, async (request, reply) => {
    const args = parseExtenderArgs(request.body);
    if ('error' in args) return reply.code(400).send({ Error: args.error });
    const blocked = options.notReady();
    if (blocked !== null) return reply.code(503).send({ Error: `gpushare extender: ${blocked}` });
    return timed('prioritize', () => priorityList(args, cache.evaluate(args)));
  });
  app.post(`${prefix}/bind`, async (request, reply) => {
    const args = parseBindingArgs(request.body);
    if ('error' in args) return reply.code(400).send({ Error: args.error });
    const blocked = options.notReady();
    if (blocked !== null) return { Error: `gpushare extender: ${blocked}` };
    const t0 = process.hrtime.bigint();
    const outcome = await options.binder.bind(args);
    options.metrics.observe('bind', 'error' in outcome ? 'error' : 'ok', Number(process.hrtime.bigint() - t0) / 1e9);
    return { Error: 'error' in outcome ? outcome.error : '' };
  });
  app.get('/metrics', async (_request, reply) =>
    reply.type(options.metrics.registry.contentType).send(await options.metrics.registry.metrics()),
  );
  app.get('/healthz', async () => ({ status: 'ok' }));
  app.get('/readyz', async (_request, reply) => {
    const blocked = options.notReady();
    return blocked === null ? { status: 'ready' } : reply.code(503).send({ status: 'not ready', reason: blocked });
  });
  return app;
}
