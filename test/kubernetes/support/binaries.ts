/**
 * Where the Kubernetes components the tests run live: the folder scripts/build-kubernetes.sh
 * builds into, `${GPUSHARE_KUBERNETES_DIR:-~/.cache/gpushare/kubernetes/v1.37.2}`, and whether
 * they are all there (the suite is skipped when one is missing, and fails under
 * `GPUSHARE_REQUIRE_TOOLS=1`).
 */
import { homedir } from 'node:os';
import { join } from 'node:path';
import { requireTool } from '../../support/required-tool.js';

/** The Kubernetes release the tests run (kube-apiserver, kube-controller-manager, kube-scheduler, kubectl). */
export const KUBERNETES_VERSION = 'v1.37.2';

/** The programs a control plane needs. */
export const KUBERNETES_BINARIES = [
  'etcd',
  'kube-apiserver',
  'kube-controller-manager',
  'kube-scheduler',
  'kubectl',
] as const;

/** One of {@link KUBERNETES_BINARIES}. */
export type KubernetesBinary = (typeof KUBERNETES_BINARIES)[number];

/** The folder of the built components: `GPUSHARE_KUBERNETES_DIR`, else the build script's default. */
export function kubernetesDir(env: NodeJS.ProcessEnv = process.env): string {
  const configured = env.GPUSHARE_KUBERNETES_DIR;
  return configured !== undefined && configured !== ''
    ? configured
    : join(homedir(), '.cache', 'gpushare', 'kubernetes', KUBERNETES_VERSION);
}

/** Absolute path of one component in {@link kubernetesDir}. */
export function binaryPath(name: KubernetesBinary, env: NodeJS.ProcessEnv = process.env): string {
  return join(kubernetesDir(env), name);
}

/**
 * Whether every component is built, for `describe.skipIf(!kubernetesAvailable())`: false (with one
 * line on stderr naming the first missing program and the build command) when one is missing;
 * throws instead when `GPUSHARE_REQUIRE_TOOLS=1` (see test/support/required-tool.ts).
 */
export function kubernetesAvailable(env: NodeJS.ProcessEnv = process.env): boolean {
  return KUBERNETES_BINARIES.every((name) => requireTool(binaryPath(name, env), 'scripts/build-kubernetes.sh', env));
}
