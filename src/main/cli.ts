/**
 * Composition root of the `gpushare` command line: builds the commander program and runs it.
 * bin/gpushare imports this module from dist/ and calls {@link main}.
 */
import { readFileSync } from 'node:fs';
import { Command } from 'commander';
import { createClientCommands } from '../cli/client-commands.js';
import { handleCliError } from '../cli/exit-codes.js';
import { createSimulateCommand } from '../cli/simulate-command.js';
import { createSynthTraceCommand } from '../cli/synth-trace-command.js';
import { createServeCommand } from '../cli/serve-command.js';

/** The package version, read from package.json (two levels above src/main and dist/main). */
function packageVersion(): string {
  const pkg = JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as { version?: unknown };
  return typeof pkg.version === 'string' ? pkg.version : '0.0.0';
}

/**
 * Builds the `gpushare` program with its subcommands. Commander's process exits are turned into
 * thrown CommanderErrors so that {@link main} decides the exit code.
 * @returns A fresh program; run it with `parseAsync`.
 */
export function createProgram(): Command {
  const program = new Command('gpushare')
    .description('GPU-sharing scheduler toolkit: fractional GPUs, fragmentation-aware scheduling, trace-driven simulator')
    .version(packageVersion(), '-V, --version')
    .addCommand(createSimulateCommand())
    .addCommand(createSynthTraceCommand())
    .addCommand(createServeCommand(packageVersion()));
  for (const command of createClientCommands()) program.addCommand(command);
  program.exitOverride();
  for (const command of program.commands) command.exitOverride();
  return program;
}

/**
 * Runs the command line.
 * @param argv - Full argv as in `process.argv` (node, script, then arguments).
 * @returns The exit code: 0 success, 1 failed run (bad trace file, I/O), 2 usage error; see exit-codes.ts.
 *   Never throws: errors are reported on stderr.
 */
export async function main(argv: readonly string[] = process.argv): Promise<number> {
  try {
    await createProgram().parseAsync([...argv]);
    return 0;
  } catch (err) {
    return handleCliError(err);
  }
}
