/**
 * The certificates and keys of a test control plane, made with @peculiar/x509 (ECDSA P-256,
 * SHA-256): one CA that signs everything, a serving certificate for 127.0.0.1 and localhost (the
 * API server, the controller manager and the scheduler all serve with it, so a client trusts the
 * one CA), client certificates (the admin in group `system:masters`; the scheduler and controller
 * manager under the user names the bootstrap RBAC policy binds, as kubeadm issues them), and the
 * service-account signing key pair.
 *
 * Facts: kube-apiserver maps a client certificate's CN to the user name and each O to a group
 * (k8s.io/apiserver pkg/authentication/request/x509, CommonNameUserConversion); group
 * `system:masters` bypasses authorization; the bootstrap ClusterRoleBindings `system:kube-scheduler`
 * and `system:kube-controller-manager` name users of the same names
 * (plugin/pkg/auth/authorizer/rbac/bootstrappolicy/policy.go).
 */
import 'reflect-metadata';
import { randomBytes, webcrypto } from 'node:crypto';
import * as x509 from '@peculiar/x509';
import { createLocalCa, issueServerCert, type PemPair } from '../../../src/adapters/tls/local-ca.js';

x509.cryptoProvider.set(webcrypto);

const ALGORITHM = { name: 'ECDSA', namedCurve: 'P-256', hash: 'SHA-256' } as const;
const DAY_MS = 86_400_000;

/** Everything a control plane's components and clients need, PEM. */
export interface ControlPlanePki {
  readonly ca: PemPair;
  /** Serving certificate for `127.0.0.1` and `localhost`. */
  readonly serving: PemPair;
  /** Client certificate `CN=gpushare-test-admin, O=system:masters`. */
  readonly admin: PemPair;
  /** Client certificate `CN=system:kube-scheduler`. */
  readonly scheduler: PemPair;
  /** Client certificate `CN=system:kube-controller-manager`. */
  readonly controllerManager: PemPair;
  /** kube-apiserver's client certificate for kubelets (logs, exec): `CN=kube-apiserver-kubelet-client`. */
  readonly kubeletClient: PemPair;
  /** Service-account token signing key (PKCS #8) and its public key (SPKI). */
  readonly serviceAccountKeyPem: string;
  readonly serviceAccountPublicKeyPem: string;
}

function serialNumber(): string {
  const bytes = randomBytes(16);
  bytes[0] = bytes[0]! & 0x7f;
  return bytes.toString('hex');
}

/**
 * Issues a client certificate signed by `ca`: `CN=<commonName>` and one `O=` per group,
 * extendedKeyUsage clientAuth, valid from an hour before `nowMs` for 30 days.
 */
export async function issueClientCert(
  ca: PemPair,
  commonName: string,
  groups: readonly string[],
  nowMs: number,
): Promise<PemPair> {
  const caCert = new x509.X509Certificate(ca.certPem);
  const caKey = await webcrypto.subtle.importKey('pkcs8', x509.PemConverter.decodeFirst(ca.keyPem), ALGORITHM, false, [
    'sign',
  ]);
  const keys = (await webcrypto.subtle.generateKey(ALGORITHM, true, ['sign', 'verify'])) as webcrypto.CryptoKeyPair;
  const cert = await x509.X509CertificateGenerator.create({
    serialNumber: serialNumber(),
    subject: [{ CN: [commonName] }, ...groups.map((group) => ({ O: [group] }))],
    issuer: caCert.subject,
    notBefore: new Date(nowMs - 3_600_000),
    notAfter: new Date(nowMs + 30 * DAY_MS),
    signingAlgorithm: ALGORITHM,
    publicKey: keys.publicKey,
    signingKey: caKey,
    extensions: [
      new x509.BasicConstraintsExtension(false, undefined, true),
      new x509.KeyUsagesExtension(x509.KeyUsageFlags.digitalSignature, true),
      new x509.ExtendedKeyUsageExtension([x509.ExtendedKeyUsage.clientAuth], false),
      await x509.AuthorityKeyIdentifierExtension.create(caCert, false),
    ],
  });
  const der = await webcrypto.subtle.exportKey('pkcs8', keys.privateKey);
  return { certPem: cert.toString('pem'), keyPem: x509.PemConverter.encode(der, 'PRIVATE KEY') };
}

/** Makes a new {@link ControlPlanePki} (about 20 ms). */
export async function createControlPlanePki(nowMs: number): Promise<ControlPlanePki> {
  const ca = await createLocalCa('gpushare-test-kubernetes-ca', nowMs);
  const [serving, admin, scheduler, controllerManager, kubeletClient, saKeys] = await Promise.all([
    issueServerCert(ca, ['127.0.0.1', 'localhost'], nowMs),
    issueClientCert(ca, 'gpushare-test-admin', ['system:masters'], nowMs),
    issueClientCert(ca, 'system:kube-scheduler', [], nowMs),
    issueClientCert(ca, 'system:kube-controller-manager', [], nowMs),
    issueClientCert(ca, 'kube-apiserver-kubelet-client', [], nowMs),
    webcrypto.subtle.generateKey(ALGORITHM, true, ['sign', 'verify']) as Promise<webcrypto.CryptoKeyPair>,
  ]);
  const privateDer = await webcrypto.subtle.exportKey('pkcs8', saKeys.privateKey);
  const publicDer = await webcrypto.subtle.exportKey('spki', saKeys.publicKey);
  return {
    ca,
    serving,
    admin,
    scheduler,
    controllerManager,
    kubeletClient,
    serviceAccountKeyPem: x509.PemConverter.encode(privateDer, 'PRIVATE KEY'),
    serviceAccountPublicKeyPem: x509.PemConverter.encode(publicDer, 'PUBLIC KEY'),
  };
}
