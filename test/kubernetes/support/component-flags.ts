/**
 * The command lines of the test control plane's components (docs/kubernetes/testing.md has the
 * table of flags and why), and the files of its certificates they read. Paths are under the
 * control plane's folder; every server listens on 127.0.0.1 only.
 *
 * Facts (kubernetes v1.37.2 source): controller names are cmd/kube-controller-manager/names;
 * kube-scheduler ignores --kubeconfig when --config is given (cmd/kube-scheduler/app/options,
 * ApplyTo); kube-apiserver refuses a loopback --advertise-address with the default `lease`
 * endpoint reconciler ("may not be in the loopback range").
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { ControlPlanePki } from './pki.js';

/**
 * The controllers the test controller manager runs (names of kube-controller-manager v1.37
 * `--controllers`): workloads make ReplicaSets and Pods, ServiceAccounts and their tokens and the
 * `kube-root-ca.crt` ConfigMap appear in every namespace, deletions cascade, quotas are counted.
 * Not the node-lifecycle controller: it would mark Nodes without a kubelet NotReady and evict their
 * pods. Starting these takes about 1 s where all controllers (`*`) take about 5 s.
 */
export const TEST_CONTROLLERS: readonly string[] = [
  'deployment-controller',
  'replicaset-controller',
  'statefulset-controller',
  'daemonset-controller',
  'job-controller',
  'cronjob-controller',
  'ttl-after-finished-controller',
  'garbage-collector-controller',
  'namespace-controller',
  'pod-garbage-collector-controller',
  'serviceaccount-controller',
  'serviceaccount-token-controller',
  'root-ca-certificate-publisher-controller',
  'resourcequota-controller',
  'taint-eviction-controller',
];

/** The ClusterRoles the bootstrap RBAC policy binds to each component's user. */
export const BOOTSTRAP_ROLES = {
  'kube-scheduler': ['system:kube-scheduler', 'system:volume-scheduler'],
  'kube-controller-manager': ['system:kube-controller-manager'],
} as const;

/** A component that may run under another identity than the admin. */
export type ControllerName = keyof typeof BOOTSTRAP_ROLES;

/** Files of the certificates in `<dir>/pki`. */
export const PKI_FILES = {
  ca: 'ca.crt',
  servingCert: 'serving.crt',
  servingKey: 'serving.key',
  serviceAccountKey: 'sa.key',
  serviceAccountPublicKey: 'sa.pub',
  kubeletClientCert: 'kubelet-client.crt',
  kubeletClientKey: 'kubelet-client.key',
} as const;

/** Writes the PEM files of `pki` into `pkiDir` (mode 0600). */
export function writePki(pkiDir: string, pki: ControlPlanePki): void {
  mkdirSync(pkiDir, { recursive: true, mode: 0o700 });
  const files: Record<string, string> = {
    [PKI_FILES.ca]: pki.ca.certPem,
    [PKI_FILES.servingCert]: pki.serving.certPem,
    [PKI_FILES.servingKey]: pki.serving.keyPem,
    [PKI_FILES.serviceAccountKey]: pki.serviceAccountKeyPem,
    [PKI_FILES.serviceAccountPublicKey]: pki.serviceAccountPublicKeyPem,
    [PKI_FILES.kubeletClientCert]: pki.kubeletClient.certPem,
    [PKI_FILES.kubeletClientKey]: pki.kubeletClient.keyPem,
  };
  for (const [name, text] of Object.entries(files)) writeFileSync(join(pkiDir, name), text, { mode: 0o600 });
}

/** Serving on 127.0.0.1:`port` with the test's serving certificate. */
function servingArgs(pkiDir: string, port: number): string[] {
  return [
    '--bind-address=127.0.0.1',
    `--secure-port=${port}`,
    `--tls-cert-file=${join(pkiDir, PKI_FILES.servingCert)}`,
    `--tls-private-key-file=${join(pkiDir, PKI_FILES.servingKey)}`,
  ];
}

/**
 * The same for the controller manager and the scheduler, whose health, metrics and configuration
 * (/configz) endpoints then need no authorization: they run without --authentication-kubeconfig and
 * --authorization-kubeconfig, so that they call the API server for nothing but their work.
 */
function componentServingArgs(pkiDir: string, port: number): string[] {
  return [...servingArgs(pkiDir, port), '--authorization-always-allow-paths=/healthz,/readyz,/livez,/metrics,/configz'];
}

/** etcd: one member, data in `dataDir`, client and peer URLs `http://127.0.0.1:PORT`, no fsync. */
export function etcdArgs(dataDir: string, clientUrl: string, peerUrl: string): string[] {
  return [
    '--name=gpushare-test',
    `--data-dir=${dataDir}`,
    `--listen-client-urls=${clientUrl}`,
    `--advertise-client-urls=${clientUrl}`,
    `--listen-peer-urls=${peerUrl}`,
    `--initial-advertise-peer-urls=${peerUrl}`,
    `--initial-cluster=gpushare-test=${peerUrl}`,
    '--unsafe-no-fsync',
    '--log-level=warn',
  ];
}

/** kube-apiserver on `port` over etcd at `etcdUrl`; `extraArgs` last (a repeated flag's last value wins). */
export function apiServerArgs(pkiDir: string, port: number, etcdUrl: string, extraArgs: readonly string[]): string[] {
  return [
    `--etcd-servers=${etcdUrl}`,
    '--advertise-address=127.0.0.1',
    ...servingArgs(pkiDir, port),
    `--cert-dir=${pkiDir}`,
    `--client-ca-file=${join(pkiDir, PKI_FILES.ca)}`,
    // Real test nodes (real-node.ts) accept only client certificates of the test CA.
    `--kubelet-client-certificate=${join(pkiDir, PKI_FILES.kubeletClientCert)}`,
    `--kubelet-client-key=${join(pkiDir, PKI_FILES.kubeletClientKey)}`,
    '--authorization-mode=Node,RBAC',
    '--enable-admission-plugins=MutatingAdmissionWebhook,ValidatingAdmissionWebhook',
    '--service-account-issuer=https://kubernetes.default.svc.cluster.local',
    `--service-account-key-file=${join(pkiDir, PKI_FILES.serviceAccountPublicKey)}`,
    `--service-account-signing-key-file=${join(pkiDir, PKI_FILES.serviceAccountKey)}`,
    '--service-cluster-ip-range=10.96.0.0/16',
    '--endpoint-reconciler-type=none',
    '--allow-privileged=true',
    '--profiling=false',
    '--v=1',
    ...extraArgs,
  ];
}

/**
 * kube-controller-manager on `port` with `kubeconfig` and `controllers`; with an identity other
 * than the admin, each controller uses its own ServiceAccount (as kubeadm runs it).
 */
export function controllerManagerArgs(
  pkiDir: string,
  port: number,
  kubeconfig: string,
  controllers: readonly string[],
  perControllerAccounts: boolean,
): string[] {
  return [
    `--kubeconfig=${kubeconfig}`,
    '--leader-elect=false',
    ...componentServingArgs(pkiDir, port),
    `--controllers=${controllers.join(',')}`,
    `--service-account-private-key-file=${join(pkiDir, PKI_FILES.serviceAccountKey)}`,
    `--root-ca-file=${join(pkiDir, PKI_FILES.ca)}`,
    `--use-service-account-credentials=${perControllerAccounts}`,
    '--v=1',
  ];
}

/**
 * kube-scheduler on `port`: with `configPath` (whose clientConnection.kubeconfig the caller has
 * set) or else with `kubeconfig`; verbosity 2 logs each binding.
 */
export function schedulerArgs(
  pkiDir: string,
  port: number,
  source: { configPath: string } | { kubeconfig: string },
): string[] {
  const config = 'configPath' in source ? `--config=${source.configPath}` : `--kubeconfig=${source.kubeconfig}`;
  return [config, '--leader-elect=false', ...componentServingArgs(pkiDir, port), '--v=2'];
}
