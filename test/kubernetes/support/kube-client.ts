/**
 * The smallest client of a test API server: one HTTPS request with a client certificate or a
 * bearer token, trusting only the test CA, and kubeconfig files for the same credentials (for
 * kubectl, the components and @kubernetes/client-node). Asynchronous only: a test may serve a
 * webhook or an extender from its own event loop while the API server waits on it.
 */
import { writeFileSync } from 'node:fs';
import { request } from 'node:https';
import { stringify } from 'yaml';

/** Who calls which API server: a client certificate (PEM) or a bearer token. */
export interface KubeCredentials {
  /** `https://127.0.0.1:PORT`. */
  readonly serverUrl: string;
  /** The CA the server's certificate chains to, PEM. */
  readonly caPem: string;
  readonly client: { readonly certPem: string; readonly keyPem: string } | { readonly token: string };
}

/** An API answer: HTTP status, the body parsed as JSON (the raw text when it is not JSON) and the text. */
export interface KubeResponse<T> {
  readonly status: number;
  readonly body: T;
  readonly text: string;
}

/** Content types of PATCH (`merge` is RFC 7386, `json` RFC 6902, `strategic` Kubernetes' own). */
export const PATCH_TYPES = {
  merge: 'application/merge-patch+json',
  json: 'application/json-patch+json',
  strategic: 'application/strategic-merge-patch+json',
} as const;

/**
 * Sends one request. `body` is sent as JSON with `contentType` (default `application/json`); the
 * answer is returned whatever its status (a 403 or 422 is a value to assert on, not an error).
 * @throws Error on a transport failure or when no answer comes within `timeoutMs` (default 30 s)
 */
export function kubeRequest<T = unknown>(
  credentials: KubeCredentials,
  method: string,
  path: string,
  body?: unknown,
  contentType = 'application/json',
  timeoutMs = 30_000,
): Promise<KubeResponse<T>> {
  const url = new URL(path, credentials.serverUrl);
  const payload = body === undefined ? undefined : JSON.stringify(body);
  const headers: Record<string, string> = { accept: 'application/json' };
  if (payload !== undefined) {
    headers['content-type'] = contentType;
    headers['content-length'] = String(Buffer.byteLength(payload));
  }
  const client = credentials.client;
  if ('token' in client) headers.authorization = `Bearer ${client.token}`;
  return new Promise((resolve, reject) => {
    const req = request(
      url,
      {
        method,
        headers,
        ca: credentials.caPem,
        ...('certPem' in client ? { cert: client.certPem, key: client.keyPem } : {}),
        timeout: timeoutMs,
      },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (chunk: Buffer) => chunks.push(chunk));
        res.on('end', () => {
          const text = Buffer.concat(chunks).toString('utf8');
          let parsed: unknown = text;
          try {
            parsed = text === '' ? undefined : JSON.parse(text);
          } catch {
            // not JSON (healthz answers "ok"): keep the text
          }
          resolve({ status: res.statusCode ?? 0, body: parsed as T, text });
        });
        res.on('error', reject);
      },
    );
    req.on('timeout', () => req.destroy(new Error(`${method} ${url.href}: no answer within ${timeoutMs} ms`)));
    req.on('error', reject);
    req.end(payload);
  });
}

/**
 * Writes a kubeconfig file (mode 0600) with one cluster, one user and one context, named
 * `userName`, the CA and the credentials embedded (`*-data` fields, base64).
 */
export function writeKubeconfig(path: string, credentials: KubeCredentials, userName: string): void {
  const base64 = (pem: string) => Buffer.from(pem).toString('base64');
  const client = credentials.client;
  const user =
    'token' in client
      ? { token: client.token }
      : { 'client-certificate-data': base64(client.certPem), 'client-key-data': base64(client.keyPem) };
  const config = {
    apiVersion: 'v1',
    kind: 'Config',
    clusters: [
      {
        name: 'gpushare-test',
        cluster: { server: credentials.serverUrl, 'certificate-authority-data': base64(credentials.caPem) },
      },
    ],
    users: [{ name: userName, user }],
    contexts: [{ name: userName, context: { cluster: 'gpushare-test', user: userName } }],
    'current-context': userName,
  };
  writeFileSync(path, stringify(config), { mode: 0o600 });
}
