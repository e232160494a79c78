/**
 * `gpushare logs ID [-f] [--stderr] [--attempt N]`: prints a job's output (every attempt, each
 * after a header, when it has several); `-f` keeps following it until the job has ended and
 * everything was read.
 */
import { Command, Option } from 'commander';
import type { ApiClient } from '../adapters/http-client/api-client.js';
import type { JobDetailView } from '../contract/api.js';
import { isTerminal } from '../core/index.js';
import { processIo, type CliIo } from './cli-io.js';
import { addConnectionOptions, connect, type ConnectionFlags } from './connection.js';
import { asArgParser, parseJobId } from './option-parsers.js';
import { parseIntegerInRange } from './parse-quantities.js';
import { escapeControlCharacters } from '../lib/control-characters.js';

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
 * ended (a fixed `attempt`) or the job is terminal (the latest attempt).
 *
 * Without a fixed `attempt`, a job with more than one attempt (retried, or preempted and resumed)
 * gets all of them in order, each after a header line on stdout, `==> attempt 1 of 2 (preempted) <==`
 * (see {@link attemptHeader}); a job with one attempt gets just its text. Following, a new attempt
 * that starts meanwhile is noticed: the rest of the old attempt is read, then the new one from its
 * start, after a header of its own when the output has headers, else after a note on stderr
 * (`--- job N: attempt 2 ---`). When the log is empty because the job has not started yet, a note
 * says so on stderr.
 */
export async function copyLogs(client: ApiClient, request: LogsRequest, io: CliIo): Promise<void> {
  const { id, stream } = request;
  let attempt = request.attempt;
  let offset = 0;
  let first = true;
  let headers = false;
  while (true) {
    const chunk = await client.getLogs(id, { stream, attempt: request.attempt, offset });
    if (first) {
      first = false;
      if (request.attempt === undefined && chunk.attempt > 1) {
        headers = true;
        await copyEarlierAttempts(client, id, stream, chunk.attempt, io);
      } else if (chunk.text === '') {
        await noteNotStarted(client, request, io);
      }
    }
    if (attempt !== undefined && chunk.attempt !== attempt) {
      // A new attempt started (retry or resume after preemption): finish the old one, print any
      // attempt that came and went between two polls, then read the new one from its start.
      if (attempt >= 1) await copyAttempt(client, id, stream, attempt, offset, io);
      const job = headers ? await client.getJob(id) : null;
      for (let n = attempt + 1; n <= chunk.attempt; n++) {
        if (job !== null) io.stdout(attemptHeader(n, chunk.attempt, job));
        else io.stderr(`--- job ${id}: attempt ${n} ---\n`);
        if (n < chunk.attempt) await copyAttempt(client, id, stream, n, 0, io);
      }
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
 * The line that marks the start of one attempt's text when a job has several:
 * `==> attempt 1 of 2 (preempted) <==`. The parenthesis says why the attempt ended (the API's
 * `endReason`: `preempted`, `exited, exit code 3`, `time-limit`, `lost`, ...) or `running`.
 * @param attempt - The attempt the text belongs to.
 * @param of - The job's latest attempt when the header is written.
 * @param job - The job with its attempts (for why each ended).
 */
export function attemptHeader(attempt: number, of: number, job: Pick<JobDetailView, 'attempts'>): string {
  const record = job.attempts.find((a) => a.attempt === attempt);
  let why: string;
  if (record === undefined || (record.endedAt === null && record.endReason === null)) why = 'running';
  else if (record.endReason === null) why = 'ended';
  else if (record.endReason === 'exited' && record.exitCode !== null) why = `exited, exit code ${record.exitCode}`;
  else why = record.endReason;
  return `==> attempt ${attempt} of ${Math.max(attempt, of)} (${escapeControlCharacters(why)}) <==\n`;
}

/** Prints attempts 1 .. latest-1 of the job, each after its header, then the latest's header. */
async function copyEarlierAttempts(
  client: ApiClient,
  id: number,
  stream: 'stdout' | 'stderr',
  latest: number,
  io: CliIo,
): Promise<void> {
  const job = await client.getJob(id);
  for (let n = 1; n < latest; n++) {
    io.stdout(attemptHeader(n, latest, job));
    await copyAttempt(client, id, stream, n, 0, io);
  }
  io.stdout(attemptHeader(latest, latest, job));
}

/** Prints what attempt `attempt` has from byte `offset` on, until a read brings nothing new. */
async function copyAttempt(
  client: ApiClient,
  id: number,
  stream: 'stdout' | 'stderr',
  attempt: number,
  offset: number,
  io: CliIo,
): Promise<void> {
  let at = offset;
  while (true) {
    const rest = await client.getLogs(id, { stream, attempt, offset: at });
    if (rest.text !== '') io.stdout(rest.text);
    if (rest.nextOffset === at) return;
    at = rest.nextOffset;
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
  else
    io.stderr(
      `job ${job.id} has not started yet (state ${job.state})${request.follow ? '; waiting for it to start' : ''}\n`,
    );
}

/**
 * Builds the `logs` subcommand. The action rejects with ApiError (e.g. 404 for an unknown job, 422
 * for an attempt the job does not have) or ApiUnreachableError. For a job that has not started,
 * it prints nothing on stdout and a note on stderr, and succeeds.
 * @param io - Output, environment and clock (default: the real process).
 */
export function createLogsCommand(io: CliIo = processIo()): Command {
  const command = new Command('logs')
    .description("print a job's output (stdout, or --stderr), every attempt; -f follows it until the job ends")
    .argument('<id>', 'job id', parseJobId)
    .addOption(new Option('-f, --follow', 'keep printing new output until the job has ended'))
    .addOption(new Option('--stderr', "the job's standard error instead of its standard output"))
    .addOption(
      new Option('--attempt <n>', 'only this attempt, without a header (default: all attempts)').argParser(
        asArgParser((t) => parseIntegerInRange('--attempt', t, 1, 1_000)),
      ),
    )
    .action(async (id: number, opts: LogsOptions) => {
      await copyLogs(
        await connect(opts, io),
        { id, stream: opts.stderr ? 'stderr' : 'stdout', attempt: opts.attempt, follow: opts.follow === true },
        io,
      );
    });
  return addConnectionOptions(command);
}
