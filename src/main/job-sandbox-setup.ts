/**
 * How `gpushare serve` keeps tenants' jobs apart on its machine (docs/security.md): with the job
 * sandbox when this host has it, else only with `--single-tenant`. Without both, a server refuses
 * a second tenant (at start and when one is created), because tenants' jobs would run as one user
 * and could read each other's files and the admin token.
 */
import { mkdirSync, statSync, writeFileSync } from 'node:fs';
import { homedir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import type { InventoryGpu } from '../app/ports/gpu-inventory.js';
import { createJobSandbox, detectSandbox, type JobSandbox } from '../adapters/process/sandbox.js';
import { openTenantUids } from '../adapters/process/tenant-uids.js';
import { JOB_FOLDER_MODE, TRAVERSABLE_FOLDER_MODE } from '../adapters/process/job-files.js';
import { openJobFoldersToTenants } from './private-files.js';
import type { ServerConfig } from '../config/server-config.js';

/** The subset of a pino logger used here. */
interface SetupLogger {
  info(obj: object, msg?: string): void;
  warn(obj: object, msg?: string): void;
}

/** What the server runs jobs with. */
export interface JobIsolationSetup {
  /** The sandbox, or null when jobs run as the server's user. */
  readonly sandbox: JobSandbox | null;
  /** Without a sandbox: why (for `status` and the log). */
  readonly unsandboxedDetail: string;
  /** Most tenants the server may have (the `default` tenant counts), null for no limit. */
  readonly maxTenants: number | null;
  /** Mode of `jobs/` and of new job folders: 0711 for a user-namespace sandbox, else 0700. */
  readonly jobFolderMode: number;
}

/**
 * Stand-in device files for simulated GPUs, `<dataDir>/simulated-dev/nvidiaN` (one per GPU, by
 * minor number) and the control nodes, so that a sandboxed job shows which device nodes it was
 * given exactly as on a real host. Returns the folder.
 */
export function writeSimulatedDeviceFiles(dataDir: string, gpus: readonly InventoryGpu[]): string {
  const root = join(dataDir, 'simulated-dev');
  mkdirSync(root, { recursive: true, mode: 0o755 });
  const names = [
    ...gpus.map((g) => `nvidia${g.deviceMinor ?? g.index}`),
    'nvidiactl',
    'nvidia-uvm',
    'nvidia-uvm-tools',
  ];
  for (const name of names) writeFileSync(join(root, name), '', { mode: 0o666 });
  return root;
}

/** The nearest existing folder above `path` that others may not pass through (no `x` for others), or null. */
function folderClosedToOthersAbove(path: string): string | null {
  for (let dir = dirname(resolve(path)); ; dir = dirname(dir)) {
    try {
      if ((statSync(dir).mode & 0o001) === 0) return dir;
    } catch {
      // not there yet: the data directory is made below it
    }
    if (dir === '/') return null;
  }
}

/**
 * Decides how jobs run. `--single-tenant`: no sandbox, warned. Else the sandbox when
 * {@link detectSandbox} finds it, with the data directory, the server's HOME and /root hidden.
 * Else no sandbox and at most one tenant. Throws when the store already has more tenants than that
 * allows, naming them and the two ways out.
 */
export function setUpJobIsolation(
  config: ServerConfig,
  env: Readonly<Record<string, string | undefined>>,
  gpus: readonly InventoryGpu[],
  tenantNames: readonly string[],
  logger: SetupLogger,
): JobIsolationSetup {
  if (config.singleTenant) {
    const detail = "single-tenant: jobs run as the server's own user without a sandbox (--single-tenant)";
    logger.warn(
      {},
      `--single-tenant: jobs run as this server's user (uid ${process.getuid?.() ?? '?'}) without a ` +
        `sandbox; every tenant's jobs can read every other's files, the store and the admin token`,
    );
    return { sandbox: null, unsandboxedDetail: detail, maxTenants: null, jobFolderMode: JOB_FOLDER_MODE };
  }
  // A sandbox under the tenant's uid binds job folders from the data directory: every folder above
  // it must let others pass (not so under /root, whose mode stays the owner's business).
  const closedAbove = folderClosedToOthersAbove(config.dataDir);
  const support = detectSandbox(env.PATH ?? '/usr/bin:/bin', config.sandboxUidRange.first, closedAbove === null);
  if (!support.available) {
    const detail = `no sandbox (${support.reason}): one tenant only; --single-tenant allows more without isolation`;
    if (tenantNames.length > 1) {
      throw new Error(
        `this data directory has ${tenantNames.length} tenants (${tenantNames.join(', ')}), but jobs ` +
          `cannot be sandboxed here: ${support.reason}. Install bubblewrap and run the server as root, or ` +
          `pass --single-tenant if every tenant trusts every other`,
      );
    }
    logger.warn(
      {},
      `jobs cannot be sandboxed (${support.reason}): this server accepts one tenant only; --single-tenant ` +
        `lifts that without isolating tenants`,
    );
    return { sandbox: null, unsandboxedDetail: detail, maxTenants: 1, jobFolderMode: JOB_FOLDER_MODE };
  }
  const home = resolve(env.HOME || homedir());
  const hidden = [...new Set([config.dataDir, home, '/root'])].filter((dir) => dir !== '/');
  const simulated = gpus.length > 0 && gpus.every((g) => g.simulated);
  const deviceRoot = config.deviceRoot ?? (simulated ? writeSimulatedDeviceFiles(config.dataDir, gpus) : '/dev');
  const tenantUids = openTenantUids(join(config.dataDir, 'tenant-uids.json'), {
    configured: config.tenantUids,
    range: config.sandboxUidRange,
  });
  const userNamespace = support.chain === 'user-namespace';
  if (userNamespace) {
    const opened = openJobFoldersToTenants(config.dataDir);
    if (opened.length > 0)
      logger.info(
        { changed: opened },
        'data directory: job folders made passable (0711) for sandboxes that run under the tenant uids; ' +
          'its files stay private',
      );
  }
  if (closedAbove !== null)
    logger.warn(
      { closedAbove },
      `jobs' sandboxes start as root (bubblewrap, then setpriv): others cannot pass ${closedAbove} above the ` +
        `data directory, so a sandbox under a tenant's uid could not reach the job folders; a data directory ` +
        `elsewhere (e.g. /var/lib/gpushare) starts sandboxes under the tenant's uid, with fewer programs`,
    );
  logger.info(
    { hidden, deviceRoot, chain: support.chain },
    `jobs run sandboxed (bubblewrap${userNamespace ? ' in a user namespace' : ', then setpriv'}), each tenant ` +
      `under its own uid from ${config.sandboxUidRange.first}`,
  );
  return {
    sandbox: createJobSandbox({
      programs: support.programs,
      chain: support.chain,
      tenantUids,
      hiddenDirectories: hidden,
      deviceRoot,
    }),
    unsandboxedDetail: '',
    maxTenants: null,
    jobFolderMode: userNamespace ? TRAVERSABLE_FOLDER_MODE : JOB_FOLDER_MODE,
  };
}
