/**
 * `gpushare node-agent`: the flags, their defaults and checks; the agent itself (src/main/node-agent.ts)
 * is loaded only when the command runs.
 */
import { Command, Option } from 'commander';
import { UsageError } from '../cli/exit-codes.js';
import { DEFAULT_CDI_DIR } from '../adapters/kubernetes/device-plugin/cdi-writer.js';
import { checkSlotsPerGpu, DEFAULT_SLOTS_PER_GPU } from '../adapters/kubernetes/device-plugin/slots.js';
import {
  DEFAULT_DEVICE_PLUGIN_DIR,
  DEFAULT_POD_RESOURCES_SOCKET,
} from '../adapters/kubernetes/device-plugin/wire-types.js';
import { parseSimulatedGpuSpec } from '../adapters/gpu/simulated-gpus.js';
import type { NodeAgentOptions, RunningNodeAgent } from './node-agent.js';

interface NodeAgentFlags {
  nodeName?: string;
  kubeletDir: string;
  podResourcesSocket: string;
  cdiDir: string;
  slotsPerGpu: string;
  simulateGpus?: string;
  kubeconfig?: string;
  mpsDir: string;
  healthIntervalSeconds: string;
  logLevel: string;
}

/** Starts the agent (injected so the command can be tested without one). */
export type StartNodeAgent = (options: NodeAgentOptions) => Promise<RunningNodeAgent>;

const startNodeAgent: StartNodeAgent = async (options) => (await import('./node-agent.js')).startNodeAgent(options);

/**
 * Resolves the flags (`env` supplies NODE_NAME).
 * @throws UsageError naming the flag and the allowed values
 */
export function resolveNodeAgentOptions(flags: NodeAgentFlags, env: NodeJS.ProcessEnv): NodeAgentOptions {
  const nodeName = flags.nodeName ?? env.NODE_NAME;
  if (nodeName === undefined || nodeName === '')
    throw new UsageError('--node-name is required (or set NODE_NAME, e.g. from the downward API spec.nodeName)');
  const slotsPerGpu = Number(flags.slotsPerGpu);
  try {
    checkSlotsPerGpu(slotsPerGpu);
  } catch (error) {
    throw new UsageError(`--slots-per-gpu: ${(error as Error).message}`);
  }
  if (flags.simulateGpus !== undefined) {
    try {
      parseSimulatedGpuSpec(flags.simulateGpus);
    } catch (error) {
      throw new UsageError((error as Error).message);
    }
  }
  const healthIntervalSeconds = Number(flags.healthIntervalSeconds);
  if (!Number.isFinite(healthIntervalSeconds) || healthIntervalSeconds < 1 || healthIntervalSeconds > 3600) {
    throw new UsageError(
      `--health-interval-seconds must be a number from 1 to 3600, got "${flags.healthIntervalSeconds}"`,
    );
  }
  return {
    nodeName,
    kubeletDir: flags.kubeletDir,
    podResourcesSocket: flags.podResourcesSocket,
    cdiDir: flags.cdiDir,
    slotsPerGpu,
    simulateGpus: flags.simulateGpus ?? null,
    kubeconfig: flags.kubeconfig ?? null,
    mpsDir: flags.mpsDir,
    healthIntervalSeconds,
    logLevel: flags.logLevel,
  };
}

/** Builds the `node-agent` command. */
export function createNodeAgentCommand(
  start: StartNodeAgent = startNodeAgent,
  env: NodeJS.ProcessEnv = process.env,
): Command {
  return new Command('node-agent')
    .description(
      'run on a Kubernetes GPU node: publish its GPUs and serve the gpushare.io/gpu-slot device plugin to the kubelet',
    )
    .option('--node-name <name>', "this node's name (default $NODE_NAME)")
    .option('--kubelet-dir <dir>', "the kubelet's device-plugins directory", DEFAULT_DEVICE_PLUGIN_DIR)
    .option('--pod-resources-socket <path>', "the kubelet's PodResources socket", DEFAULT_POD_RESOURCES_SOCKET)
    .option('--cdi-dir <dir>', 'where CDI specs are written', DEFAULT_CDI_DIR)
    .option(
      '--slots-per-gpu <n>',
      'gpushare.io/gpu-slot devices per GPU (GPU pods one GPU may hold), 1-1000',
      String(DEFAULT_SLOTS_PER_GPU),
    )
    .option('--simulate-gpus <spec>', 'simulated GPUs instead of nvidia-smi, COUNTxMODEL[:mig],... e.g. 8xA100-80GB')
    .option('--kubeconfig <file>', 'kubeconfig file (default: in-cluster service account)')
    .option('--mps-dir <dir>', "base directory of the MPS daemons' pipe and log directories", '/run/gpushare/mps')
    .option('--health-interval-seconds <s>', 'GPU health poll interval', '10')
    .addOption(
      new Option('--log-level <level>', 'log level (stderr)')
        .choices(['fatal', 'error', 'warn', 'info', 'debug'])
        .default('info'),
    )
    .action(async (flags: NodeAgentFlags) => {
      const agent = await start(resolveNodeAgentOptions(flags, env));
      await agent.closed;
    });
}
