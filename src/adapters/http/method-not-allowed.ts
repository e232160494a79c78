/**
 * 405 Method Not Allowed for the methods a path does not serve (RFC 9110 §15.5.6): every route
 * registered in a scope gets a sibling route for each other method Fastify knows (TRACE, PATCH,
 * QUERY, OPTIONS …) that answers 405 with `Allow` listing the methods the path serves (HEAD with
 * GET) and the API's error body `GPUSHARE_METHOD_NOT_ALLOWED`. The answer is sent from the route's
 * `onRequest` hook, before any body is read, so a body, a missing Content-Type or an oversized
 * body makes no difference; the scope's own `onRequest` hooks (authentication, request rate) run
 * first. Paths no route serves stay 404. Hidden from /openapi.json: the document lists what each
 * path serves, and a method it does not list is this 405.
 */
import type { FastifyInstance, FastifyReply, FastifyRequest, RouteOptions } from 'fastify';

declare module 'fastify' {
  interface FastifyContextConfig {
    /** Set on the routes {@link trackMethods} adds: they answer 405 and serve nothing. */
    methodNotAllowed?: boolean;
  }
}

/** Whether `route` is one of the 405 routes (not a route the server serves). */
export function isMethodNotAllowedRoute(route: Pick<RouteOptions, 'config'>): boolean {
  return (route.config as { methodNotAllowed?: boolean } | undefined)?.methodNotAllowed === true;
}

/** What {@link trackMethods} returns: call `answerOtherMethods` after the scope's last route. */
export interface MethodTracker {
  /** Registers the 405 routes of every path registered in the scope so far. */
  answerOtherMethods(): void;
}

/**
 * Starts recording the routes `scope` registers (their path as written in the scope, without its
 * prefix, and their methods); wildcard paths are left out (they would shadow 404s of other paths).
 */
export function trackMethods(scope: FastifyInstance): MethodTracker {
  const served = new Map<string, Set<string>>();
  scope.addHook('onRoute', (route) => {
    const path = route.routePath ?? route.url;
    if (isMethodNotAllowedRoute(route) || path.includes('*')) return;
    const methods = served.get(path) ?? new Set<string>();
    for (const method of [route.method].flat()) methods.add(String(method).toUpperCase());
    served.set(path, methods);
  });
  return {
    answerOtherMethods(): void {
      for (const [path, methods] of served) {
        if (methods.has('GET')) methods.add('HEAD');
        const allow = [...methods].sort().join(', ');
        const others = scope.supportedMethods.filter((method) => !methods.has(method));
        if (others.length === 0) continue;
        const refuse = async (request: FastifyRequest, reply: FastifyReply): Promise<void> => {
          await reply
            .status(405)
            .header('allow', allow)
            .send({
              error: {
                code: 'GPUSHARE_METHOD_NOT_ALLOWED',
                message: `${request.method} is not served here; this path serves ${allow}`,
                details: { method: request.method, allowed: [...methods].sort() },
              },
            });
        };
        scope.route({
          method: others,
          url: path,
          config: { methodNotAllowed: true },
          schema: { hide: true },
          onRequest: refuse,
          handler: async () => undefined,
        });
      }
    },
  };
}
