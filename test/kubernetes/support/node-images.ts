/**
 * The images a real test node runs, built locally (no registry is reachable): the pods' sandbox
 * (`pause`, built by scripts/build-node.sh), busybox (Debian's static busybox, with the applets the
 * tests' pods use) and gpushare itself (this checkout's built `dist/`, `bin/`, `proto/`, its production
 * dependencies, and the Node.js binary running the tests with the shared libraries it links).
 * Each is written as an OCI image tarball (oci-image.ts) for `ctr images import`.
 */
import { execFileSync } from 'node:child_process';
import { copyFileSync, mkdirSync, readFileSync, rmSync, symlinkSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { nodeBinaryPath } from './node-binaries.js';
import { writeOciImage, type ImageRunConfig } from './oci-image.js';

/** The names the images are imported under. */
export const TEST_IMAGES = {
  pause: 'gpushare.local/pause:test',
  busybox: 'gpushare.local/busybox:test',
  gpushare: 'gpushare.local/gpushare:test',
} as const;

/** Busybox applets linked in the busybox image. */
const BUSYBOX_APPLETS = ['sh', '[', 'test', 'env', 'echo', 'cat', 'grep', 'sort', 'sleep', 'ls', 'true', 'printenv'];

const PROJECT_DIR = join(import.meta.dirname, '..', '..', '..');

/** Copies `from` into `to`, as hard links where the file system allows (the files are never written). */
function copyTree(from: string, to: string): void {
  mkdirSync(dirname(to), { recursive: true });
  try {
    execFileSync('cp', ['-al', from, to], { stdio: 'ignore' });
  } catch {
    execFileSync('cp', ['-a', from, to]);
  }
}

/** The shared libraries `binary` loads, by absolute path (from ldd). */
function sharedLibraries(binary: string): string[] {
  const out = execFileSync('ldd', [binary], { encoding: 'utf8' });
  return [...out.matchAll(/(\/\S+) \(0x[0-9a-f]+\)/g)].map((m) => m[1]!);
}

/** The top-level packages of node_modules that production needs (package-lock.json entries without `dev`). */
function productionPackages(): string[] {
  const lock = JSON.parse(readFileSync(join(PROJECT_DIR, 'package-lock.json'), 'utf8')) as {
    packages: Record<string, { dev?: boolean }>;
  };
  const tops = new Set<string>();
  for (const [path, entry] of Object.entries(lock.packages)) {
    if (!path.startsWith('node_modules/') || entry.dev === true) continue;
    const parts = path.slice('node_modules/'.length).split('/');
    tops.add(parts[0]!.startsWith('@') ? `${parts[0]}/${parts[1]}` : parts[0]!);
  }
  return [...tops].sort();
}

function pauseRootfs(root: string): void {
  mkdirSync(root);
  copyFileSync(nodeBinaryPath('pause'), join(root, 'pause'));
}

function busyboxRootfs(root: string): void {
  mkdirSync(join(root, 'bin'), { recursive: true });
  mkdirSync(join(root, 'tmp'));
  copyFileSync(nodeBinaryPath('busybox'), join(root, 'bin', 'busybox'));
  for (const applet of BUSYBOX_APPLETS) symlinkSync('busybox', join(root, 'bin', applet));
}

function gpushareRootfs(root: string): void {
  const node = process.execPath;
  copyTree(node, join(root, 'usr', 'local', 'bin', 'node'));
  const app = join(root, 'app');
  mkdirSync(join(app, 'node_modules'), { recursive: true });
  for (const name of ['package.json', 'bin', 'dist', 'proto']) copyTree(join(PROJECT_DIR, name), join(app, name));
  const packages = productionPackages();
  for (const name of packages) copyTree(join(PROJECT_DIR, 'node_modules', name), join(app, 'node_modules', name));
  const natives = packages.includes('better-sqlite3')
    ? [join(PROJECT_DIR, 'node_modules', 'better-sqlite3', 'build', 'Release', 'better_sqlite3.node')]
    : [];
  for (const library of new Set([node, ...natives].flatMap(sharedLibraries))) {
    const target = join(root, library);
    mkdirSync(dirname(target), { recursive: true });
    copyFileSync(library, target);
  }
  mkdirSync(join(root, 'tmp'));
}

const BUILDERS: Record<keyof typeof TEST_IMAGES, { rootfs: (root: string) => void; run: ImageRunConfig }> = {
  pause: { rootfs: pauseRootfs, run: { Entrypoint: ['/pause'] } },
  busybox: { rootfs: busyboxRootfs, run: { Cmd: ['sh'], Env: ['PATH=/bin'] } },
  gpushare: {
    rootfs: gpushareRootfs,
    run: {
      Entrypoint: ['/usr/local/bin/node', '/app/bin/gpushare'],
      Env: ['PATH=/usr/local/bin:/usr/bin:/bin', 'GPUSHARE_CODE_CACHE=off', 'NODE_ENV=production'],
      WorkingDir: '/app',
    },
  },
};

/**
 * Writes the image `image` (its root file system in `<dir>/rootfs-<image>`) as `<dir>/<image>.tar`
 * and returns that path.
 * @throws Error when a program is missing (scripts/build-node.sh, `npm run build`) or tar fails
 */
export async function buildTestImage(image: keyof typeof TEST_IMAGES, dir: string): Promise<string> {
  const root = join(dir, `rootfs-${image}`);
  const out = join(dir, `${image}.tar`);
  BUILDERS[image].rootfs(root);
  await writeOciImage(TEST_IMAGES[image], root, BUILDERS[image].run, out);
  rmSync(root, { recursive: true, force: true });
  return out;
}
