/**
 * `gpushare tenant create NAME` (admin) and `gpushare tenant list [-o table|json]` (with each
 * tenant's quota; `gpushare quota` adds its use).
 */
import { Command, Option } from 'commander';
import { processIo, type CliIo } from './cli-io.js';
import { addConnectionOptions, connect, type ConnectionFlags } from './connection.js';
import type { TenantView } from '../adapters/http-client/api-client.js';
import { formatGpuEquivalents } from './parse-quantities.js';
import { formatTextTable } from './text-table.js';
import { escapeControlCharactersDeep, jsonForTerminal } from '../lib/control-characters.js';

interface ListOptions extends ConnectionFlags {
  output: 'table' | 'json';
}

/**
 * The `tenant list` table: NAME, GUARANTEED, LIMIT (GPU-equivalents; `none` for no limit), UID (its
 * jobs' uid in the sandbox; `-` without one), CREATED.
 */
export function formatTenantsTable(received: readonly TenantView[]): string {
  const tenants = escapeControlCharactersDeep(received);
  if (tenants.length === 0) return 'no tenants';
  return formatTextTable(['NAME', 'GUARANTEED', 'LIMIT', 'UID', 'CREATED'], tenants.map((t) => [
    t.name, formatGpuEquivalents(t.guaranteedGpuEquivalents), formatGpuEquivalents(t.limitGpuEquivalents), t.unixUid === null ? '-' : String(t.unixUid), t.createdAt,
  ]));
}

/**
 * Builds the `tenant` command group. Its actions reject with ApiError (400 for a bad or taken
 * name, 403 for a tenant token) or ApiUnreachableError.
 * @param io - Output, environment and clock (default: the real process).
 */
export function createTenantCommand(io: CliIo = processIo()): Command {
  const create = addConnectionOptions(new Command('create')
    .description('create a tenant (admin); then give it a token with `gpushare token create --tenant NAME`')
    .argument('<name>', 'tenant name: lower-case letters, digits and -, 1-63 characters')
    .action(async (name: string, opts: ConnectionFlags) => {
      const tenant = escapeControlCharactersDeep(await connect(opts, io).createTenant(name));
      io.stdout(`created tenant ${tenant.name}${tenant.unixUid === null ? '' : ` (its jobs run as uid ${tenant.unixUid})`}\n`);
    }));
  const list = addConnectionOptions(new Command('list')
    .description('list tenants with their quotas (GPU-equivalents; `gpushare quota` shows use)')
    .allowExcessArguments(false)
    .addOption(new Option('-o, --output <format>', 'output format').choices(['table', 'json']).default('table'))
    .action(async (opts: ListOptions) => {
      const tenants = await connect(opts, io).listTenants();
      io.stdout(opts.output === 'json'
        ? `${jsonForTerminal(tenants)}\n`
        : `${formatTenantsTable(tenants)}\n`);
    }));
  return new Command('tenant').description('manage tenants: create, list (quotas: `gpushare quota`)').addCommand(create).addCommand(list);
}
