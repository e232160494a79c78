/**
 * `gpushare drain [--no-wait]` (admin): the server starts no new jobs and exits by itself once no
 * job runs; by default this command waits until the server has stopped answering.
 */
import { Command, Option } from 'commander';
import { ApiUnreachableError } from '../adapters/http-client/api-errors.js';
import type { ApiClient } from '../adapters/http-client/api-client.js';
import { processIo, type CliIo } from './cli-io.js';
import { addConnectionOptions, connect, type ConnectionFlags } from './connection.js';

/** How often the drain is checked on, in milliseconds. */
export const DRAIN_POLL_MS = 1_000;

interface DrainOptions extends ConnectionFlags {
  wait: boolean;
}

/** Jobs still holding GPUs according to `GET /status` (running and scheduled), or null when unknown. */
async function activeJobs(client: ApiClient): Promise<number | null> {
  try {
    const status = await client.status();
    return (status.jobs.running ?? 0) + (status.jobs.scheduled ?? 0);
  } catch {
    return null;
  }
}

/**
 * Waits until the server stops answering `GET /healthz`, printing the number of jobs still running
 * whenever it changes.
 */
export async function waitForServerExit(client: ApiClient, io: CliIo, runningAtStart: number): Promise<void> {
  let last = runningAtStart;
  while (true) {
    await io.sleep(DRAIN_POLL_MS);
    try {
      await client.healthz();
    } catch (err) {
      if (err instanceof ApiUnreachableError) break;
      // Any answer, even an error status, means the server is still up.
    }
    const running = await activeJobs(client);
    if (running !== null && running !== last) {
      io.stdout(`waiting: ${running} job(s) still running\n`);
      last = running;
    }
  }
  io.stdout(`the server at ${client.url} has stopped\n`);
}

/**
 * Builds the `drain` subcommand. Its action rejects with ApiError (403 for a tenant token) or
 * ApiUnreachableError (before the drain was accepted).
 * @param io - Output, environment and clock (default: the real process).
 */
export function createDrainCommand(io: CliIo = processIo()): Command {
  const command = new Command('drain')
    .description('stop starting jobs; the server exits once none runs (admin). Waits for that unless --no-wait')
    .allowExcessArguments(false)
    .addOption(new Option('--no-wait', 'return at once instead of waiting for the server to exit'))
    .action(async (opts: DrainOptions) => {
      const client = await connect(opts, io);
      const result = await client.drain();
      io.stdout(`draining: the server starts no new jobs and exits once none runs; ${result.running} job(s) running\n`);
      if (opts.wait) await waitForServerExit(client, io, result.running);
    });
  return addConnectionOptions(command);
}
