/**
 * Runs kubectl as a child process, asynchronously: a test may serve a webhook or an extender from
 * its own event loop while kubectl waits on the API server, which a synchronous run would block.
 */
import { spawn } from 'node:child_process';

/** Result of a kubectl run. */
export interface KubectlResult {
  readonly code: number | null;
  readonly stdout: string;
  readonly stderr: string;
}

/**
 * Runs `binary args…` with `env`, `input` on stdin; killed (SIGKILL) after `timeoutMs`
 * (default 60 s), which shows as code null.
 * @throws Error when the program cannot be started
 */
export function runKubectl(
  binary: string,
  args: readonly string[],
  env: NodeJS.ProcessEnv,
  options: { input?: string; timeoutMs?: number } = {},
): Promise<KubectlResult> {
  return new Promise((resolve, reject) => {
    const child = spawn(binary, args, { env, stdio: ['pipe', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
    child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    const timer = setTimeout(() => child.kill('SIGKILL'), options.timeoutMs ?? 60_000);
    child.once('error', (error) => {
      clearTimeout(timer);
      reject(error);
    });
    child.once('close', (code) => {
      clearTimeout(timer);
      resolve({ code, stdout, stderr });
    });
    child.stdin.end(options.input ?? '');
  });
}
