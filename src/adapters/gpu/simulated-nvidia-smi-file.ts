// The stand-in nvidia-smi's state file (simulated-nvidia-smi.ts): read, atomic write, and one
// command run against the file under a lock, as simulated-nvidia-smi-cli.ts does.
import { mkdirSync, readFileSync, renameSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { sleepSync } from '../../host/sleep-sync.js';
import { runSimulatedNvidiaSmi } from './simulated-nvidia-smi-run.js';
import {
  SimulatedSmiStateError,
  checkSimulatedNvidiaSmiState,
  type SimulatedSmiResult,
  type SimulatedSmiState,
} from './simulated-nvidia-smi-state.js';

/** Reads and checks a state file. Throws SimulatedSmiStateError (or the fs error) when it cannot. */
export function readSimulatedNvidiaSmiState(file: string): SimulatedSmiState {
  let value: unknown;
  try {
    value = JSON.parse(readFileSync(file, 'utf8'));
  } catch (e) {
    throw new SimulatedSmiStateError(
      `simulated nvidia-smi state ${file}: ${e instanceof Error ? e.message : String(e)}`,
    );
  }
  return checkSimulatedNvidiaSmiState(value);
}

/** Writes a state file atomically (temp file in the same directory, then rename). */
export function writeSimulatedNvidiaSmiState(file: string, state: SimulatedSmiState): void {
  const temp = `${file}.${process.pid}.tmp`;
  writeFileSync(temp, `${JSON.stringify(checkSimulatedNvidiaSmiState(state), null, 2)}\n`, { mode: 0o600 });
  renameSync(temp, file);
}

/** Longest wait for the state file's lock, and the age after which a lock is taken as stale (ms). */
const LOCK_WAIT_MS = 10_000;
const LOCK_STALE_MS = 30_000;

/** Runs `fn` holding `<file>.lock` (a directory: mkdir is atomic), so concurrent runs do not lose updates. */
function withStateLock<T>(file: string, fn: () => T): T {
  const lock = `${file}.lock`;
  const deadline = Date.now() + LOCK_WAIT_MS;
  for (;;) {
    try {
      mkdirSync(lock);
      break;
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code !== 'EEXIST') throw e;
      try {
        if (Date.now() - statSync(lock).mtimeMs > LOCK_STALE_MS) {
          rmSync(lock, { recursive: true, force: true });
          continue;
        }
      } catch {
        /* removed meanwhile: retry */
      }
      if (Date.now() > deadline)
        throw new SimulatedSmiStateError(
          `simulated nvidia-smi state ${file}: still locked after ${LOCK_WAIT_MS} ms (${lock})`,
        );
      sleepSync(10);
    }
  }
  try {
    return fn();
  } finally {
    rmSync(lock, { recursive: true, force: true });
  }
}

/**
 * Runs one command against the state in `stateFile` (read, run, write back when changed), holding
 * a lock file so that concurrent runs are serialised. Throws SimulatedSmiStateError when the file
 * cannot be read, is malformed, or stays locked.
 */
export function runSimulatedNvidiaSmiOnFile(argv: readonly string[], stateFile: string): SimulatedSmiResult {
  return withStateLock(stateFile, () => {
    const result = runSimulatedNvidiaSmi(argv, readSimulatedNvidiaSmiState(stateFile));
    if (result.changed) writeSimulatedNvidiaSmiState(stateFile, result.state);
    return result;
  });
}
