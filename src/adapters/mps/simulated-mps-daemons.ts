/**
 * MPS daemons of simulated GPUs (`gpushare node-agent --simulate-gpus`): the directories a real
 * daemon would use, made exactly where createMpsDaemonManager puts them
 * (`<baseDirectory>/<key directory>/pipe` and `/log`, mode 0700), with no daemon started. A
 * container prepared for an `mps` assignment then gets the same CDI edits as on a GPU node (the
 * MPS variables and the bind mount of the pipe directory), which is what a node without GPUs can
 * check.
 */
import { chmodSync, mkdirSync } from 'node:fs';
import { dirname, isAbsolute } from 'node:path';
import { mpsDaemonDirectories } from './mps-daemon-manager.js';

/** What the device plugin asks of MPS daemons (prepare-container.ts MpsDaemons). */
export interface SimulatedMpsDaemons {
  /** Makes the device's pipe and log directories; resolves with the pipe directory. */
  ensureDaemon(device: { key: string }): Promise<{ pipeDirectory: string }>;
}

/**
 * The simulated daemons under `baseDirectory`.
 * @throws RangeError when `baseDirectory` is not absolute; ensureDaemon rejects with RangeError
 *   for a key that is no device UUID (mpsKeyDirectoryName)
 */
export function createSimulatedMpsDaemons(options: { baseDirectory: string }): SimulatedMpsDaemons {
  if (!isAbsolute(options.baseDirectory))
    throw new RangeError(`baseDirectory must be absolute, got ${options.baseDirectory}`);
  return {
    ensureDaemon: async ({ key }) => {
      const { pipeDirectory, logDirectory } = mpsDaemonDirectories(options.baseDirectory, key);
      // The base directory is made when missing (0700) but never changed: it may be shared.
      mkdirSync(options.baseDirectory, { recursive: true, mode: 0o700 });
      for (const path of [dirname(pipeDirectory), pipeDirectory, logDirectory]) {
        mkdirSync(path, { recursive: true, mode: 0o700 });
        chmodSync(path, 0o700);
      }
      return { pipeDirectory };
    },
  };
}
