/**
 * Certificates of the server's local certificate authority, made with @peculiar/x509 over Node's
 * WebCrypto: ECDSA P-256 keys, SHA-256 signatures. A CA certificate (self-signed, may sign server
 * certificates only) and server certificates it signs for a list of host names and IP addresses.
 * Keys and certificates are PEM text (keys PKCS #8).
 */
import 'reflect-metadata';
import { isIP } from 'node:net';
import { randomBytes, webcrypto } from 'node:crypto';
import * as x509 from '@peculiar/x509';

// The package types its provider as the DOM's Crypto, which Node's webcrypto implements.
x509.cryptoProvider.set(webcrypto);

const ALGORITHM = { name: 'ECDSA', namedCurve: 'P-256', hash: 'SHA-256' } as const;
const DAY_MS = 86_400_000;

/** A certificate and its private key, both PEM. */
export interface PemPair {
  readonly certPem: string;
  readonly keyPem: string;
}

/** Validity of what {@link createLocalCa} and {@link issueServerCert} make, in days. */
export const CA_VALIDITY_DAYS = 3650;
/** Server certificates live 397 days, the longest a browser accepts of any certificate. */
export const SERVER_CERT_VALIDITY_DAYS = 397;

/** A random positive serial number (16 bytes, hex), as RFC 5280 asks: unique per issuer. */
function serialNumber(): string {
  const bytes = randomBytes(16);
  bytes[0] = bytes[0]! & 0x7f;
  return bytes.toString('hex');
}

async function exportKeyPem(key: webcrypto.CryptoKey): Promise<string> {
  const der = await webcrypto.subtle.exportKey('pkcs8', key);
  return x509.PemConverter.encode(der, 'PRIVATE KEY');
}

/**
 * Makes a new CA: key pair and a self-signed certificate `CN=<commonName>`, valid from an hour
 * before `nowMs` (clock skew) for {@link CA_VALIDITY_DAYS} days, basicConstraints CA:true
 * pathlen 0, keyUsage keyCertSign and cRLSign.
 */
export async function createLocalCa(commonName: string, nowMs: number): Promise<PemPair> {
  const keys = (await webcrypto.subtle.generateKey(ALGORITHM, true, ['sign', 'verify'])) as webcrypto.CryptoKeyPair;
  const cert = await x509.X509CertificateGenerator.createSelfSigned({
    serialNumber: serialNumber(),
    name: [{ CN: [commonName] }],
    notBefore: new Date(nowMs - 3_600_000),
    notAfter: new Date(nowMs + CA_VALIDITY_DAYS * DAY_MS),
    signingAlgorithm: ALGORITHM,
    keys,
    extensions: [
      new x509.BasicConstraintsExtension(true, 0, true),
      new x509.KeyUsagesExtension(x509.KeyUsageFlags.keyCertSign | x509.KeyUsageFlags.cRLSign, true),
      await x509.SubjectKeyIdentifierExtension.create(keys.publicKey),
    ],
  });
  return { certPem: cert.toString('pem'), keyPem: await exportKeyPem(keys.privateKey) };
}

/**
 * Issues a server certificate signed by `ca`: a new key pair, `CN=<first name>`, subjectAltName
 * with every name (IP addresses as IP entries, the rest as DNS entries), extendedKeyUsage
 * serverAuth, valid from an hour before `nowMs` for {@link SERVER_CERT_VALIDITY_DAYS} days.
 * @throws Error when `names` is empty or the CA key is not a P-256 PKCS #8 key
 */
export async function issueServerCert(ca: PemPair, names: readonly string[], nowMs: number): Promise<PemPair> {
  if (names.length === 0) throw new Error('a server certificate needs at least one name');
  const caCert = new x509.X509Certificate(ca.certPem);
  const caKey = await webcrypto.subtle.importKey('pkcs8', x509.PemConverter.decodeFirst(ca.keyPem), ALGORITHM, false, [
    'sign',
  ]);
  const keys = (await webcrypto.subtle.generateKey(ALGORITHM, true, ['sign', 'verify'])) as webcrypto.CryptoKeyPair;
  const cert = await x509.X509CertificateGenerator.create({
    serialNumber: serialNumber(),
    subject: [{ CN: [names[0]!] }],
    issuer: caCert.subject,
    notBefore: new Date(nowMs - 3_600_000),
    notAfter: new Date(nowMs + SERVER_CERT_VALIDITY_DAYS * DAY_MS),
    signingAlgorithm: ALGORITHM,
    publicKey: keys.publicKey,
    signingKey: caKey,
    extensions: [
      new x509.BasicConstraintsExtension(false, undefined, true),
      new x509.KeyUsagesExtension(x509.KeyUsageFlags.digitalSignature, true),
      new x509.ExtendedKeyUsageExtension([x509.ExtendedKeyUsage.serverAuth], false),
      new x509.SubjectAlternativeNameExtension(
        names.map((n) => (isIP(n) ? { type: 'ip' as const, value: n } : { type: 'dns' as const, value: n })),
      ),
      await x509.AuthorityKeyIdentifierExtension.create(caCert, false),
      await x509.SubjectKeyIdentifierExtension.create(keys.publicKey),
    ],
  });
  return { certPem: cert.toString('pem'), keyPem: await exportKeyPem(keys.privateKey) };
}
