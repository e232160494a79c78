/**
 * The webhook's HTTPS server (Fastify): `POST /mutate` takes an AdmissionReview v1 and answers with
 * one (admit.ts), or 400 naming the bad field; `GET /healthz` answers `{"status":"ok"}` for probes.
 * The certificate and key are read from files and read again every `tlsReloadIntervalMs`, so a
 * renewed certificate (a Secret volume updated by cert-manager or by hand) is served without a
 * restart; a pair that does not load is logged and the previous one kept.
 */
import { readFileSync } from 'node:fs';
import type { Server } from 'node:https';
import { createSecureContext } from 'node:tls';
import fastify, { type FastifyInstance } from 'fastify';
import type { Logger } from 'pino';
import { admit, type WebhookConfig } from './admit.js';

/**
 * Largest request body accepted, bytes. An AdmissionReview holds the object and, for UPDATE, the old
 * object; etcd stores objects up to 1.5 MiB by default, so 6 MiB leaves room for both in JSON.
 */
export const WEBHOOK_BODY_LIMIT_BYTES = 6 * 1024 * 1024;

/** How often the certificate files are read again by default, ms. */
const DEFAULT_TLS_RELOAD_MS = 30_000;

/** Where the server listens and what it serves with. */
export interface WebhookServerOptions {
  readonly host: string;
  /** TCP port; 0 picks a free one. */
  readonly port: number;
  /** PEM files: the serving certificate (chain) and its private key. */
  readonly tlsCertFile: string;
  readonly tlsKeyFile: string;
  readonly config: WebhookConfig;
  readonly logger: Logger;
  /** Interval of reading the certificate files again, ms (default 30 s); 0 never. */
  readonly tlsReloadIntervalMs?: number;
}

/** A listening webhook server. */
export interface WebhookServer {
  /** `https://<host>:<port>` */
  readonly url: string;
  readonly port: number;
  /** Reads the certificate files now; true when a new pair was loaded. */
  reloadTls(): boolean;
  close(): Promise<void>;
}

interface PemPair {
  readonly cert: string;
  readonly key: string;
}

/**
 * Reads and checks the certificate and key.
 * @throws Error naming the file that cannot be read, or saying that the pair does not load
 */
function readPair(certFile: string, keyFile: string): PemPair {
  const read = (flag: string, file: string): string => {
    try {
      return readFileSync(file, 'utf8');
    } catch (error) {
      throw new Error(
        `${flag}: cannot read ${file}: ${(error as NodeJS.ErrnoException).code ?? (error as Error).message}`,
        { cause: error },
      );
    }
  };
  const pair = { cert: read('--tls-cert', certFile), key: read('--tls-key', keyFile) };
  try {
    createSecureContext(pair);
  } catch (error) {
    throw new Error(
      `--tls-cert ${certFile} and --tls-key ${keyFile} do not load as a certificate and its key: ` +
        `${(error as Error).message}`,
      { cause: error },
    );
  }
  return pair;
}

/**
 * Starts the server.
 * @throws Error when the certificate files cannot be read or do not match, or the port is taken
 */
export async function startWebhookServer(options: WebhookServerOptions): Promise<WebhookServer> {
  const { logger, config } = options;
  let pair = readPair(options.tlsCertFile, options.tlsKeyFile);
  // Fastify types an HTTPS instance apart; routes and listen() are the same.
  const app = fastify({
    logger: false,
    bodyLimit: WEBHOOK_BODY_LIMIT_BYTES,
    https: { ...pair },
  }) as unknown as FastifyInstance;

  app.get('/healthz', async () => ({ status: 'ok' }));
  app.post('/mutate', async (request, reply) => {
    const started = performance.now();
    const outcome = admit(request.body, config);
    if (outcome.httpStatus === 400) {
      logger.warn({ message: outcome.message }, 'bad AdmissionReview');
      return reply.code(400).send({ error: 'BadRequest', message: outcome.message });
    }
    const { response } = outcome.review;
    const sent = (
      request.body as { request?: { kind?: { kind?: string }; namespace?: string; name?: string; operation?: string } }
    ).request;
    logger[response.allowed ? (response.patch === undefined ? 'debug' : 'info') : 'warn'](
      {
        uid: response.uid,
        kind: sent?.kind?.kind,
        namespace: sent?.namespace,
        name: sent?.name,
        operation: sent?.operation,
        allowed: response.allowed,
        patched: response.patch !== undefined,
        warnings: response.warnings?.length ?? 0,
        message: response.status?.message,
        durationMs: Math.round((performance.now() - started) * 1000) / 1000,
      },
      'admission',
    );
    return reply.code(200).send(outcome.review);
  });

  await app.listen({ host: options.host, port: options.port });
  const address = app.server.address();
  const port = typeof address === 'object' && address !== null ? address.port : options.port;

  const reloadTls = (): boolean => {
    let next: PemPair;
    try {
      next = readPair(options.tlsCertFile, options.tlsKeyFile);
    } catch (error) {
      logger.error(
        { err: (error as Error).message },
        'TLS: the certificate files do not load; serving the previous certificate',
      );
      return false;
    }
    if (next.cert === pair.cert && next.key === pair.key) return false;
    (app.server as Server).setSecureContext(next);
    pair = next;
    logger.info({ cert: options.tlsCertFile }, 'TLS: loaded the renewed certificate');
    return true;
  };
  const interval = options.tlsReloadIntervalMs ?? DEFAULT_TLS_RELOAD_MS;
  const timer = interval > 0 ? setInterval(reloadTls, interval) : null;
  timer?.unref();

  const host = options.host.includes(':') ? `[${options.host}]` : options.host;
  return {
    url: `https://${host}:${port}`,
    port,
    reloadTls,
    close: async () => {
      if (timer !== null) clearInterval(timer);
      await app.close();
    },
  };
}
