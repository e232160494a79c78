/**
 * The part of fetch the API client uses, over node:http and node:https. The global fetch (undici)
 * is loaded lazily by Node and costs tens of milliseconds at a command's first call; a CLI call is
 * one or two requests, so plain http requests start it sooner.
 */
import { request as httpRequest, type IncomingMessage } from 'node:http';
import { request as httpsRequest } from 'node:https';

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
  text(): Promise<string>;
}

/** A fetch-like function (the global fetch is one). */
export type HttpFetch = (url: URL, init: HttpRequestInit) => Promise<HttpResponse>;

/**
 * Sends one request and reads the whole body.
 * @throws the socket error (its `code`, e.g. ECONNREFUSED, is kept) or an AbortError when `signal` fires
 */
export const nodeHttpFetch: HttpFetch = (url, init) => new Promise((resolve, reject) => {
  const send = url.protocol === 'https:' ? httpsRequest : httpRequest;
  const headers: Record<string, string> = { ...init.headers };
  if (init.body !== undefined) headers['content-length'] = String(Buffer.byteLength(init.body));
  const req = send(url, { method: init.method, headers, signal: init.signal }, (res: IncomingMessage) => {
    const chunks: Buffer[] = [];
    res.on('data', (chunk: Buffer) => chunks.push(chunk));
    res.on('error', reject);
    res.on('end', () => {
      const status = res.statusCode ?? 0;
      const text = Buffer.concat(chunks).toString('utf8');
      resolve({ ok: status >= 200 && status < 300, status, statusText: res.statusMessage ?? '', text: () => Promise.resolve(text) });
    });
  });
  req.on('error', reject);
  req.end(init.body);
});
