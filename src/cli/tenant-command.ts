/**
 * `gpushare tenant create NAME` (admin), `gpushare tenant list [-o table|json]` (with each
 * tenant's quota and highest priority class; `gpushare quota` adds its use) and
 * `gpushare tenant set-limits NAME [--max-priority CLASS] [--requests-per-second N|default]
 * [--request-burst N|default] [--event-streams N|default]` (admin; docs/security.md).
 */
import { Command, InvalidArgumentError, Option } from 'commander';
import type { SetTenantLimits } from '../contract/api.js';
import { UsageError } from './exit-codes.js';
import { processIo, type CliIo } from './cli-io.js';
import { addConnectionOptions, connect, type ConnectionFlags } from './connection.js';
import type { TenantView } from '../adapters/http-client/api-client.js';
import { formatGpuEquivalents } from './parse-quantities.js';
import { formatTextTable } from './text-table.js';
import { escapeControlCharactersDeep, jsonForTerminal } from '../lib/control-characters.js';

interface ListOptions extends ConnectionFlags {
  output: 'table' | 'json';
}

interface SetLimitsOptions extends ConnectionFlags {
  maxPriority?: 'low' | 'normal' | 'high' | 'critical';
  /** 'default' = back to the server's default. */
  requestsPerSecond?: number | 'default';
  requestBurst?: number | 'default';
  eventStreams?: number | 'default';
}

/**
 * A parser of `--FLAG N|default`: a number in [min, max] (whole when `integer`), or `default`.
 * @throws InvalidArgumentError naming the flag, the value and what is allowed
 */
export function limitParser(
  flag: string,
  min: number,
  max: number,
  integer: boolean,
): (text: string) => number | 'default' {
  return (text) => {
    if (text.trim() === 'default') return 'default';
    const value = /^\d+(\.\d+)?$/.test(text.trim()) ? Number(text) : Number.NaN;
    if (!(value >= min && value <= max) || (integer && !Number.isInteger(value))) {
      throw new InvalidArgumentError(
        `${flag} must be ${integer ? 'a whole number' : 'a number'} from ${min} to ${max}, or default ` +
          `(the server's), got '${text}'`,
      );
    }
    return value;
  };
}

/**
 * The limits as the CLI prints them: `max priority high, 20 requests/s (burst 40), 4 event streams per token`,
 * `default` for the server's.
 */
export function describeTenantLimits(t: TenantView): string {
  const or = (v: number | null): string => (v === null ? 'default' : String(v));
  return (
    `max priority ${t.maxPriorityClass}, requests/s per token ${or(t.requestsPerSecond)} (burst ` +
    `${or(t.requestBurst)}), event streams per token ${or(t.eventStreamsPerToken)}`
  );
}

/**
 * The `tenant list` table: NAME, GUARANTEED, LIMIT (GPU-equivalents; `none` for no limit), MAX
 * PRIORITY (highest priority class), UID (its jobs' uid in the sandbox; `-` without one), CREATED.
 */
export function formatTenantsTable(received: readonly TenantView[]): string {
  const tenants = escapeControlCharactersDeep(received);
  if (tenants.length === 0) return 'no tenants';
  return formatTextTable(
    ['NAME', 'GUARANTEED', 'LIMIT', 'MAX PRIORITY', 'UID', 'CREATED'],
    tenants.map((t) => [
      t.name,
      formatGpuEquivalents(t.guaranteedGpuEquivalents),
      formatGpuEquivalents(t.limitGpuEquivalents),
      t.maxPriorityClass,
      t.unixUid === null ? '-' : String(t.unixUid),
      t.createdAt,
    ]),
  );
}

/**
 * Builds the `tenant` command group. Its actions reject with ApiError (400 for a bad or taken
 * name, 403 for a tenant token) or ApiUnreachableError.
 * @param io - Output, environment and clock (default: the real process).
 */
export function createTenantCommand(io: CliIo = processIo()): Command {
  const create = addConnectionOptions(
    new Command('create')
      .description('create a tenant (admin); then give it a token with `gpushare token create --tenant NAME`')
      .argument('<name>', 'tenant name: lower-case letters, digits and -, 1-63 characters')
      .action(async (name: string, opts: ConnectionFlags) => {
        const tenant = escapeControlCharactersDeep(await (await connect(opts, io)).createTenant(name));
        io.stdout(
          `created tenant ${tenant.name}${tenant.unixUid === null ? '' : ` (its jobs run as uid ${tenant.unixUid})`}\n`,
        );
      }),
  );
  const list = addConnectionOptions(
    new Command('list')
      .description('list tenants with their quotas (GPU-equivalents; `gpushare quota` shows use)')
      .allowExcessArguments(false)
      .addOption(new Option('-o, --output <format>', 'output format').choices(['table', 'json']).default('table'))
      .action(async (opts: ListOptions) => {
        const tenants = await (await connect(opts, io)).listTenants();
        io.stdout(opts.output === 'json' ? `${jsonForTerminal(tenants)}\n` : `${formatTenantsTable(tenants)}\n`);
      }),
  );
  const setLimits = addConnectionOptions(
    new Command('set-limits')
      .description(
        "set a tenant's highest priority class and its tokens' request and event-stream limits (admin); " +
          'flags not given keep their value',
      )
      .argument('<name>', 'tenant name')
      .allowExcessArguments(false)
      .addOption(
        new Option(
          '--max-priority <class>',
          'highest priority class its tokens may submit at (new tenants: normal)',
        ).choices(['low', 'normal', 'high', 'critical']),
      )
      .addOption(
        new Option('--requests-per-second <n|default>', 'requests per second each of its tokens may make').argParser(
          limitParser('--requests-per-second', 0.001, 100_000, false),
        ),
      )
      .addOption(
        new Option(
          '--request-burst <n|default>',
          'requests each of its tokens may make at once above the rate',
        ).argParser(limitParser('--request-burst', 1, 100_000, true)),
      )
      .addOption(
        new Option('--event-streams <n|default>', 'event streams each of its tokens may hold open').argParser(
          limitParser('--event-streams', 0, 1000, true),
        ),
      )
      .action(async (name: string, opts: SetLimitsOptions) => {
        const orNull = (v: number | 'default' | undefined): number | null | undefined => (v === 'default' ? null : v);
        const change: SetTenantLimits = {
          ...(opts.maxPriority === undefined ? {} : { maxPriorityClass: opts.maxPriority }),
          ...(opts.requestsPerSecond === undefined ? {} : { requestsPerSecond: orNull(opts.requestsPerSecond) }),
          ...(opts.requestBurst === undefined ? {} : { requestBurst: orNull(opts.requestBurst) }),
          ...(opts.eventStreams === undefined ? {} : { eventStreamsPerToken: orNull(opts.eventStreams) }),
        };
        if (Object.keys(change).length === 0)
          throw new UsageError(
            'tenant set-limits: give at least one of --max-priority, --requests-per-second, ' +
              '--request-burst, --event-streams',
          );
        const updated = await (await connect(opts, io)).setTenantLimits(name, change);
        io.stdout(`limits of tenant ${updated.name}: ${describeTenantLimits(updated)}\n`);
      }),
  );
  return new Command('tenant')
    .description('manage tenants: create, list, set-limits (quotas: `gpushare quota`)')
    .addCommand(create)
    .addCommand(list)
    .addCommand(setLimits);
}
