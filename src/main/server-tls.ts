/**
 * The TLS side of `gpushare serve`: the key and certificate the server listens with, and the CA
 * certificate its clients (the CLI, jobs) trust. From the local CA in `<data-dir>/tls/` (made or
 * reused, src/adapters/tls/tls-material.ts), from `--tls-cert`/`--tls-key`/`--tls-ca`, or none
 * with `--insecure-http` (logged as a warning).
 */
import { X509Certificate, createPrivateKey } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { hostname } from 'node:os';
import { join } from 'node:path';
import type pino from 'pino';
import { ensureTlsMaterial, serverCertNames } from '../adapters/tls/tls-material.js';
import type { ServerConfig } from '../config/server-config.js';

/** What the server listens with and what its clients trust. */
export interface ServerTls {
  /** Fastify's `https` option (PEM key and certificate chain); null: plain HTTP. */
  readonly https: { readonly key: string; readonly cert: string } | null;
  /** PEM of the CA clients trust (the local CA, or `--tls-ca`); null when there is none. */
  readonly caCertPem: string | null;
  /** The file of that CA certificate; null when there is none. */
  readonly caCertPath: string | null;
}

/**
 * Prepares the server's TLS as `config.tls` says, and logs what it did.
 * @throws Error naming the flag when a `--tls-*` file cannot be read or is no PEM certificate or
 *   key, or the key does not belong to the certificate
 */
export async function prepareServerTls(config: ServerConfig, logger: pino.Logger, nowMs: number): Promise<ServerTls> {
  const tls = config.tls;
  if (tls.kind === 'off') {
    logger.warn(
      'TLS is off (--insecure-http): the API, tokens included, travels in clear text; anyone on the ' +
        'network path can read and reuse tokens',
    );
    return { https: null, caCertPem: null, caCertPath: null };
  }
  if (tls.kind === 'files') {
    const cert = readPem('--tls-cert', tls.certFile);
    const key = readPem('--tls-key', tls.keyFile);
    checkKeyMatches(cert, key, tls);
    const caCertPem = tls.caFile === null ? null : readPem('--tls-ca', tls.caFile);
    if (caCertPem !== null) parseCert('--tls-ca', tls.caFile!, caCertPem);
    logger.info(
      { cert: tls.certFile, ca: tls.caFile },
      `TLS: certificate ${tls.certFile}` +
        `${
          tls.caFile
            ? `, CA ${tls.caFile} (written into the CLI config)`
            : ', no --tls-ca (clients use the ' + "system's CAs)"
        }`,
    );
    return { https: { key, cert }, caCertPem, caCertPath: tls.caFile };
  }
  const names = serverCertNames(config.host, hostname());
  const material = await ensureTlsMaterial({
    dir: join(config.dataDir, 'tls'),
    names,
    caCommonName: `gpushare local CA (${hostname()})`,
    nowMs,
  });
  const said = (what: string, part: { action: string; reason: string }): string =>
    `${what} ${part.action}${part.action === 'renewed' ? ` (${part.reason})` : ''}`;
  logger.info(
    { ca: material.caCertPath, caAction: material.ca.action, serverCertAction: material.server.action, names },
    `TLS: ${said('local CA', material.ca)}: ${material.caCertPath}; ` +
      `${said('server certificate', material.server)} for ${names.join(', ')}`,
  );
  return {
    https: { key: material.serverKeyPem, cert: material.serverCertPem },
    caCertPem: material.caCertPem,
    caCertPath: material.caCertPath,
  };
}

function readPem(flag: string, path: string): string {
  try {
    return readFileSync(path, 'utf8');
  } catch (error) {
    throw new Error(
      `${flag}: cannot read ${path}: ${(error as NodeJS.ErrnoException).code ?? (error as Error).message}`,
      { cause: error },
    );
  }
}

function parseCert(flag: string, path: string, pem: string): X509Certificate {
  try {
    return new X509Certificate(pem);
  } catch (error) {
    throw new Error(`${flag}: ${path} is not a PEM certificate: ${(error as Error).message}`, { cause: error });
  }
}

function checkKeyMatches(certPem: string, keyPem: string, files: { certFile: string; keyFile: string }): void {
  const cert = parseCert('--tls-cert', files.certFile, certPem);
  let matches: boolean;
  try {
    matches = cert.checkPrivateKey(createPrivateKey(keyPem));
  } catch (error) {
    throw new Error(`--tls-key: ${files.keyFile} is not a PEM private key: ${(error as Error).message}`, {
      cause: error,
    });
  }
  if (!matches) throw new Error(`--tls-key: ${files.keyFile} is not the key of --tls-cert ${files.certFile}`);
}
