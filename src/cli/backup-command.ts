/**
 * `gpushare backup FILE` (admin): the server writes a consistent copy of its state to FILE
 * (a relative FILE is taken from the current folder; the path is on the server's machine). The
 * path is sent as written, `..` included, so that the server's refusal of `..` (400 naming `path`)
 * reaches the user instead of a path the CLI made up.
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
    .argument(
      '<file>',
      'new backup file; a relative path is taken from the current folder; no `..`, no symbolic link a user ' +
        'other than root could have placed',
    )
    .action(async (file: string, opts: ConnectionFlags) => {
      // `..` goes to the server as written (it refuses it); any other path is made absolute and tidy.
      const path = file.split('/').includes('..')
        ? `${file.startsWith('/') ? '' : `${io.cwd().replace(/\/$/, '')}/`}${file}`
        : resolve(io.cwd(), file);
      const result = await (await connect(opts, io)).backup(path);
      io.stdout(`backup written to ${result.path} (${result.bytes} bytes)\n`);
    });
  return addConnectionOptions(command);
}
