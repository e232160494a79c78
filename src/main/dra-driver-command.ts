/**
 * `gpushare dra-driver`: the flags, their defaults and checks; the driver itself
 * (src/main/dra-driver.ts) is loaded only when the command runs.
 */
import { isAbsolute } from 'node:path';
import { Command, Option } from 'commander';
import { UsageError } from '../cli/exit-codes.js';
import { DEFAULT_CDI_DIR } from '../adapters/kubernetes/device-plugin/cdi-writer.js';
import { DEFAULT_KUBELET_DIR } from '../adapters/kubernetes/dra/kubelet-plugin.js';
import { parseSimulatedGpuSpec } from '../adapters/gpu/simulated-gpus.js';
import type { DraDriverOptions, RunningDraDriver } from './dra-driver.js';

/** Where the driver keeps its checkpoint by default. */
export const DEFAULT_DRA_STATE_DIR = '/var/lib/gpushare/dra';

interface DraDriverFlags {
  nodeName?: string;
  kubeletDir: string;
  cdiDir: string;
  stateDir: string;
  simulateGpus?: string;
  kubeconfig?: string;
  mpsDir: string;
  healthIntervalSeconds: string;
  logLevel: string;
}

/** Starts the driver (injected so the command can be tested without one). */
export type StartDraDriver = (options: DraDriverOptions) => Promise<RunningDraDriver>;

const startDraDriver: StartDraDriver = async (options) => (await import('./dra-driver.js')).startDraDriver(options);

function absolute(flag: string, value: string): string {
  if (value === '' || !isAbsolute(value)) throw new UsageError(`${flag} must be an absolute path, got "${value}"`);
  return value;
}

/**
 * Resolves the flags (`env` supplies NODE_NAME).
 * @throws UsageError naming the flag and the allowed values
 */
export function resolveDraDriverOptions(flags: DraDriverFlags, env: NodeJS.ProcessEnv): DraDriverOptions {
  const nodeName = flags.nodeName ?? env.NODE_NAME;
  if (nodeName === undefined || nodeName === '')
    throw new UsageError('--node-name is required (or set NODE_NAME, e.g. from the downward API spec.nodeName)');
  if (flags.simulateGpus !== undefined) {
    try {
      parseSimulatedGpuSpec(flags.simulateGpus);
    } catch (error) {
      throw new UsageError((error as Error).message);
    }
  }
  const healthIntervalSeconds = Number(flags.healthIntervalSeconds);
  if (!Number.isFinite(healthIntervalSeconds) || healthIntervalSeconds < 1 || healthIntervalSeconds > 3600)
    throw new UsageError(
      `--health-interval-seconds must be a number from 1 to 3600, got "${flags.healthIntervalSeconds}"`,
    );
  return {
    nodeName,
    kubeletDir: absolute('--kubelet-dir', flags.kubeletDir),
    cdiDir: absolute('--cdi-dir', flags.cdiDir),
    stateDir: absolute('--state-dir', flags.stateDir),
    simulateGpus: flags.simulateGpus ?? null,
    kubeconfig: flags.kubeconfig ?? null,
    mpsDir: absolute('--mps-dir', flags.mpsDir),
    healthIntervalSeconds,
    logLevel: flags.logLevel,
  };
}

/** Builds the `dra-driver` command. */
export function createDraDriverCommand(
  start: StartDraDriver = startDraDriver,
  env: NodeJS.ProcessEnv = process.env,
): Command {
  return new Command('dra-driver')
    .description(
      'run on a Kubernetes GPU node served by DRA: publish its GPUs as ResourceSlices of gpu.gpushare.io and ' +
        'prepare ResourceClaims for the kubelet',
    )
    .option('--node-name <name>', "this node's name (default $NODE_NAME)")
    .option('--kubelet-dir <dir>', "the kubelet's root directory (plugins_registry/, plugins/)", DEFAULT_KUBELET_DIR)
    .option('--cdi-dir <dir>', 'where CDI specs are written', DEFAULT_CDI_DIR)
    .option('--state-dir <dir>', 'where the checkpoint of prepared claims is kept', DEFAULT_DRA_STATE_DIR)
    .option('--simulate-gpus <spec>', 'simulated GPUs instead of nvidia-smi, COUNTxMODEL[:mig],... e.g. 8xA100-80GB')
    .option('--kubeconfig <file>', 'kubeconfig file (default: in-cluster service account)')
    .option('--mps-dir <dir>', "base directory of the MPS daemons' pipe and log directories", '/run/gpushare/mps')
    .option('--health-interval-seconds <s>', 'GPU health poll interval', '10')
    .addOption(
      new Option('--log-level <level>', 'log level (stderr)')
        .choices(['fatal', 'error', 'warn', 'info', 'debug'])
        .default('info'),
    )
    .action(async (flags: DraDriverFlags) => {
      const driver = await start(resolveDraDriverOptions(flags, env));
      await driver.closed;
    });
}
