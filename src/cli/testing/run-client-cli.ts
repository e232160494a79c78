/**
 * Runs the client commands in-process, as `gpushare ARGS...` would, capturing stdout, stderr and
 * the exit code. For tests against a fake server.
 */
import { Command } from 'commander';
import { createClientCommands } from '../client-commands.js';
import { handleCliError } from '../exit-codes.js';

/** Outcome of {@link runClientCli}. */
export interface CliRun {
  readonly code: number;
  readonly stdout: string;
  readonly stderr: string;
}

/** Environment and working folder of the run. */
export interface CliRunOptions {
  readonly env?: Readonly<Record<string, string | undefined>>;
  readonly cwd?: string;
  /** Replaces the polling waits (default: resolve at once). */
  readonly sleep?: (ms: number) => Promise<void>;
  readonly nowMs?: number;
  /** Told each piece of standard output as it is written. */
  readonly onStdout?: (text: string) => void;
}

function configure(command: Command, write: { out: (s: string) => void; err: (s: string) => void }): void {
  command.exitOverride().configureOutput({ writeOut: write.out, writeErr: write.err });
  for (const sub of command.commands) configure(sub, write);
}

/**
 * Runs `gpushare ...args` with the client commands only.
 * @returns Exit code (as main would return it), and everything written to stdout and stderr.
 */
export async function runClientCli(args: readonly string[], options: CliRunOptions = {}): Promise<CliRun> {
  let stdout = '';
  let stderr = '';
  const io = {
    stdout: (text: string) => {
      stdout += text;
      options.onStdout?.(text);
    },
    stderr: (text: string) => {
      stderr += text;
    },
    env: options.env ?? {},
    cwd: () => options.cwd ?? '/work/dir',
    sleep: options.sleep ?? (() => Promise.resolve()),
    nowMs: () => options.nowMs ?? Date.parse('2025-01-01T00:05:00.000Z'),
  };
  const program = new Command('gpushare');
  for (const command of await createClientCommands(io)) program.addCommand(command);
  configure(program, { out: io.stdout, err: io.stderr });
  let code = 0;
  try {
    await program.parseAsync(['node', 'gpushare', ...args]);
  } catch (err) {
    code = handleCliError(err, io.stderr);
  }
  return { code, stdout, stderr };
}
