/**
 * `gpushare jobs [--all] [--state S[,S]] [--tenant T] [--name PATTERN] [--since TIME|DURATION]
 * [--fields f1,f2] [--limit N] [--page-size N] [-o table|json]`: lists the caller's jobs (every
 * tenant's for an admin); without `--all` or `--state` only jobs that have not finished. Fetches
 * the listing in pages of the most a page may hold (`GET /api/v1/jobs?limit=5000&after=`, or
 * `--page-size`), so a listing of up to 5,000 jobs is one request, asking for no more than it
 * prints (`--limit`); prints each page as it arrives (job-list-output.ts): the first page before
 * anything more is asked for; later pages while the next one is on its way.
 */
import { Command, InvalidArgumentError, Option } from 'commander';
import { JOB_STATES, type JobState } from '../core/index.js';
import { JOB_FIELDS, MAX_JOB_PAGE, type JobField } from '../contract/job-fields.js';
import type { JobPage } from '../contract/job-list.js';
import { processIo, type CliIo } from './cli-io.js';
import { addConnectionOptions, connect, type ConnectionFlags } from './connection.js';
import { jsonWriter, TABLE_FIELDS, tableWriter } from './job-list-output.js';
import { parseSince } from './option-parsers.js';

/** Jobs per request unless `--page-size` says otherwise: the most one page may hold. */
export const DEFAULT_PAGE_SIZE = MAX_JOB_PAGE;

interface JobsOptions extends ConnectionFlags {
  all?: boolean;
  state?: JobState[];
  tenant?: string;
  name?: string;
  since?: string;
  fields?: JobField[];
  limit?: number;
  pageSize: number;
  output: 'table' | 'json';
}

/** A commander parser of a comma-separated list of `allowed` names, naming the flag and the allowed values. */
function listOf<T extends string>(flag: string, allowed: readonly T[]): (text: string) => T[] {
  return (text) => {
    const items = text.split(',').map((s) => s.trim());
    const unknown = items.filter((item) => !(allowed as readonly string[]).includes(item));
    if (unknown.length > 0)
      throw new InvalidArgumentError(
        `${flag} takes one or more of ${allowed.join(', ')}, comma-separated; got ` +
          `${unknown.map((u) => `'${u}'`).join(', ')}`,
      );
    return [...new Set(items)] as T[];
  };
}

/** A commander parser of a whole number from `min` to `max`. */
function wholeNumber(flag: string, min: number, max: number): (text: string) => number {
  return (text) => {
    const value = Number(text);
    if (!/^\d+$/.test(text.trim()) || !Number.isSafeInteger(value) || value < min || value > max)
      throw new InvalidArgumentError(`${flag} takes a whole number from ${min} to ${max}, got '${text}'`);
    return value;
  };
}

/**
 * Builds the `jobs` subcommand. `-o json` prints exactly a JSON array of jobs (as the API's
 * JobSchema, or only `--fields`). The action rejects with ApiError / ApiUnreachableError / UsageError.
 * @param io - Output, environment and clock (default: the real process).
 */
export function createJobsCommand(io: CliIo = processIo()): Command {
  const command = new Command('jobs')
    .description('list jobs, a page at a time: the table, or -o json for a JSON array')
    .allowExcessArguments(false)
    .addOption(new Option('--all', 'include finished jobs (succeeded, failed, cancelled)'))
    .addOption(
      new Option('--state <states>', `only jobs in these states (comma-separated: ${JOB_STATES.join(', ')})`).argParser(
        listOf('--state', JOB_STATES),
      ),
    )
    .addOption(new Option('--tenant <tenant>', "only this tenant's jobs (a tenant's token sees only its own)"))
    .addOption(new Option('--name <pattern>', 'only jobs whose whole name matches; * matches any run of characters'))
    .addOption(
      new Option(
        '--since <time>',
        'only jobs submitted at or after an ISO 8601 time, or a duration back from now (90s, 30m, 1h, 7d)',
      ).argParser((text) => parseSince(text, io.nowMs())),
    )
    .addOption(
      new Option(
        '--fields <fields>',
        `only these fields, id always (comma-separated: ${JOB_FIELDS.join(', ')})`,
      ).argParser(listOf('--fields', JOB_FIELDS)),
    )
    .addOption(
      new Option('--limit <n>', 'print at most N jobs').argParser(wholeNumber('--limit', 1, Number.MAX_SAFE_INTEGER)),
    )
    .addOption(
      new Option('--page-size <n>', `jobs per request (1-${MAX_JOB_PAGE}), each page printed as it arrives`)
        .argParser(wholeNumber('--page-size', 1, MAX_JOB_PAGE))
        .default(DEFAULT_PAGE_SIZE),
    )
    .addOption(new Option('-o, --output <format>', 'output format').choices(['table', 'json']).default('table'))
    .action(async (opts: JobsOptions) => {
      const since = opts.since; // an ISO time already (parseSince)
      const client = await connect(opts, io);
      const fields =
        opts.fields === undefined ? undefined : JOB_FIELDS.filter((f) => f === 'id' || opts.fields!.includes(f));
      const writer = opts.output === 'json' ? jsonWriter(io.stdout) : tableWriter(fields, io.nowMs(), io.stdout);
      // The table needs only its own fields; JSON gets every field unless --fields chooses.
      const asked = fields ?? (opts.output === 'table' ? TABLE_FIELDS : undefined);
      const ask = (after: number | undefined, limit: number): Promise<JobPage> => {
        const page = client.listJobsPage({
          all: opts.all === true || opts.state !== undefined,
          ...(opts.state === undefined ? {} : { states: opts.state }),
          ...(opts.tenant === undefined ? {} : { tenant: opts.tenant }),
          ...(opts.name === undefined ? {} : { name: opts.name }),
          ...(since === undefined ? {} : { since }),
          ...(asked === undefined ? {} : { fields: asked }),
          limit,
          ...(after === undefined ? {} : { after }),
        });
        page.catch(() => undefined); // awaited below; a page left unread when printing fails is no unhandled rejection
        return page;
      };
      let left = opts.limit ?? Number.POSITIVE_INFINITY;
      let after: number | undefined;
      let next: Promise<JobPage> | null = ask(undefined, Math.min(opts.pageSize, left));
      // The first page is printed before the second is asked for; from then on the next page is
      // asked for while the current one is printed. Ids only grow, so the loop ends.
      for (let pageNumber = 1; next !== null; pageNumber++) {
        const page: JobPage = await next;
        next = null;
        left -= page.jobs.length;
        const more = page.nextAfter !== null && left > 0 && page.nextAfter > (after ?? -1);
        after = page.nextAfter ?? after;
        if (more && pageNumber > 1) next = ask(after, Math.min(opts.pageSize, left));
        writer.page(page.jobs, more);
        if (more && pageNumber === 1) next = ask(after, Math.min(opts.pageSize, left));
      }
      writer.end();
    });
  return addConnectionOptions(command);
}
