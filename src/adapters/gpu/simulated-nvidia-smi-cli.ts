/**
 * Executable entry of the stand-in nvidia-smi (simulated-nvidia-smi.ts):
 *
 *   node dist/adapters/gpu/simulated-nvidia-smi-cli.js --state FILE -- <nvidia-smi args>
 *
 * Runs the nvidia-smi arguments against the state in FILE (read, run, written back when changed,
 * under a lock), prints what the real nvidia-smi prints, and exits with the stand-in's exit code
 * (SIMULATED_SMI_EXIT). Its own failures (missing `--state FILE --`, unreadable or malformed state,
 * state locked too long) print `simulated nvidia-smi: <why>` on stderr and exit 255.
 * Used by createSimulatedMigManager (simulated-mig-manager.ts), and by a shell wrapper named
 * `nvidia-smi` (`exec node …/simulated-nvidia-smi-cli.js --state FILE -- "$@"`) in tests.
 */
import { SIMULATED_SMI_EXIT, runSimulatedNvidiaSmiOnFile } from './simulated-nvidia-smi.js';

const USAGE = 'usage: simulated-nvidia-smi-cli.js --state FILE -- <nvidia-smi arguments>';

/** Runs the stand-in for `argv` (the arguments after the script) and returns the exit code. */
export function main(argv: readonly string[]): number {
  const separator = argv.indexOf('--');
  const own = separator < 0 ? argv : argv.slice(0, separator);
  if (separator < 0 || own.length !== 2 || own[0] !== '--state' || own[1] === undefined || own[1] === '') {
    process.stderr.write(`simulated nvidia-smi: ${USAGE}\n`);
    return SIMULATED_SMI_EXIT.standInError;
  }
  try {
    const result = runSimulatedNvidiaSmiOnFile(argv.slice(separator + 1), own[1]);
    process.stdout.write(result.stdout);
    process.stderr.write(result.stderr);
    return result.exitCode;
  } catch (e) {
    process.stderr.write(`simulated nvidia-smi: ${e instanceof Error ? e.message : String(e)}\n`);
    return SIMULATED_SMI_EXIT.standInError;
  }
}

process.exitCode = main(process.argv.slice(2));
