/**
 * A tiny stand-in for the gpushare server in tests: node:http on 127.0.0.1, port 0. It records
 * every request and answers with whatever the test's handler returns.
 */
import { createServer, type IncomingHttpHeaders } from 'node:http';
import type { AddressInfo } from 'node:net';

/** A request the fake server received. */
export interface RecordedRequest {
  readonly method: string;
  /** Path without the query, e.g. `/api/v1/jobs`. */
  readonly path: string;
  readonly query: URLSearchParams;
  readonly headers: IncomingHttpHeaders;
  /** Parsed JSON body, or undefined when there was none. */
  readonly body: unknown;
}

/** The fake server's answer: a status and a JSON body (a string body is sent as is, as text/plain by default). */
export interface FakeResponse {
  readonly status: number;
  readonly body?: unknown;
  /** The content type of a string body (default `text/plain`). */
  readonly contentType?: string;
}

/** A running fake server. */
export interface FakeApiServer {
  /** Base URL, e.g. `http://127.0.0.1:40123`. */
  readonly url: string;
  /** Every request so far, in order. */
  readonly requests: RecordedRequest[];
  /** Stops listening and drops open connections. */
  close(): Promise<void>;
}

/**
 * Starts a fake server on 127.0.0.1 with a free port.
 * @param handler - Answers each request; a thrown error becomes a 500.
 */
export async function startFakeApiServer(
  handler: (request: RecordedRequest) => FakeResponse | Promise<FakeResponse>,
): Promise<FakeApiServer> {
  const requests: RecordedRequest[] = [];
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      void (async () => {
        const url = new URL(req.url ?? '/', 'http://localhost');
        const text = Buffer.concat(chunks).toString('utf8');
        const request: RecordedRequest = {
          method: req.method ?? 'GET',
          path: url.pathname,
          query: url.searchParams,
          headers: req.headers,
          body: text === '' ? undefined : JSON.parse(text),
        };
        requests.push(request);
        let response: FakeResponse;
        try {
          response = await handler(request);
        } catch (err) {
          response = {
            status: 500,
            body: { error: { code: 'FAKE', message: err instanceof Error ? err.message : String(err) } },
          };
        }
        const body =
          typeof response.body === 'string'
            ? response.body
            : response.body === undefined
              ? ''
              : JSON.stringify(response.body);
        res.writeHead(response.status, {
          'content-type':
            typeof response.body === 'string' ? (response.contentType ?? 'text/plain') : 'application/json',
        });
        res.end(body);
      })();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    requests,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/**
 * A URL where nothing listens: a port that was just free (connections are refused).
 */
export async function unusedLocalUrl(): Promise<string> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return `http://127.0.0.1:${port}`;
}
