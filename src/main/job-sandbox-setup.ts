/**
 * How `gpushare serve` keeps tenants' jobs apart on its machine (docs/security.md): with the job
 * sandbox when this host has it, else only with `--single-tenant`. Without both, a server refuses
 * a second tenant (at start and when one is created), because tenants' jobs would run as one user
 * and could read each other's files and the admin token.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { homedir } from 'node:os';
import { join, resolve } from 'node:path';
import type { InventoryGpu } from '../app/ports/gpu-inventory.js';
import { createJobSandbox, detectSandbox, type JobSandbox } from '../adapters/process/sandbox.js';
import { openTenantUids } from '../adapters/process/tenant-uids.js';
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
    return { sandbox: null, unsandboxedDetail: detail, maxTenants: null };
  }
  const support = detectSandbox(env.PATH ?? '/usr/bin:/bin', config.sandboxUidRange.first);
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
    return { sandbox: null, unsandboxedDetail: detail, maxTenants: 1 };
  }
  const home = resolve(env.HOME || homedir());
  const hidden = [...new Set([config.dataDir, home, '/root'])].filter((dir) => dir !== '/');
  const simulated = gpus.length > 0 && gpus.every((g) => g.simulated);
  const deviceRoot = config.deviceRoot ?? (simulated ? writeSimulatedDeviceFiles(config.dataDir, gpus) : '/dev');
  const tenantUids = openTenantUids(join(config.dataDir, 'tenant-uids.json'), {
    configured: config.tenantUids,
    range: config.sandboxUidRange,
  });
  logger.info(
    { hidden, deviceRoot },
    `jobs run sandboxed (bubblewrap), each tenant under its own uid from ${config.sandboxUidRange.first}`,
  );
  return {
    sandbox: createJobSandbox({ programs: support.programs, tenantUids, hiddenDirectories: hidden, deviceRoot }),
    unsandboxedDetail: '',
    maxTenants: null,
  };
}
