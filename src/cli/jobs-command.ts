/**
 * `gpushare jobs [--all] [--state S[,S]] [--tenant T] [--name PATTERN] [--since TIME|DURATION]
 * [--fields f1,f2] [--limit N] [--page-size N] [-o table|json]`: lists the caller's jobs (every
 * tenant's for an admin); without `--all` or `--state` only jobs that have not finished. Fetches
 * the listing in pages of the most a page may hold (`GET /api/v1/jobs?limit=5000&after=`, or
 * `--page-size`), so a listing of up to 5,000 jobs is one request, asking for no more than it
 * prints (`--limit`): the table's rows as the server writes them (`view=table`), the `--fields`
 * fields, or for `-o json` the jobs. Prints each page as it arrives (job-list-output.ts): the
 * first page before anything more is asked for; later pages while the next one is on its way.
 */
import { Command, InvalidArgumentError, Option } from 'commander';
import { JOB_STATES, type JobState } from '../core/index.js';
import { JOB_FIELDS, MAX_JOB_PAGE, type JobField } from '../contract/job-fields.js';
import { JOB_TABLE_COLUMNS, jobTableRow, TABLE_FIELDS, type TableJob } from '../contract/job-table.js';
import type { JobPageQuery } from '../adapters/http-client/api-client.js';
import { processIo, type CliIo } from './cli-io.js';
import { addConnectionOptions, connect, type ConnectionFlags } from './connection.js';
import { fieldCells, jsonWriter, tableWriter, type PageWriter } from './job-list-output.js';
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
 * True for the answer of a server older than `view=table` to it: 400, GPUSHARE_INVALID_FIELD, about
 * the query parameter `view` (its query schema is strict). Errors are told by name (exit-codes.ts).
 */
function refusesTableView(err: unknown): boolean {
  if (!(err instanceof Error) || err.name !== 'ApiError') return false;
  const { status, code } = err as Error & { status?: number; code?: string };
  return status === 400 && code === 'GPUSHARE_INVALID_FIELD' && /'view'/.test(err.message);
}

/** What one request of a listing asks for: the page size, and the cursor after the first page. */
interface PageRequest {
  readonly limit: number;
  readonly after?: number;
}

/**
 * Asks for pages and prints them until the listing ends or `bounds.limit` items are printed. The
 * first page is printed before the second is asked for; from then on the next page is asked for
 * while the current one is printed. Ids only grow, so the loop ends.
 * @param bounds - `limit`: items to print at most (Infinity: all); `pageSize`: items per request
 * @param ask - one request
 * @param items - a page's items to print
 * @param writerFor - the writer, made from the first page (the table's columns come with it)
 */
async function printPages<Page extends { readonly nextAfter: number | null }, Item>(
  bounds: { readonly limit: number; readonly pageSize: number },
  ask: (request: PageRequest) => Promise<Page>,
  items: (page: Page) => readonly Item[],
  writerFor: (first: Page) => PageWriter<Item>,
): Promise<void> {
  const request = (after: number | undefined, limit: number): Promise<Page> => {
    const page = ask({ limit, ...(after === undefined ? {} : { after }) });
    page.catch(() => undefined); // awaited below; a page left unread when printing fails is no unhandled rejection
    return page;
  };
  let left = bounds.limit;
  let after: number | undefined;
  let writer: PageWriter<Item> | null = null;
  let next: Promise<Page> | null = request(undefined, Math.min(bounds.pageSize, left));
  for (let pageNumber = 1; next !== null; pageNumber++) {
    const page: Page = await next;
    next = null;
    const printed = items(page);
    left -= printed.length;
    const more = page.nextAfter !== null && left > 0 && page.nextAfter > (after ?? -1);
    after = page.nextAfter ?? after;
    if (more && pageNumber > 1) next = request(after, Math.min(bounds.pageSize, left));
    writer ??= writerFor(page);
    writer.page(printed, more);
    if (more && pageNumber === 1) next = request(after, Math.min(bounds.pageSize, left));
  }
  writer?.end();
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
      const selectors: JobPageQuery = {
        all: opts.all === true || opts.state !== undefined,
        ...(opts.state === undefined ? {} : { states: opts.state }),
        ...(opts.tenant === undefined ? {} : { tenant: opts.tenant }),
        ...(opts.name === undefined ? {} : { name: opts.name }),
        ...(since === undefined ? {} : { since }),
      };
      const bounds = { limit: opts.limit ?? Number.POSITIVE_INFINITY, pageSize: opts.pageSize };
      if (opts.output === 'json') {
        // Every field unless --fields chooses.
        const ask = (page: PageRequest) =>
          client.listJobsPage({ ...selectors, ...(fields === undefined ? {} : { fields }), ...page });
        await printPages(
          bounds,
          ask,
          (page) => page.jobs,
          () => jsonWriter(io.stdout),
        );
      } else if (fields !== undefined) {
        const ask = (page: PageRequest) => client.listJobsPage({ ...selectors, fields, ...page });
        const cells = fieldCells(fields);
        await printPages(
          bounds,
          ask,
          (page) => page.jobs.map(cells),
          () => tableWriter(fields, io.stdout),
        );
      } else {
        // The server writes the table's rows (view=table): the listing carries only the text printed.
        const ask = (page: PageRequest) => client.listJobTablePage({ ...selectors, ...page });
        let printing = false;
        try {
          await printPages(
            bounds,
            ask,
            (page) => page.rows,
            (first) => {
              printing = true;
              return tableWriter(first.columns, io.stdout);
            },
          );
        } catch (err) {
          // Only a refusal of the first request: once a page is printed, a later failure is one.
          if (printing || !refusesTableView(err)) throw err;
          // A server older than view=table refuses it at the first request, before anything is
          // printed: the table is written here from the jobs' fields, by the same function.
          const nowMs = io.nowMs();
          const askJobs = (page: PageRequest) => client.listJobsPage({ ...selectors, fields: TABLE_FIELDS, ...page });
          await printPages(
            bounds,
            askJobs,
            (page) => page.jobs.map((job) => jobTableRow(job as TableJob, nowMs)),
            () => tableWriter(JOB_TABLE_COLUMNS, io.stdout),
          );
        }
      }
    });
  return addConnectionOptions(command);
}
