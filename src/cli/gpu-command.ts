/**
 * `gpushare gpu cordon IDX` / `gpushare gpu uncordon IDX` (admin): stop or resume placing new jobs
 * on one GPU; jobs already on it keep running.
 */
import { Command } from 'commander';
import { processIo, type CliIo } from './cli-io.js';
import { addConnectionOptions, connect, type ConnectionFlags } from './connection.js';
import { parseGpuIndex } from './option-parsers.js';

function cordonCommand(name: 'cordon' | 'uncordon', io: CliIo): Command {
  const command = new Command(name)
    .description(name === 'cordon' ? 'place no new jobs on this GPU' : 'place jobs on this GPU again')
    .argument('<index>', 'GPU index (see `gpushare gpus`)', parseGpuIndex)
    .action(async (index: number, opts: ConnectionFlags) => {
      const client = connect(opts, io);
      const gpu = name === 'cordon' ? await client.cordonGpu(index) : await client.uncordonGpu(index);
      const running = gpu.jobs.length;
      io.stdout(`GPU ${gpu.index} ${gpu.cordoned ? 'cordoned' : 'uncordoned'}${gpu.cordoned && running > 0 ? ` (${running} job(s) on it keep running)` : ''}\n`);
    });
  return addConnectionOptions(command);
}

/**
 * Builds the `gpu` command group with `cordon` and `uncordon`. Its actions reject with ApiError
 * (404 for an unknown index, 403 for a tenant token) or ApiUnreachableError.
 * @param io - Output, environment and clock (default: the real process).
 */
export function createGpuCommand(io: CliIo = processIo()): Command {
  return new Command('gpu')
    .description('manage one GPU (admin): cordon, uncordon')
    .addCommand(cordonCommand('cordon', io))
    .addCommand(cordonCommand('uncordon', io));
}
