/**
 * `gpushare gpus [-o text|json]`: the server's GPUs like nvidia-smi, with the jobs on each.
 */
import { Command, Option } from 'commander';
import { processIo, type CliIo } from './cli-io.js';
import { addConnectionOptions, connect, type ConnectionFlags } from './connection.js';
import { formatGpus } from './format-gpus.js';
import { jsonForTerminal } from '../lib/control-characters.js';

interface GpusOptions extends ConnectionFlags {
  output: 'text' | 'json';
}

/**
 * Builds the `gpus` subcommand; `-o json` prints a JSON array of GPUs (the API's GpuSchema).
 * @param io - Output, environment and clock (default: the real process).
 */
export function createGpusCommand(io: CliIo = processIo()): Command {
  const command = new Command('gpus')
    .description('show the GPUs: model, uuid, mode, health, used/free share and memory, jobs')
    .allowExcessArguments(false)
    .addOption(new Option('-o, --output <format>', 'output format').choices(['text', 'json']).default('text'))
    .action(async (opts: GpusOptions) => {
      const gpus = await (await connect(opts, io)).listGpus();
      io.stdout(opts.output === 'json' ? `${jsonForTerminal(gpus)}\n` : `${formatGpus(gpus)}\n`);
    });
  return addConnectionOptions(command);
}
