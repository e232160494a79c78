/**
 * A small client for the Kubernetes REST calls the extender makes on its hot path (patch a pod,
 * create a Binding, read and write a Lease, post an Event), the autoscaler's and the DRA driver's
 * (ResourceSlices, ResourceClaims): JSON over HTTPS (or `http:` when the kubeconfig's server says
 * so) with one keep-alive connection pool, credentials from a kubeconfig (or the in-cluster
 * ServiceAccount) through @kubernetes/client-node's `KubeConfig`, re-applied on every call so
 * rotated tokens are used. Plain REST keeps every field of the objects as the API server sends
 * them (a claim's consumedCapacity and shareID), whatever the client library's models know.
 */
import http from 'node:http';
import https from 'node:https';
import type { KubeConfig } from '@kubernetes/client-node';

/** An API answer: HTTP status and the parsed JSON body (null when empty or not JSON). */
export interface KubeResponse {
  readonly status: number;
  readonly body: unknown;
}

/** The calls the extender needs; a test may fake it. */
export interface KubeRest {
  /**
   * Sends one request. @param contentType of `body` (default application/json)
   * @throws Error on a transport failure (connection refused, TLS), never for an HTTP status
   */
  request(method: string, path: string, body?: unknown, contentType?: string): Promise<KubeResponse>;
  /** Closes idle connections. */
  close(): void;
}

/** The message of a `Status` body, or the HTTP status when there is none. */
export function statusMessage(response: KubeResponse): string {
  const body = response.body as { message?: unknown } | null;
  return typeof body?.message === 'string' ? `${response.status}: ${body.message}` : `HTTP ${response.status}`;
}

/** The `items` of a list GET at `path`. @throws Error naming the path for any status but 200 */
export async function listItems<T>(rest: KubeRest, path: string): Promise<T[]> {
  const answer = await rest.request('GET', path);
  if (answer.status !== 200) throw new Error(`GET ${path}: ${statusMessage(answer)}`);
  return (answer.body as { items?: T[] } | null)?.items ?? [];
}

/** A `KubeRest` over `kubeconfig`'s current context. @throws Error when the context names no cluster */
export function kubeRestFrom(kubeconfig: KubeConfig, timeoutMs = 10_000): KubeRest {
  const cluster = kubeconfig.getCurrentCluster();
  if (!cluster) throw new Error('the kubeconfig has no current cluster');
  const base = new URL(cluster.server);
  const secure = base.protocol === 'https:';
  let agent: http.Agent | null = null;
  return {
    async request(method, path, body, contentType = 'application/json') {
      const options: https.RequestOptions = { method, headers: {} };
      await kubeconfig.applyToHTTPSOptions(options);
      const pool = (agent ??= secure
        ? new https.Agent({
            keepAlive: true,
            maxSockets: 16,
            ca: options.ca,
            cert: options.cert,
            key: options.key,
            ...(options.rejectUnauthorized !== undefined ? { rejectUnauthorized: options.rejectUnauthorized } : {}),
          })
        : new http.Agent({ keepAlive: true, maxSockets: 16 }));
      const payload = body === undefined ? undefined : Buffer.from(JSON.stringify(body));
      const headers: Record<string, string | number> = {
        ...(options.headers as Record<string, string>),
        accept: 'application/json',
      };
      if (payload) {
        headers['content-type'] = contentType;
        headers['content-length'] = payload.length;
      }
      return await new Promise<KubeResponse>((resolve, reject) => {
        const req = (secure ? https.request : http.request)(
          {
            protocol: base.protocol,
            hostname: base.hostname,
            port: base.port,
            path: `${base.pathname.replace(/\/$/, '')}${path}`,
            method,
            headers,
            agent: pool,
            timeout: timeoutMs,
            ...(options.auth ? { auth: options.auth } : {}),
          },
          (res) => {
            const chunks: Buffer[] = [];
            res.on('data', (c: Buffer) => chunks.push(c));
            res.on('end', () => {
              const text = Buffer.concat(chunks).toString('utf8');
              let parsed: unknown = null;
              try {
                parsed = text ? JSON.parse(text) : null;
              } catch {
                parsed = null;
              }
              resolve({ status: res.statusCode ?? 0, body: parsed });
            });
            res.on('error', reject);
          },
        );
        req.on('timeout', () => req.destroy(new Error(`${method} ${path}: no answer in ${timeoutMs} ms`)));
        req.on('error', reject);
        req.end(payload);
      });
    },
    close() {
      agent?.destroy();
    },
  };
}
