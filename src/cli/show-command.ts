/**
 * `gpushare show ID [-o text|json]`: one job with its request, placement, events and attempts.
 */
import { Command, Option } from 'commander';
import { processIo, type CliIo } from './cli-io.js';
import { addConnectionOptions, connect, type ConnectionFlags } from './connection.js';
import { formatJobDetail } from './format-job-detail.js';
import { parseJobId } from './option-parsers.js';
import { jsonForTerminal } from '../lib/control-characters.js';

interface ShowOptions extends ConnectionFlags {
  output: 'text' | 'json';
}

/**
 * Builds the `show` subcommand. `-o json` prints the API's JobDetail object. A job of another
 * tenant or an unknown id is an ApiError (404, exit 1).
 * @param io - Output, environment and clock (default: the real process).
 */
export function createShowCommand(io: CliIo = processIo()): Command {
  const command = new Command('show')
    .description('show one job: request, placement, events, attempts and exit status')
    .argument('<id>', 'job id', parseJobId)
    .addOption(new Option('-o, --output <format>', 'output format').choices(['text', 'json']).default('text'))
    .action(async (id: number, opts: ShowOptions) => {
      const job = await (await connect(opts, io)).getJob(id);
      io.stdout(opts.output === 'json' ? `${jsonForTerminal(job)}\n` : `${formatJobDetail(job, io.nowMs())}\n`);
    });
  return addConnectionOptions(command);
}
