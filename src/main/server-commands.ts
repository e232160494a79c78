/**
 * The commands that run gpushare itself on this machine rather than call a server: `simulate`,
 * `synth-trace`, `pack-by-use`, `serve`, and the Kubernetes components `extender`, `webhook`,
 * `node-agent`, `dra-driver` and `autoscaler`, wired to their implementations. Loaded only when one of them runs
 * (the client commands never pay for the server, the store or the simulator), and the server
 * itself only when `serve` runs.
 */
import { existsSync } from 'node:fs';
import { createRequire } from 'node:module';
import type { Command } from 'commander';
import type { LinearProgramSolver } from '../lib/linear-program.js';
import type { StartServer } from '../cli/serve-command.js';

/** Loads HiGHS for `simulate --bound`, only when the bound is computed. */
const loadLinearProgramSolver = async (): Promise<LinearProgramSolver> =>
  (await import('../adapters/lp-solver/highs-solver.js')).loadHighsSolver();

/**
 * The server's module, loaded only when `serve` runs: the bundle `serve.cjs` beside this file
 * (dist/main/, made by `npm run build`: scripts/bundle.mjs), else `serve.js` (the compiled module,
 * or the source under vitest).
 */
async function loadServer(): Promise<typeof import('./serve.js')> {
  if (existsSync(new URL('./serve.cjs', import.meta.url)))
    return createRequire(import.meta.url)('./serve.cjs') as typeof import('./serve.js');
  return import('./serve.js');
}

/** Starts the server, loading it (Fastify, SQLite, the control plane) only when `serve` runs. */
const startServer: StartServer = async (config, options) => (await loadServer()).startServer(config, options);

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

/**
 * Builds the commands named in `names` (all by default), in help order. Each command's module is
 * imported only when that command is built: `simulate` does not load the Kubernetes client that
 * `extender` needs, nor `serve` the simulator.
 */
export async function createServerCommands(version: string, names?: ReadonlySet<string>): Promise<Command[]> {
  const all: [string, () => Promise<Command>][] = [
    [
      'simulate',
      async () => (await import('../cli/simulate-command.js')).createSimulateCommand(loadLinearProgramSolver),
    ],
    ['synth-trace', async () => (await import('../cli/synth-trace-command.js')).createSynthTraceCommand()],
    ['pack-by-use', async () => (await import('../cli/pack-by-use-command.js')).createPackByUseCommand()],
    [
      'serve',
      async () => {
        const [{ createServeCommand }, { parseSimulatedGpuSpec }] = await Promise.all([
          import('../cli/serve-command.js'),
          import('../adapters/gpu/simulated-gpus.js'),
        ]);
        return createServeCommand(version, startServer, (spec) => void parseSimulatedGpuSpec(spec));
      },
    ],
    ['extender', async () => (await import('./extender-command.js')).createExtenderCommand(version)],
    ['webhook', async () => (await import('./webhook-command.js')).createWebhookCommand()],
    ['node-agent', async () => (await import('./node-agent-command.js')).createNodeAgentCommand()],
    ['dra-driver', async () => (await import('./dra-driver-command.js')).createDraDriverCommand()],
    ['autoscaler', async () => (await import('./autoscaler-command.js')).createAutoscalerCommand(version)],
  ];
  const wanted = all.filter(([name]) => names === undefined || names.has(name));
  return Promise.all(wanted.map(([, create]) => create()));
}
