/**
 * `gpushare cancel ID`: cancels a job. A pending job is cancelled at once; a running one is
 * stopped by the server after it answered.
 */
import { Command } from 'commander';
import type { JobView } from '../contract/api.js';
import { processIo, type CliIo } from './cli-io.js';
import { addConnectionOptions, connect, type ConnectionFlags } from './connection.js';
import { parseJobId } from './option-parsers.js';

/**
 * The line `cancel` prints for the server's answer: `cancelled job N` when the job is already
 * cancelled, else `job N: cancel requested (it is being stopped)` (the server answers at once and
 * stops a running job afterwards).
 */
export function formatCancelResult(job: Pick<JobView, 'id' | 'state'>): string {
  return job.state === 'cancelled' ? `cancelled job ${job.id}` : `job ${job.id}: cancel requested (it is being stopped)`;
}

/**
 * Builds the `cancel` subcommand. Prints {@link formatCancelResult}. Cancelling a finished job is an
 * ApiError (exit 1).
 * @param io - Output, environment and clock (default: the real process).
 */
export function createCancelCommand(io: CliIo = processIo()): Command {
  const command = new Command('cancel')
    .description('cancel a job (a running one is stopped; `gpushare show ID` tells when it has ended)')
    .argument('<id>', 'job id', parseJobId)
    .action(async (id: number, opts: ConnectionFlags) => {
      const job = await connect(opts, io).cancelJob(id);
      io.stdout(`${formatCancelResult(job)}\n`);
    });
  return addConnectionOptions(command);
}
