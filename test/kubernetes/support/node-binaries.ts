/**
 * Where the programs of a real test node live: the folder scripts/build-node.sh builds into,
 * `${GPUSHARE_NODE_DIR:-~/.cache/gpushare/node/v1.37.2}` (kubelet, containerd, its runc shim, ctr,
 * pause, runc and busybox in `bin/`; the CNI plugins in `cni/`), and whether they are all there
 * (the tests are skipped when one is missing, and fail under `GPUSHARE_REQUIRE_TOOLS=1`).
 */
import { homedir } from 'node:os';
import { join } from 'node:path';
import { requireTool } from '../../support/required-tool.js';
import { KUBERNETES_VERSION } from './binaries.js';

/** The programs in `bin/`. */
export const NODE_BINARIES = [
  'kubelet',
  'containerd',
  'containerd-shim-runc-v2',
  'ctr',
  'runc',
  'pause',
  'busybox',
] as const;

/** One of {@link NODE_BINARIES}. */
export type NodeBinary = (typeof NODE_BINARIES)[number];

/** The CNI plugins the node's network configuration uses, in `cni/`. */
export const CNI_PLUGINS = ['bridge', 'host-local', 'loopback'] as const;

/** The folder of the built node programs: `GPUSHARE_NODE_DIR`, else the build script's default. */
export function nodeDir(env: NodeJS.ProcessEnv = process.env): string {
  const configured = env.GPUSHARE_NODE_DIR;
  return configured !== undefined && configured !== ''
    ? configured
    : join(homedir(), '.cache', 'gpushare', 'node', KUBERNETES_VERSION);
}

/** Absolute path of one program in `<nodeDir>/bin`. */
export function nodeBinaryPath(name: NodeBinary, env: NodeJS.ProcessEnv = process.env): string {
  return join(nodeDir(env), 'bin', name);
}

/** The folder of the CNI plugins. */
export function cniBinDir(env: NodeJS.ProcessEnv = process.env): string {
  return join(nodeDir(env), 'cni');
}

/**
 * Whether a real node can run here, for `describe.skipIf(!realNodeAvailable())`: every program is
 * built and the test runs as root (the kubelet and containerd need it). False, with one line on
 * stderr naming what is missing; throws instead when `GPUSHARE_REQUIRE_TOOLS=1`.
 */
export function realNodeAvailable(env: NodeJS.ProcessEnv = process.env): boolean {
  if (process.getuid?.() !== 0) {
    if (env.GPUSHARE_REQUIRE_TOOLS === '1') throw new Error('a real test node needs root (the kubelet and containerd)');
    process.stderr.write('skipped: a real test node needs root (the kubelet and containerd)\n');
    return false;
  }
  return (
    NODE_BINARIES.every((name) => requireTool(nodeBinaryPath(name, env), 'scripts/build-node.sh', env)) &&
    CNI_PLUGINS.every((name) => requireTool(join(cniBinDir(env), name), 'scripts/build-node.sh', env))
  );
}
