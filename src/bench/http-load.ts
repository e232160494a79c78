/**
 * The load side of the server benchmark: a keep-alive HTTP/1.1 client for one origin (HTTPS
 * trusting one CA, or plain HTTP), and a closed loop that keeps a fixed number of requests in
 * flight and measures each request's latency (nearest-rank percentiles).
 */
import { Agent as HttpAgent, request as httpRequest } from 'node:http';
import { Agent as HttpsAgent, request as httpsRequest } from 'node:https';
import { nearestRank } from '../lib/statistics.js';

/** One closed-loop run of requests. */
export interface LoadFigure {
  readonly requests: number;
  readonly ok: number;
  readonly failed: number;
  readonly firstFailure: string | null;
  readonly wallSeconds: number;
  readonly requestsPerSecond: number;
  readonly latencyP50Ms: number;
  readonly latencyP99Ms: number;
  readonly latencyMaxMs: number;
  /** True when the loop stopped at its time bound before doing all requests. */
  readonly hitTimeBound: boolean;
}

/** Status and body of one response. */
export interface LoadResponse {
  readonly status: number;
  readonly body: string;
}

/** Nearest-rank percentile, 0 for no sample. */
const percentileOrZero = (sorted: Float64Array, p: number): number => nearestRank(sorted, p) ?? 0;

/**
 * A keep-alive HTTP/1.1 client for one origin on 127.0.0.1, with a bearer token; HTTPS when given a CA (PEM) to trust.
 */
export class KeepAliveClient {
  private readonly agent: HttpAgent | HttpsAgent;
  private readonly request: typeof httpRequest;

  /**
   * @param concurrency sockets kept open (and the most in use at once)
   * @param caCert PEM of the CA of an HTTPS server's certificate; null: plain HTTP
   */
  constructor(
    private readonly port: number,
    private readonly token: string,
    concurrency: number,
    caCert: string | null = null,
  ) {
    const agentOptions = { keepAlive: true, maxSockets: concurrency, maxFreeSockets: concurrency };
    this.agent = caCert === null ? new HttpAgent(agentOptions) : new HttpsAgent({ ...agentOptions, ca: caCert });
    this.request = caCert === null ? httpRequest : (httpsRequest as typeof httpRequest);
  }

  /** One request; resolves with the status and body (never rejects for an HTTP status). */
  call(method: string, path: string, body?: string): Promise<LoadResponse> {
    return new Promise((resolveCall, rejectCall) => {
      const headers: Record<string, string | number> = { authorization: `Bearer ${this.token}` };
      if (body !== undefined) {
        headers['content-type'] = 'application/json';
        headers['content-length'] = Buffer.byteLength(body);
      }
      const req = this.request(
        { host: '127.0.0.1', port: this.port, method, path, agent: this.agent, headers },
        (res) => {
          const chunks: Buffer[] = [];
          res.on('data', (c: Buffer) => chunks.push(c));
          res.on('end', () =>
            resolveCall({ status: res.statusCode ?? 0, body: Buffer.concat(chunks).toString('utf8') }),
          );
          res.on('error', rejectCall);
        },
      );
      req.on('error', rejectCall);
      req.end(body);
    });
  }

  /** Closes every socket. */
  close(): void {
    this.agent.destroy();
  }
}

/**
 * Closed loop: `concurrency` workers issue requests `0..total-1` in order until all are done or
 * `timeBoundSeconds` have passed; measures each request's latency. A non-2xx status or a rejected
 * request counts as failed (the first failure is kept).
 */
export async function closedLoop(
  total: number,
  concurrency: number,
  timeBoundSeconds: number,
  send: (i: number) => Promise<LoadResponse>,
): Promise<LoadFigure> {
  const latencies = new Float64Array(total);
  let next = 0;
  let ok = 0;
  let failed = 0;
  let firstFailure: string | null = null;
  const started = performance.now();
  const deadline = started + timeBoundSeconds * 1000;
  const worker = async (): Promise<void> => {
    while (next < total && performance.now() < deadline) {
      const i = next++;
      const t0 = performance.now();
      try {
        const res = await send(i);
        if (res.status >= 200 && res.status < 300) ok++;
        else {
          failed++;
          firstFailure ??= `HTTP ${res.status}: ${res.body.slice(0, 300)}`;
        }
      } catch (error) {
        failed++;
        firstFailure ??= (error as Error).message;
      }
      latencies[i] = performance.now() - t0;
    }
  };
  await Promise.all(Array.from({ length: concurrency }, worker));
  const wallSeconds = (performance.now() - started) / 1000;
  const done = next;
  const sorted = latencies.slice(0, done).sort();
  return {
    requests: done,
    ok,
    failed,
    firstFailure,
    wallSeconds,
    requestsPerSecond: done / wallSeconds,
    latencyP50Ms: percentileOrZero(sorted, 50),
    latencyP99Ms: percentileOrZero(sorted, 99),
    latencyMaxMs: done === 0 ? 0 : sorted[done - 1]!,
    hitTimeBound: done < total,
  };
}
