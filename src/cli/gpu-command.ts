/**
 * `gpushare gpu cordon IDX` / `gpushare gpu uncordon IDX` (admin): stop or resume placing new jobs
 * on one GPU; jobs already on it keep running.
 */
import { Command } from 'commander';
import { processIo, type CliIo } from './cli-io.js';
import { addConnectionOptions, connect, type ConnectionFlags } from './connection.js';
import { UsageError } from './exit-codes.js';

/**
 * Reads IDX from the arguments commander left over. Unknown options are let through to here so
 * that a negative index (`-1`, which commander would take for an option) gets a usage error about
 * IDX rather than `unknown option '-1'`.
 * @param args - The command's arguments and unknown options, in order.
 * @param name - `cordon` or `uncordon`, for the messages.
 * @returns The GPU index, a whole number ≥ 0.
 * @throws UsageError for a missing, extra, negative or non-integer index, or an unknown option.
 */
export function parseGpuIndexArgs(args: readonly string[], name: string): number {
  const help = `see \`gpushare gpu ${name} --help\``;
  const unknownOption = args.find((a) => a.startsWith('-') && !/^-\d/.test(a));
  if (unknownOption !== undefined) throw new UsageError(`unknown option '${unknownOption}' (${help})`);
  if (args.length === 0)
    throw new UsageError(
      `missing argument IDX: the GPU index, a whole number >= 0 (${help}; \`gpushare gpus\` lists the GPUs)`,
    );
  if (args.length > 1)
    throw new UsageError(`expected one argument IDX, got ${args.length}: ${args.join(' ')} (${help})`);
  const text = args[0]!;
  // Decimal digits only: an empty shell variable ('') or ' ' must never mean GPU 0.
  const value = /^(?:0|[1-9]\d*)$/.test(text) ? Number(text) : Number.NaN;
  if (!Number.isSafeInteger(value)) {
    throw new UsageError(
      `IDX '${text}' is not a GPU index: expected a whole number >= 0 in decimal digits such as 0 or 1 ` +
        `(\`gpushare gpus\` lists the GPUs)`,
    );
  }
  return value;
}

function cordonCommand(name: 'cordon' | 'uncordon', io: CliIo): Command {
  const command = new Command(name)
    .description(name === 'cordon' ? 'place no new jobs on this GPU' : 'place jobs on this GPU again')
    .usage('[options] IDX')
    .argument('[idx]', 'GPU index, a whole number >= 0 (see `gpushare gpus`)')
    // `-1` must reach parseGpuIndexArgs, which refuses it (and any real unknown option) itself.
    .allowUnknownOption()
    .action(async (_idx: string | undefined, opts: ConnectionFlags, self: Command) => {
      const index = parseGpuIndexArgs(self.args, name);
      const client = await connect(opts, io);
      const gpu = name === 'cordon' ? await client.cordonGpu(index) : await client.uncordonGpu(index);
      const running = gpu.jobs.length;
      io.stdout(
        `GPU ${gpu.index} ${gpu.cordoned ? 'cordoned' : 'uncordoned'}` +
          `${gpu.cordoned && running > 0 ? ` (${running} job(s) on it keep running)` : ''}\n`,
      );
    });
  return addConnectionOptions(command);
}

/**
 * Builds the `gpu` command group with `cordon` and `uncordon`. Their actions reject with UsageError
 * (a missing, negative or non-integer IDX), ApiError (404 for an unknown index, 403 for a tenant
 * token) or ApiUnreachableError.
 * @param io - Output, environment and clock (default: the real process).
 */
export function createGpuCommand(io: CliIo = processIo()): Command {
  return new Command('gpu')
    .description('manage one GPU (admin): cordon, uncordon')
    .addCommand(cordonCommand('cordon', io))
    .addCommand(cordonCommand('uncordon', io));
}
