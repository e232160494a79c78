/**
 * `gpushare logs ID [-f] [--stderr] [--attempt N]`: prints a job's output; `-f` keeps following it
 * until the job has ended and everything was read.
 */
import { Command, Option } from 'commander';
import type { ApiClient } from '../adapters/http-client/api-client.js';
import { isTerminal } from '../core/index.js';
import { processIo, type CliIo } from './cli-io.js';
import { addConnectionOptions, connect, type ConnectionFlags } from './connection.js';
import { asArgParser, parseJobId } from './option-parsers.js';
import { parseIntegerInRange } from './parse-quantities.js';

/** How long `-f` waits before asking again when no new text came, in milliseconds. */
export const FOLLOW_POLL_MS = 500;

interface LogsOptions extends ConnectionFlags {
  follow?: boolean;
  stderr?: boolean;
  attempt?: number;
}

/** What to read and where output goes. */
export interface LogsRequest {
  readonly id: number;
  readonly stream: 'stdout' | 'stderr';
  /** A fixed attempt; undefined = the latest, switching to a newer one when the job is retried. */
  readonly attempt?: number;
  readonly follow: boolean;
}

/**
 * Copies a job's log to `io.stdout`. Without `follow`, reads what is there now and returns. With
 * `follow`, polls every {@link FOLLOW_POLL_MS} ms until everything was read and the attempt has
 * ended (a fixed `attempt`) or the job is terminal (the latest attempt). Following the latest
 * attempt, a retry is noticed: the rest of the old attempt is read, a note goes to stderr, and the
 * new attempt is read from its start. When the log is empty because the job has not started yet,
 * a note says so on stderr.
 */
export async function copyLogs(client: ApiClient, request: LogsRequest, io: CliIo): Promise<void> {
  const { id, stream } = request;
  let attempt = request.attempt;
  let offset = 0;
  let first = true;
  while (true) {
    const chunk = await client.getLogs(id, { stream, attempt: request.attempt, offset });
    if (first && chunk.text === '' && offset === 0) await noteNotStarted(client, request, io);
    first = false;
    if (attempt !== undefined && chunk.attempt !== attempt) {
      // The job was retried: finish the old attempt, then read the new one from its start.
      if (attempt >= 1) {
        while (true) {
          const rest = await client.getLogs(id, { stream, attempt, offset });
          if (rest.text !== '') io.stdout(rest.text);
          if (rest.nextOffset === offset) break;
          offset = rest.nextOffset;
        }
      }
      io.stderr(`--- job ${id}: attempt ${chunk.attempt} ---\n`);
      attempt = chunk.attempt;
      offset = 0;
      continue;
    }
    attempt = chunk.attempt;
    if (chunk.text !== '') io.stdout(chunk.text);
    const progressed = chunk.nextOffset !== offset;
    offset = chunk.nextOffset;
    if (progressed) continue;
    if (!request.follow) return;
    if (chunk.ended) {
      // The server's `ended` is per attempt: the latest attempt may have ended with a retry queued.
      if (request.attempt !== undefined || isTerminal((await client.getJob(id)).state)) return;
    }
    await io.sleep(FOLLOW_POLL_MS);
  }
}

/**
 * When a job's log is empty because no attempt has started yet, says so on stderr:
 * `job N has not started yet (state pending)`, or `job N never started (state cancelled)` for a
 * job that ended before its first attempt. Prints nothing for a job that has started.
 */
async function noteNotStarted(client: ApiClient, request: LogsRequest, io: CliIo): Promise<void> {
  if (request.attempt !== undefined) return;
  const job = await client.getJob(request.id);
  if (job.attempt > 0) return;
  if (isTerminal(job.state)) io.stderr(`job ${job.id} never started (state ${job.state})\n`);
  else io.stderr(`job ${job.id} has not started yet (state ${job.state})${request.follow ? '; waiting for it to start' : ''}\n`);
}

/**
 * Builds the `logs` subcommand. The action rejects with ApiError (e.g. 404 for an unknown job, 400
 * for an attempt the job does not have) or ApiUnreachableError. For a job that has not started,
 * it prints nothing on stdout and a note on stderr, and succeeds.
 * @param io - Output, environment and clock (default: the real process).
 */
export function createLogsCommand(io: CliIo = processIo()): Command {
  const command = new Command('logs')
    .description('print a job\'s output (stdout, or --stderr); -f follows it until the job ends')
    .argument('<id>', 'job id', parseJobId)
    .addOption(new Option('-f, --follow', 'keep printing new output until the job has ended'))
    .addOption(new Option('--stderr', 'the job\'s standard error instead of its standard output'))
    .addOption(new Option('--attempt <n>', 'attempt number (default: the latest)').argParser(asArgParser((t) => parseIntegerInRange('--attempt', t, 1, 1_000))))
    .action(async (id: number, opts: LogsOptions) => {
      await copyLogs(connect(opts, io), { id, stream: opts.stderr ? 'stderr' : 'stdout', attempt: opts.attempt, follow: opts.follow === true }, io);
    });
  return addConnectionOptions(command);
}
