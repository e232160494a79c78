/**
 * The control plane's side of MPS (docs/mps.md): a single-GPU `mps` job gets its GPU's control
 * daemon, started on demand, and the daemon is told to quit when the GPU has no MPS job left.
 */
import type { Placement } from '../../core/index.js';
import type { MpsControl } from '../ports/mps-control.js';
import type { JobRecord } from '../ports/state-store.js';
import type { Logger } from './plane-deps.js';

/**
 * The pipe directory of the MPS daemon for a single-GPU `mps` placement, started on demand as the
 * server's user; null for other placements, for multi-GPU MPS jobs (one daemon serves one GPU
 * here), when the server runs no MPS daemons (none on the host, or the job sandbox), or when the
 * daemon does not start (logged; the job then runs without it).
 */
export async function mpsPipeFor(mps: MpsControl | null, logger: Logger, placement: Placement): Promise<string | null> {
  if (!mps || placement.mode !== 'mps' || placement.gpus.length !== 1) return null;
  try {
    return (await mps.ensureDaemon({ key: placement.gpus[0]!.uuid })).pipeDirectory;
  } catch (error) {
    logger.warn({ err: error, gpu: placement.gpus[0]!.index }, 'MPS daemon did not start; the job runs without it');
    return null;
  }
}

/** Stops the MPS daemon of every GPU of `placement` on which none of `running` is an MPS job. */
export function stopIdleMpsDaemons(
  mps: MpsControl | null,
  logger: Logger,
  placement: Placement,
  running: readonly JobRecord[],
): void {
  if (!mps || placement.mode !== 'mps') return;
  for (const gpu of placement.gpus) {
    const busy = running.some((j) => j.placement?.mode === 'mps' && j.placement.gpus.some((g) => g.uuid === gpu.uuid));
    if (!busy && mps.running().includes(gpu.uuid))
      void mps
        .stopDaemon(gpu.uuid)
        .catch((error: unknown) => logger.warn({ err: error }, 'stopping an MPS daemon failed'));
  }
}
