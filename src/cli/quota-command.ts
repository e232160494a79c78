/**
 * `gpushare quota [list] [-o table|json]`: each tenant's use against its quota (a tenant token sees
 * its own), and `gpushare quota set TENANT --guaranteed G [--limit L|none]` (admin). Quotas are in
 * GPU-equivalents, one = one whole GPU (docs/fair-share.md).
 */
import { Command, Option } from 'commander';
import type { QuotaUseView } from '../adapters/http-client/api-client.js';
import { processIo, type CliIo } from './cli-io.js';
import { addConnectionOptions, connect, type ConnectionFlags } from './connection.js';
import { UsageError } from './exit-codes.js';
import { asArgParser } from './option-parsers.js';
import { formatGpuEquivalents, parseGpuEquivalents } from './parse-quantities.js';
import { formatTextTable } from './text-table.js';
import { escapeControlCharactersDeep, jsonForTerminal } from '../lib/control-characters.js';

interface ListOptions extends ConnectionFlags {
  output: 'table' | 'json';
}

interface SetOptions extends ConnectionFlags {
  guaranteed: number;
  /** `none` = `--limit none`; undefined = not given (also no limit). */
  limit?: number | 'none';
}

/**
 * The `quota` table: TENANT, GUARANTEED, LIMIT (`none` for no limit), USED, BORROWED, QUEUED (all
 * GPU-equivalents) and RUNNING/QUEUED (numbers of jobs, e.g. `2/1`).
 */
export function formatQuotaTable(received: readonly QuotaUseView[]): string {
  const quotas = escapeControlCharactersDeep(received);
  if (quotas.length === 0) return 'no tenants';
  return formatTextTable(
    ['TENANT', 'GUARANTEED', 'LIMIT', 'USED', 'BORROWED', 'QUEUED', 'RUNNING/QUEUED'],
    quotas.map((q) => [
      q.tenant,
      formatGpuEquivalents(q.guaranteedGpuEquivalents),
      formatGpuEquivalents(q.limitGpuEquivalents),
      formatGpuEquivalents(q.usedGpuEquivalents),
      formatGpuEquivalents(q.borrowedGpuEquivalents),
      formatGpuEquivalents(q.queuedGpuEquivalents),
      `${q.runningJobs}/${q.queuedJobs}`,
    ]),
  );
}

/**
 * Builds the `quota` command group: `list` (the default, so `gpushare quota` and
 * `gpushare quota -o json` list) and `set`. `set` without `--limit` sets no limit. The actions
 * reject with UsageError (a limit below the guarantee, exit 2, before calling the server),
 * ApiError (404 unknown tenant, 403 for a tenant token) or ApiUnreachableError.
 * @param io - Output, environment and clock (default: the real process).
 */
export function createQuotaCommand(io: CliIo = processIo()): Command {
  const list = addConnectionOptions(
    new Command('list')
      .description("each tenant's quota and use in GPU-equivalents (the default; a tenant token sees its own)")
      .allowExcessArguments(false)
      .addOption(new Option('-o, --output <format>', 'output format').choices(['table', 'json']).default('table'))
      .action(async (opts: ListOptions) => {
        const quotas = await (await connect(opts, io)).listQuotas();
        io.stdout(opts.output === 'json' ? `${jsonForTerminal(quotas)}\n` : `${formatQuotaTable(quotas)}\n`);
      }),
  );
  const set = addConnectionOptions(
    new Command('set')
      .description("set a tenant's quota in GPU-equivalents (admin); without --limit the tenant has no limit")
      .argument('<tenant>', 'tenant name')
      .allowExcessArguments(false)
      .addOption(
        new Option(
          '--guaranteed <gpu-eq>',
          'GPU-equivalents the tenant is guaranteed (>= 0; 1 = one whole GPU, 0.5 = half)',
        )
          .argParser(asArgParser((t) => parseGpuEquivalents('--guaranteed', t)))
          .makeOptionMandatory(),
      )
      .addOption(
        new Option(
          '--limit <gpu-eq|none>',
          'most GPU-equivalents the tenant may hold, borrowing included (>= --guaranteed), or none (default: none)',
        )
          // Not null for none: commander would take a parser's null for a flag given without a value.
          .argParser(asArgParser((t) => parseGpuEquivalents('--limit', t, true) ?? 'none')),
      )
      .action(async (tenant: string, opts: SetOptions) => {
        const limit = opts.limit === undefined || opts.limit === 'none' ? null : opts.limit;
        if (limit !== null && limit < opts.guaranteed) {
          throw new UsageError(
            `--limit ${formatGpuEquivalents(limit)} is below --guaranteed ` +
              `${formatGpuEquivalents(opts.guaranteed)}; the limit must be at least the guarantee, or none`,
          );
        }
        const updated = await (
          await connect(opts, io)
        ).setQuota(tenant, {
          guaranteedGpuEquivalents: opts.guaranteed,
          limitGpuEquivalents: limit,
        });
        io.stdout(
          `quota of tenant ${escapeControlCharactersDeep(updated.name)}: guaranteed ` +
            `${formatGpuEquivalents(updated.guaranteedGpuEquivalents)}, ` +
            `limit ${formatGpuEquivalents(updated.limitGpuEquivalents)} (GPU-equivalents)\n`,
        );
      }),
  );
  return new Command('quota')
    .description("tenants' GPU quotas and use: list (the default), set")
    .addCommand(list, { isDefault: true })
    .addCommand(set);
}
