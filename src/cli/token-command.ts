/**
 * `gpushare token create --tenant T [--label L]` (admin): a new API token for a tenant, printed
 * alone on the last line (the server shows it only once).
 */
import { Command, Option } from 'commander';
import { processIo, type CliIo } from './cli-io.js';
import { addConnectionOptions, connect, type ConnectionFlags } from './connection.js';
import { escapeControlCharactersDeep } from '../lib/control-characters.js';

interface CreateOptions extends ConnectionFlags {
  tenant: string;
  label?: string;
}

/**
 * Builds the `token` command group with `create`. Its action rejects with ApiError (400 for an
 * unknown tenant, 403 for a tenant token) or ApiUnreachableError.
 * @param io - Output, environment and clock (default: the real process).
 */
export function createTokenCommand(io: CliIo = processIo()): Command {
  const create = addConnectionOptions(new Command('create')
    .description('create an API token for a tenant (admin); the token is printed alone on the last line')
    .allowExcessArguments(false)
    .addOption(new Option('--tenant <tenant>', 'the tenant the token acts for').makeOptionMandatory())
    .addOption(new Option('--label <label>', 'a note to tell tokens apart (e.g. who has it)'))
    .action(async (opts: CreateOptions) => {
      const token = escapeControlCharactersDeep(await connect(opts, io).createToken({ tenant: opts.tenant, label: opts.label }));
      io.stdout(`created token ${token.id} for tenant ${token.tenant}${token.label ? ` (${token.label})` : ''}; it is shown only this once:\n${token.token}\n`);
    }));
  return new Command('token').description('manage API tokens: create').addCommand(create);
}
