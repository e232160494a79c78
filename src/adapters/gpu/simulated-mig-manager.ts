// MigManager for simulated GPUs: the real nvidia-smi MigManager (nvidia-smi-mig-manager.ts), with
// every nvidia-smi command run as a child process of the stand-in (simulated-nvidia-smi-cli.js)
// against a state file. Parsing, ordering, error handling and read-back are the same code as on
// real GPUs; only the program behind the commands differs. See docs/gpus.md.
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import type { MigManager } from '../../app/ports/mig-manager.js';
import { createNvidiaSmiMigManager } from './nvidia-smi-mig-manager.js';
import { runCommand, type RunCommandFn } from './run-command.js';

/** Options of {@link createSimulatedMigManager}. */
export interface SimulatedMigManagerOptions {
  /**
   * The compiled stand-in entry; default the bundle `simulated-nvidia-smi.bundle.js` beside this
   * module (dist/adapters/gpu/, made by `npm run build`), else `simulated-nvidia-smi-cli.js`.
   * Tests running from src/ pass a compiled copy.
   */
  cliPath?: string;
  /** Node binary that runs the entry; default the running one (process.execPath). */
  nodePath?: string;
  /** Limit per command in ms (as for the real manager). */
  timeoutMs?: number;
}

/**
 * Default path of the stand-in entry beside this module: the one-file bundle (starts faster), else the compiled entry.
 */
export function defaultSimulatedNvidiaSmiCliPath(): string {
  const bundle = fileURLToPath(new URL('./simulated-nvidia-smi.bundle.js', import.meta.url));
  return existsSync(bundle) ? bundle : fileURLToPath(new URL('./simulated-nvidia-smi-cli.js', import.meta.url));
}

/**
 * MigManager of the simulated GPUs whose state is in `stateFile` (made with
 * createSimulatedNvidiaSmiState + writeSimulatedNvidiaSmiState, simulated-nvidia-smi.ts). Each
 * nvidia-smi command becomes `node <cliPath> --state <stateFile> -- <args>`.
 */
export function createSimulatedMigManager(stateFile: string, options: SimulatedMigManagerOptions = {}): MigManager {
  const cli = options.cliPath ?? defaultSimulatedNvidiaSmiCliPath();
  const node = options.nodePath ?? process.execPath;
  const execFile: RunCommandFn = (_file, args, opts) =>
    runCommand(node, [cli, '--state', stateFile, '--', ...args], opts);
  return createNvidiaSmiMigManager({
    nvidiaSmiPath: 'nvidia-smi',
    execFile,
    ...(options.timeoutMs === undefined ? {} : { timeoutMs: options.timeoutMs }),
  });
}
