/**
 * The part of fetch the API client uses, over node:http and node:https. The global fetch (undici)
 * is loaded lazily by Node and costs tens of milliseconds at a command's first call; a CLI call is
 * one or two requests, so plain http requests start it sooner. node:https (and with it node:tls and
 * node:crypto) or node:http is loaded at the first request, so a command that asks nothing (a usage
 * error) does not load it.
 */
import type { IncomingMessage, RequestOptions } from 'node:http';

/** A request as the API client makes it. */
export interface HttpRequestInit {
  readonly method: string;
  readonly headers: Readonly<Record<string, string>>;
  readonly body?: string;
  readonly signal?: AbortSignal;
}

/** The answer, as much of a fetch Response as the client reads. */
export interface HttpResponse {
  readonly ok: boolean;
  readonly status: number;
  readonly statusText: string;
  /** The answer's headers (absent in a fake that has none). */
  readonly headers?: { get(name: string): string | null };
  text(): Promise<string>;
}

/** A fetch-like function (the global fetch is one). */
export type HttpFetch = (url: URL, init: HttpRequestInit) => Promise<HttpResponse>;

/** TLS settings of {@link createNodeHttpFetch}. */
export interface NodeHttpFetchOptions {
  /**
   * PEM of the CA certificate(s) an https server's certificate must chain to, instead of Node's
   * built-in public CAs; null or absent: the built-in ones. The host name is checked either way.
   */
  readonly ca?: string | null;
}

/**
 * A fetch that sends one request over node:http or node:https and reads the whole body.
 * Its calls throw the socket or TLS error (its `code`, e.g. ECONNREFUSED or
 * SELF_SIGNED_CERT_IN_CHAIN, is kept) or an AbortError when `signal` fires.
 */
export function createNodeHttpFetch(options: NodeHttpFetchOptions = {}): HttpFetch {
  const tls = options.ca ? { ca: options.ca } : {};
  return async (url, init) =>
    url.protocol === 'https:'
      ? send((await import('node:https')).request, url, init, tls)
      : send((await import('node:http')).request, url, init, {});
}

/** node:http's or node:https's `request`. */
type RequestFunction = (
  url: URL,
  options: RequestOptions,
  onResponse: (res: IncomingMessage) => void,
) => {
  on(event: 'error', listener: (err: Error) => void): unknown;
  end(body?: string): unknown;
};

const send = (request: RequestFunction, url: URL, init: HttpRequestInit, tls: { ca?: string }): Promise<HttpResponse> =>
  new Promise((resolve, reject) => {
    const headers: Record<string, string> = { ...init.headers };
    if (init.body !== undefined) headers['content-length'] = String(Buffer.byteLength(init.body));
    const options = { method: init.method, headers, signal: init.signal };
    const onResponse = (res: IncomingMessage): void => {
      const chunks: Buffer[] = [];
      res.on('data', (chunk: Buffer) => chunks.push(chunk));
      res.on('error', reject);
      res.on('end', () => {
        const status = res.statusCode ?? 0;
        const text = Buffer.concat(chunks).toString('utf8');
        resolve({
          ok: status >= 200 && status < 300,
          status,
          statusText: res.statusMessage ?? '',
          headers: { get: (name) => [res.headers[name.toLowerCase()] ?? null].flat()[0] ?? null },
          text: () => Promise.resolve(text),
        });
      });
    };
    const req = request(url, { ...options, ...tls }, onResponse);
    req.on('error', reject);
    req.end(init.body);
  });
