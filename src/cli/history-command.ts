/**
 * `gpushare history export [-o FILE] [--since T] [--until T]`: the jobs the server ran and that
 * ended, as a trace file in the simulator's pod-list format (docs/server.md "History as a trace";
 * an admin's token: every tenant's jobs, any other token its own tenant's). To standard output, or
 * written to FILE atomically (never a half-written file). `--since`/`--until` take an ISO 8601 time
 * or a duration back from now (90s, 30m, 1h, 7d) and select by submit time.
 */
import { resolve } from 'node:path';
import { Command, InvalidArgumentError, Option } from 'commander';
import { processIo, type CliIo } from './cli-io.js';
import { addConnectionOptions, connect, type ConnectionFlags } from './connection.js';
import { parseSince } from './option-parsers.js';
import { writeAtomically } from './output-files.js';

interface ExportOptions extends ConnectionFlags {
  output?: string;
  /** ms since the epoch */
  since?: number;
  /** ms since the epoch */
  until?: number;
}

/** Rows of a history export (the lines after its header). */
function rowCount(csv: string): number {
  return Math.max(0, csv.split('\n').filter((line) => line !== '').length - 1);
}

/**
 * Builds the `history` command group (`export`). Its action rejects with ApiError (403 for a job's
 * report token), ApiUnreachableError, or OutputFileError when FILE cannot be written.
 * @param io - Output, environment and clock (default: the real process).
 */
export function createHistoryCommand(io: CliIo = processIo()): Command {
  const epochMs = (text: string): number => {
    const ms = Date.parse(parseSince(text, io.nowMs()));
    // The server takes ms since the epoch from 0.
    if (ms < 0) throw new InvalidArgumentError(`'${text}' is before 1970-01-01T00:00:00Z; expected a later time`);
    return ms;
  };
  const exportCommand = addConnectionOptions(
    new Command('export')
      .description(
        "the jobs that ran and ended, as a trace in the simulator's format (CSV); an admin's token gets every " +
          "tenant's",
      )
      .allowExcessArguments(false)
      .addOption(new Option('-o, --output <file>', 'write to this file (atomically) instead of standard output'))
      .addOption(
        new Option('--since <time>', 'only jobs submitted since an ISO 8601 time or a duration back (7d)').argParser(
          epochMs,
        ),
      )
      .addOption(
        new Option('--until <time>', 'only jobs submitted before an ISO 8601 time or a duration back').argParser(
          epochMs,
        ),
      )
      .action(async (opts: ExportOptions) => {
        const csv = await (
          await connect(opts, io)
        ).exportHistory({
          ...(opts.since === undefined ? {} : { since: opts.since }),
          ...(opts.until === undefined ? {} : { until: opts.until }),
        });
        if (opts.output === undefined) {
          io.stdout(csv);
          return;
        }
        const path = resolve(io.cwd(), opts.output);
        await writeAtomically('--output', path, csv);
        io.stderr(`exported ${rowCount(csv)} jobs to ${path}\n`);
      }),
  );
  return new Command('history').description("the server's history of jobs: export").addCommand(exportCommand);
}
