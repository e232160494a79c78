/**
 * The commands that run gpushare itself on this machine rather than call a server: `simulate`,
 * `synth-trace`, `pack-by-use`, `serve`, and the Kubernetes components `extender`, `webhook`,
 * `node-agent`, `dra-driver` and `autoscaler`, wired to their implementations. Loaded only when one of them runs
 * (the client commands never pay for the server, the store or the simulator), and the server
 * itself only when `serve` runs.
 */
import type { Command } from 'commander';
import type { LinearProgramSolver } from '../lib/linear-program.js';
import { parseSimulatedGpuSpec } from '../adapters/gpu/simulated-gpus.js';
import { createPackByUseCommand } from '../cli/pack-by-use-command.js';
import { createServeCommand } from '../cli/serve-command.js';
import { createSimulateCommand } from '../cli/simulate-command.js';
import { createSynthTraceCommand } from '../cli/synth-trace-command.js';
import { createAutoscalerCommand } from './autoscaler-command.js';
import { createExtenderCommand } from './extender-command.js';
import { createDraDriverCommand } from './dra-driver-command.js';
import { createNodeAgentCommand } from './node-agent-command.js';
import type { StartServer } from '../cli/serve-command.js';
import { createWebhookCommand } from './webhook-command.js';

/** Loads HiGHS for `simulate --bound`, only when the bound is computed. */
const loadLinearProgramSolver = async (): Promise<LinearProgramSolver> =>
  (await import('../adapters/lp-solver/highs-solver.js')).loadHighsSolver();

/** Starts the server, loading it (Fastify, SQLite, the control plane) only when `serve` runs. */
const startServer: StartServer = async (config, options) => (await import('./serve.js')).startServer(config, options);

/** Names of the commands built here. */
export const SERVER_COMMAND_NAMES = [
  'simulate',
  'synth-trace',
  'pack-by-use',
  'serve',
  'extender',
  'webhook',
  'node-agent',
  'dra-driver',
  'autoscaler',
] as const;

/** Builds the commands named in `names` (all by default), in help order. */
export function createServerCommands(version: string, names?: ReadonlySet<string>): Command[] {
  const all: [string, () => Command][] = [
    ['simulate', () => createSimulateCommand(loadLinearProgramSolver)],
    ['synth-trace', () => createSynthTraceCommand()],
    ['pack-by-use', () => createPackByUseCommand()],
    ['serve', () => createServeCommand(version, startServer, (spec) => void parseSimulatedGpuSpec(spec))],
    ['extender', () => createExtenderCommand(version)],
    ['webhook', () => createWebhookCommand()],
    ['node-agent', () => createNodeAgentCommand()],
    ['dra-driver', () => createDraDriverCommand()],
    ['autoscaler', () => createAutoscalerCommand(version)],
  ];
  return all.filter(([name]) => names === undefined || names.has(name)).map(([, create]) => create());
}
