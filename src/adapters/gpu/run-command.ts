/**
 * Runs nvidia-smi and its kin: one program, its arguments, no shell, a time limit. The inventory,
 * the usage sampler and the MIG manager all run through here; tests inject their own runner.
 */
import { execFile } from 'node:child_process';

/** What a command printed and how it exited. */
export interface CommandResult {
  readonly stdout: string;
  readonly stderr: string;
  /** The exit code; 0 for success. */
  readonly exitCode: number;
}

/**
 * Runs `file` with `args` (no shell) and resolves with its output and exit code, **whatever the
 * exit code** (a non-zero exit of `nvidia-smi mig` carries meaning, e.g. Insufficient Resources).
 * Rejects only when the program cannot be run: not found, killed after `timeoutMs`, killed by a
 * signal; the message says which.
 */
export type RunCommandFn = (
  file: string,
  args: readonly string[],
  options: { readonly timeoutMs: number },
) => Promise<CommandResult>;

/** Like {@link RunCommandFn}, but a non-zero exit rejects too: `exited with code N: <output>`. */
export type ExecFileFn = (
  file: string,
  args: readonly string[],
  options: { readonly timeoutMs: number },
) => Promise<{ readonly stdout: string; readonly stderr: string }>;

const MAX_OUTPUT_BYTES = 64 * 1024 * 1024;
const OUTPUT_QUOTE_CHARS = 500;

/** {@link RunCommandFn} on node:child_process `execFile`; a timed-out child is killed with SIGKILL. */
export const runCommand: RunCommandFn = (file, args, { timeoutMs }) =>
  new Promise((resolve, reject) => {
    execFile(
      file,
      [...args],
      {
        timeout: timeoutMs,
        killSignal: 'SIGKILL',
        maxBuffer: MAX_OUTPUT_BYTES,
        encoding: 'utf8',
        windowsHide: true,
      },
      (err, stdout, stderr) => {
        if (!err) resolve({ stdout, stderr, exitCode: 0 });
        else if (typeof err.code === 'number') resolve({ stdout, stderr, exitCode: err.code });
        else if (err.code === 'ENOENT') reject(new Error('not found'));
        else if (err.killed && err.signal === 'SIGKILL') reject(new Error(`timed out after ${timeoutMs} ms`));
        else if (err.signal) reject(new Error(`killed by ${err.signal}`));
        else reject(new Error(err.message));
      },
    );
  });

/** {@link ExecFileFn} on {@link runCommand}: the output when the command exits 0. */
export const execFileOrThrow: ExecFileFn = async (file, args, options) => {
  const result = await runCommand(file, args, options);
  if (result.exitCode === 0) return { stdout: result.stdout, stderr: result.stderr };
  const output = (result.stderr.trim() || result.stdout.trim()).slice(0, OUTPUT_QUOTE_CHARS);
  throw new Error(`exited with code ${result.exitCode}${output === '' ? '' : `: ${output}`}`);
};
