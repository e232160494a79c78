/**
 * All commands that talk to a running gpushare server (the client side of `gpushare serve`), in
 * the order `gpushare --help` lists them. Each is loaded only when it runs, so a client call
 * imports only what it uses (in the bundle, each is a file of its own: scripts/bundle.mjs).
 */
import type { Command } from 'commander';
import type { CliIo } from './cli-io.js';
import { throwOnExit } from './option-parsers.js';

/** A client command by name, loaded on demand. */
export interface ClientCommandEntry {
  readonly name: string;
  /** Imports the command's module and builds the command for `io`. */
  readonly load: (io: CliIo) => Promise<Command>;
}

/** The client commands, in help order. */
export const CLIENT_COMMANDS: readonly ClientCommandEntry[] = [
  { name: 'submit', load: async (io) => (await import('./submit-command.js')).createSubmitCommand(io) },
  { name: 'jobs', load: async (io) => (await import('./jobs-command.js')).createJobsCommand(io) },
  { name: 'show', load: async (io) => (await import('./show-command.js')).createShowCommand(io) },
  { name: 'cancel', load: async (io) => (await import('./cancel-command.js')).createCancelCommand(io) },
  { name: 'logs', load: async (io) => (await import('./logs-command.js')).createLogsCommand(io) },
  { name: 'gpus', load: async (io) => (await import('./gpus-command.js')).createGpusCommand(io) },
  { name: 'gpu', load: async (io) => (await import('./gpu-command.js')).createGpuCommand(io) },
  { name: 'tenant', load: async (io) => (await import('./tenant-command.js')).createTenantCommand(io) },
  { name: 'quota', load: async (io) => (await import('./quota-command.js')).createQuotaCommand(io) },
  { name: 'token', load: async (io) => (await import('./token-command.js')).createTokenCommand(io) },
  { name: 'history', load: async (io) => (await import('./history-command.js')).createHistoryCommand(io) },
  { name: 'report', load: async (io) => (await import('./report.js')).createReportCommand(io) },
  { name: 'drain', load: async (io) => (await import('./drain-command.js')).createDrainCommand(io) },
  { name: 'backup', load: async (io) => (await import('./backup-command.js')).createBackupCommand(io) },
  { name: 'status', load: async (io) => (await import('./status-command.js')).createStatusCommand(io) },
  { name: 'what-if', load: async (io) => (await import('./what-if-command.js')).createWhatIfCommand(io) },
];

/**
 * Builds client commands (all, or those named in `names`). Each (and each subcommand) throws
 * instead of exiting on usage errors.
 * @param io - Output, environment and clock shared by all of them.
 * @returns Fresh commands, in help order; add them to the root program.
 */
export async function createClientCommands(io: CliIo, names?: ReadonlySet<string>): Promise<Command[]> {
  const wanted = CLIENT_COMMANDS.filter((c) => names === undefined || names.has(c.name));
  return (await Promise.all(wanted.map((c) => c.load(io)))).map(throwOnExit);
}
