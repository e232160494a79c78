/**
 * The server's TLS material in `<data-dir>/tls/`: a local CA (`ca.key`, `ca.crt`) and a server
 * certificate it signs (`server.key`, `server.crt`). Made at the first start, reused at every
 * later one, and remade only when a file is missing or unreadable, a certificate expires within
 * {@link RENEW_BEFORE_DAYS} days, the server certificate is not signed by the CA or does not match
 * its key, or it lacks one of the names the server must answer to. Keys are written 0600, the
 * folder is 0700, certificates 0644.
 */
import { X509Certificate, createPrivateKey } from 'node:crypto';
import { chmodSync, existsSync, mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { isIP } from 'node:net';
import { join } from 'node:path';
import { createLocalCa, issueServerCert, type PemPair } from './local-ca.js';

/** A certificate is renewed when it expires within this many days. */
export const RENEW_BEFORE_DAYS = 30;

/** What happened to each part at this start. */
export type TlsMaterialAction = 'created' | 'reused' | 'renewed';

/** Files and PEM text of the server's TLS material. */
export interface TlsMaterial {
  readonly caCertPath: string;
  readonly caCertPem: string;
  readonly serverCertPath: string;
  readonly serverCertPem: string;
  readonly serverKeyPath: string;
  readonly serverKeyPem: string;
  /** What was done to the CA and to the server certificate, and why (for the log). */
  readonly ca: { readonly action: TlsMaterialAction; readonly reason: string };
  readonly server: { readonly action: TlsMaterialAction; readonly reason: string };
}

/**
 * The names a server listening on `listenHost` answers to: the listen address (unless it is a
 * wildcard, `0.0.0.0` or `::`), 127.0.0.1, ::1, localhost and the machine's host name, without
 * duplicates, in that order.
 */
export function serverCertNames(listenHost: string, hostName: string): string[] {
  const wildcard = listenHost === '0.0.0.0' || listenHost === '::';
  const names: string[] = [];
  for (const name of [...(wildcard ? [] : [listenHost]), '127.0.0.1', '::1', 'localhost', hostName]) {
    if (name !== '' && !names.some((n) => n.toLowerCase() === name.toLowerCase())) names.push(name);
  }
  return names;
}

/** What {@link ensureTlsMaterial} needs. */
export interface TlsMaterialRequest {
  /** The folder of the four files (made 0700 when missing). */
  readonly dir: string;
  /** Names the server certificate must hold (see {@link serverCertNames}). */
  readonly names: readonly string[];
  /** Common name of a new CA, e.g. `gpushare local CA (gpu-box-1)`. */
  readonly caCommonName: string;
  /** The current time (epoch ms): expiry is judged against it. */
  readonly nowMs: number;
}

/**
 * Makes or reuses the TLS material in `request.dir`.
 * @throws Error naming the file when the folder or a file cannot be written
 */
export async function ensureTlsMaterial(request: TlsMaterialRequest): Promise<TlsMaterial> {
  const { dir, names, nowMs } = request;
  mkdirSync(dir, { recursive: true, mode: 0o700 });
  chmodSync(dir, 0o700);
  const paths = {
    caCert: join(dir, 'ca.crt'),
    caKey: join(dir, 'ca.key'),
    serverCert: join(dir, 'server.crt'),
    serverKey: join(dir, 'server.key'),
  };
  const oldCa = readPair(paths.caCert, paths.caKey);
  const caProblem = oldCa === null ? 'missing' : pairProblem(oldCa, nowMs, { ca: true });
  let ca: PemPair;
  if (caProblem === null) {
    ca = oldCa!;
  } else {
    ca = await createLocalCa(request.caCommonName, nowMs);
    writePair(paths.caCert, paths.caKey, ca);
  }
  const oldServer = readPair(paths.serverCert, paths.serverKey);
  const serverProblem =
    caProblem !== null
      ? oldServer === null
        ? 'missing'
        : 'new CA'
      : oldServer === null
        ? 'missing'
        : pairProblem(oldServer, nowMs, { issuer: ca.certPem, names });
  let server: PemPair;
  if (serverProblem === null) {
    server = oldServer!;
  } else {
    server = await issueServerCert(ca, names, nowMs);
    writePair(paths.serverCert, paths.serverKey, server);
  }
  const action = (problem: string | null): TlsMaterialAction =>
    problem === null ? 'reused' : problem === 'missing' ? 'created' : 'renewed';
  return {
    caCertPath: paths.caCert,
    caCertPem: ca.certPem,
    serverCertPath: paths.serverCert,
    serverCertPem: server.certPem,
    serverKeyPath: paths.serverKey,
    serverKeyPem: server.keyPem,
    ca: { action: action(caProblem), reason: caProblem ?? 'valid' },
    server: { action: action(serverProblem), reason: serverProblem ?? 'valid' },
  };
}

/** Both files' text, or null when either is missing or unreadable. */
function readPair(certPath: string, keyPath: string): PemPair | null {
  if (!existsSync(certPath) || !existsSync(keyPath)) return null;
  try {
    return { certPem: readFileSync(certPath, 'utf8'), keyPem: readFileSync(keyPath, 'utf8') };
  } catch {
    return null;
  }
}

/**
 * Why a stored certificate and key cannot be reused, or null when they can: unparsable, key not
 * matching, expiring within {@link RENEW_BEFORE_DAYS} days, not a CA (for the CA), not signed by
 * `issuer` or missing one of `names` (for the server certificate).
 */
function pairProblem(
  pair: PemPair,
  nowMs: number,
  want: { ca?: boolean; issuer?: string; names?: readonly string[] },
): string | null {
  let cert: X509Certificate;
  try {
    cert = new X509Certificate(pair.certPem);
    if (!cert.checkPrivateKey(createPrivateKey(pair.keyPem))) return 'the key does not match the certificate';
  } catch (error) {
    return `unreadable (${(error as Error).message})`;
  }
  const expiresMs = Date.parse(cert.validTo);
  if (!(expiresMs - nowMs > RENEW_BEFORE_DAYS * 86_400_000)) return `expires ${new Date(expiresMs).toISOString()}`;
  if (Date.parse(cert.validFrom) > nowMs)
    return `not valid before ${new Date(Date.parse(cert.validFrom)).toISOString()}`;
  if (want.ca === true && !cert.ca) return 'not a CA certificate';
  if (want.issuer !== undefined && !cert.verify(new X509Certificate(want.issuer).publicKey))
    return 'not signed by the CA';
  for (const name of want.names ?? []) {
    const matches = isIP(name)
      ? cert.checkIP(name) !== undefined
      : cert.checkHost(name, { subject: 'never' }) !== undefined;
    if (!matches) return `does not name ${name}`;
  }
  return null;
}

/** Writes the certificate (0644) and the key (0600), each through a temporary file and a rename. */
function writePair(certPath: string, keyPath: string, pair: PemPair): void {
  writeAtomically(keyPath, pair.keyPem, 0o600);
  writeAtomically(certPath, pair.certPem, 0o644);
}

function writeAtomically(path: string, text: string, mode: number): void {
  const tmp = `${path}.${process.pid}.tmp`;
  try {
    writeFileSync(tmp, text, { mode });
    chmodSync(tmp, mode);
    renameSync(tmp, path);
  } catch (error) {
    throw new Error(`cannot write ${path}: ${(error as Error).message}`, { cause: error });
  }
}
