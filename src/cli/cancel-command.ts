/**
 * `gpushare cancel ID`: cancels a job (a running one is stopped by the server).
 */
import { Command } from 'commander';
import { processIo, type CliIo } from './cli-io.js';
import { addConnectionOptions, connect, type ConnectionFlags } from './connection.js';
import { parseJobId } from './option-parsers.js';

/**
 * Builds the `cancel` subcommand. Prints `cancelled job N`, or `job N: cancel requested (state S)`
 * while the server is still stopping it. Cancelling a finished job is an ApiError (exit 1).
 * @param io - Output, environment and clock (default: the real process).
 */
export function createCancelCommand(io: CliIo = processIo()): Command {
  const command = new Command('cancel')
    .description('cancel a job')
    .argument('<id>', 'job id', parseJobId)
    .action(async (id: number, opts: ConnectionFlags) => {
      const job = await connect(opts, io).cancelJob(id);
      io.stdout(job.state === 'cancelled' ? `cancelled job ${job.id}\n` : `job ${job.id}: cancel requested (state ${job.state})\n`);
    });
  return addConnectionOptions(command);
}
