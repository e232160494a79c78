/**
 * `gpushare backup FILE` (admin): the server writes a consistent copy of its state to FILE
 * (resolved against the current folder; the path is on the server's machine).
 */
import { resolve } from 'node:path';
import { Command } from 'commander';
import { processIo, type CliIo } from './cli-io.js';
import { addConnectionOptions, connect, type ConnectionFlags } from './connection.js';

/**
 * Builds the `backup` subcommand. Its action rejects with ApiError (e.g. 403 for a tenant token,
 * or the server cannot write there) or ApiUnreachableError.
 * @param io - Output, environment and clock (default: the real process).
 */
export function createBackupCommand(io: CliIo = processIo()): Command {
  const command = new Command('backup')
    .description("write a backup of the server's state to FILE (admin; FILE is on the server's machine)")
    .argument('<file>', 'backup file; a relative path is taken from the current folder')
    .action(async (file: string, opts: ConnectionFlags) => {
      const result = await (await connect(opts, io)).backup(resolve(io.cwd(), file));
      io.stdout(`backup written to ${result.path} (${result.bytes} bytes)\n`);
    });
  return addConnectionOptions(command);
}
