/**
 * A small JSON client for the driver's API calls (ResourceSlices, ResourceClaims, its Node), over
 * `http:` or `https:` as the kubeconfig's server says, with the kubeconfig's credentials
 * (@kubernetes/client-node's `KubeConfig`, applied on every call so rotated tokens are used).
 * Plain REST keeps every field of the objects as the API server sends them (consumedCapacity,
 * shareID), whatever the client library's models know.
 */
import http from 'node:http';
import https from 'node:https';
import type { KubeConfig } from '@kubernetes/client-node';

/** An answer: HTTP status and parsed JSON body (null when empty or not JSON). */
export interface JsonAnswer {
  readonly status: number;
  readonly body: unknown;
}

/** Sends JSON requests to the API server. */
export interface KubeJson {
  /** @throws Error on a transport failure or timeout, never for an HTTP status */
  request(method: string, path: string, body?: unknown): Promise<JsonAnswer>;
  /** Closes idle connections. */
  close(): void;
}

/** The message of a `Status` answer, or the HTTP status. */
export function answerMessage(answer: JsonAnswer): string {
  const body = answer.body as { message?: unknown } | null;
  return typeof body?.message === 'string' ? `${answer.status}: ${body.message}` : `HTTP ${answer.status}`;
}

/**
 * A client for `kubeconfig`'s current cluster.
 * @throws Error when the kubeconfig names no current cluster
 */
export function kubeJsonFrom(kubeconfig: KubeConfig, timeoutMs = 10_000): KubeJson {
  const cluster = kubeconfig.getCurrentCluster();
  if (!cluster) throw new Error('the kubeconfig has no current cluster');
  const base = new URL(cluster.server);
  const secure = base.protocol === 'https:';
  let agent: http.Agent | null = null;
  return {
    async request(method, path, body) {
      const options: https.RequestOptions = { method, headers: {} };
      await kubeconfig.applyToHTTPSOptions(options);
      agent ??= secure
        ? new https.Agent({
            keepAlive: true,
            maxSockets: 4,
            ca: options.ca,
            cert: options.cert,
            key: options.key,
            ...(options.rejectUnauthorized !== undefined ? { rejectUnauthorized: options.rejectUnauthorized } : {}),
          })
        : new http.Agent({ keepAlive: true, maxSockets: 4 });
      const payload = body === undefined ? undefined : Buffer.from(JSON.stringify(body));
      const headers: Record<string, string | number> = {
        ...(options.headers as Record<string, string>),
        accept: 'application/json',
      };
      if (payload) {
        headers['content-type'] = 'application/json';
        headers['content-length'] = payload.length;
      }
      const send = secure ? https.request : http.request;
      return await new Promise<JsonAnswer>((resolve, reject) => {
        const req = send(
          {
            protocol: base.protocol,
            hostname: base.hostname,
            port: base.port,
            path: `${base.pathname.replace(/\/$/, '')}${path}`,
            method,
            headers,
            agent: agent!,
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
