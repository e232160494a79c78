/**
 * `gpushare cancel`: cancels jobs (docs/cli.md "cancel").
 *
 * - `gpushare cancel ID`: one job, through `POST /jobs/:id/cancel`. A pending job is cancelled at
 *   once; a running one is stopped by the server after it answered. A finished job is an error.
 * - `gpushare cancel ID... | --state S[,S] --tenant T --name PATTERN --since TIME|DURATION
 *   [--reason TEXT] [--dry-run] [-o table|json]`: many jobs in one call (`POST /jobs/cancel`);
 *   selectors combine with AND. Exits {@link EXIT_CANCEL_SKIPPED} when some named ids were skipped.
 */
import { Command, InvalidArgumentError, Option } from 'commander';
import type { JobView } from '../contract/api.js';
import { BULK_CANCEL_SELECTORS, CANCELLABLE_STATES, type BulkCancelInput } from '../contract/bulk-cancel.js';
import type { JobState } from '../core/index.js';
import { jsonForTerminal } from '../lib/control-characters.js';
import { processIo, type CliIo } from './cli-io.js';
import { addConnectionOptions, connect, type ConnectionFlags } from './connection.js';
import { ExitWithCode, UsageError } from './exit-codes.js';
import { formatBulkCancel } from './format-bulk-cancel.js';
import { parseJobId } from './option-parsers.js';
import { parseSince } from './option-parsers.js';

/** Exit status of `cancel` when some ids it named were skipped (not found, not allowed, already ended, not matched). */
export const EXIT_CANCEL_SKIPPED = 4;

interface CancelOptions extends ConnectionFlags {
  state?: JobState[];
  tenant?: string;
  name?: string;
  since?: string;
  reason?: string;
  dryRun?: boolean;
  output?: 'table' | 'json';
}

/**
 * The line `cancel ID` prints for the server's answer: `cancelled job N` when the job is already
 * cancelled, else `job N: cancel requested (it is being stopped)` (the server answers at once and
 * stops a running job afterwards).
 */
export function formatCancelResult(job: Pick<JobView, 'id' | 'state'>): string {
  return job.state === 'cancelled'
    ? `cancelled job ${job.id}`
    : `job ${job.id}: cancel requested (it is being stopped)`;
}

/**
 * `--state pending,preempted`: a comma list of cancellable states. @throws InvalidArgumentError naming the allowed ones
 */
export function parseCancelStates(text: string): JobState[] {
  const states = text.split(',').map((s) => s.trim());
  const bad = states.filter((s) => !(CANCELLABLE_STATES as readonly string[]).includes(s));
  if (states.length === 0 || bad.length > 0)
    throw new InvalidArgumentError(
      `'${text}': ${bad.map((b) => `'${b}'`).join(', ') || 'no state'} is not a state a job can be ` +
        `cancelled in (allowed: ${CANCELLABLE_STATES.join(', ')})`,
    );
  return [...new Set(states as JobState[])];
}

/** `--since` as an ISO time. @throws UsageError (exit 2) naming the flag and the accepted forms */
function sinceOption(text: string, nowMs: number): string {
  try {
    return parseSince(text, nowMs);
  } catch (error) {
    throw new UsageError(`--since: ${(error as Error).message}`);
  }
}

/**
 * Builds the `cancel` subcommand (see the module comment). One id without flags prints
 * {@link formatCancelResult}, as it always has; anything else prints {@link formatBulkCancel} or,
 * with `-o json`, the API's answer.
 * @param io - Output, environment and clock (default: the real process).
 */
export function createCancelCommand(io: CliIo = processIo()): Command {
  const command = new Command('cancel')
    .description(
      'cancel jobs: by id (one or several), or every job a selector names (a running job is stopped; ' +
        '`gpushare show ID` tells when it has ended)',
    )
    .argument('[id...]', 'job ids', (value: string, previous: number[] | undefined) => [
      ...(previous ?? []),
      parseJobId(value),
    ])
    .addOption(
      new Option(
        '--state <states>',
        `only jobs in these states, comma-separated (${CANCELLABLE_STATES.join(', ')})`,
      ).argParser(parseCancelStates),
    )
    .addOption(new Option('--tenant <tenant>', "only this tenant's jobs"))
    .addOption(
      new Option('--name <pattern>', 'only jobs whose whole name matches; * matches any run of characters (quote it)'),
    )
    .addOption(
      new Option(
        '--since <time>',
        'only jobs submitted at or after an ISO 8601 time, or a duration back from now (90s, 30m, 1h, 7d)',
      ),
    )
    .addOption(new Option('--reason <text>', 'why: each job\'s reason becomes "cancelled by <who>: <text>"'))
    .addOption(new Option('--dry-run', 'show what would be cancelled; change nothing'))
    .addOption(new Option('-o, --output <format>', 'output format of a bulk cancel').choices(['table', 'json']))
    .action(async (ids: number[] | undefined, opts: CancelOptions) => {
      const client = await connect(opts, io);
      const flags =
        opts.state !== undefined ||
        opts.tenant !== undefined ||
        opts.name !== undefined ||
        opts.since !== undefined ||
        opts.reason !== undefined ||
        opts.dryRun === true ||
        opts.output !== undefined;
      if (ids?.length === 1 && !flags) {
        io.stdout(`${formatCancelResult(await client.cancelJob(ids[0]!))}\n`);
        return;
      }
      const body: BulkCancelInput = {
        ...(ids === undefined || ids.length === 0 ? {} : { ids: [...new Set(ids)] }),
        ...(opts.state === undefined ? {} : { state: opts.state }),
        ...(opts.tenant === undefined ? {} : { tenant: opts.tenant }),
        ...(opts.name === undefined ? {} : { name: opts.name }),
        ...(opts.since === undefined ? {} : { since: sinceOption(opts.since, io.nowMs()) }),
        ...(opts.reason === undefined ? {} : { reason: opts.reason }),
        ...(opts.dryRun === true ? { dryRun: true } : {}),
      };
      if (BULK_CANCEL_SELECTORS.every((field) => body[field] === undefined)) {
        throw new UsageError(
          'cancel: name job ids or at least one of --state, --tenant, --name, --since (nothing cancels every job)',
        );
      }
      const result = await client.cancelJobs(body);
      io.stdout(opts.output === 'json' ? `${jsonForTerminal(result)}\n` : `${formatBulkCancel(result)}\n`);
      if (result.skipped.length > 0) throw new ExitWithCode(EXIT_CANCEL_SKIPPED);
    });
  return addConnectionOptions(command);
}
