/**
 * One control-plane component as a child process of the test: its own process group (so that
 * stopping it ends whatever it started), stdout and stderr appended to a log file, a bounded wait
 * for its health endpoint that fails early, with the log's tail, when it exits, and a stop that
 * sends SIGTERM to the group, then SIGKILL. Every group still running when the test process exits
 * is killed then too.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { closeSync, existsSync, openSync, readFileSync, writeSync } from 'node:fs';

/** A started component. */
export interface ComponentProcess {
  /** e.g. `kube-apiserver`. */
  readonly name: string;
  readonly child: ChildProcess;
  /** File with its command line, stdout and stderr. */
  readonly logPath: string;
  /** Resolves when it has exited: `code=N` or `signal=SIG`. */
  readonly exited: Promise<string>;
  /** Set once it has exited. */
  exitStatus: string | null;
}

const running = new Set<ComponentProcess>();

process.on('exit', () => {
  for (const component of running) killGroup(component, 'SIGKILL');
});

function killGroup(component: ComponentProcess, signal: NodeJS.Signals): void {
  const pid = component.child.pid;
  if (pid === undefined || component.exitStatus !== null) return;
  try {
    process.kill(-pid, signal);
  } catch {
    // the group is gone already
  }
}

/**
 * Starts `binary args…` in a new process group with `env` (default: this process's), output
 * appended to `logPath` after a first line with the command.
 * @throws Error when the program cannot be started (the error names it)
 */
export function spawnComponent(
  name: string,
  binary: string,
  args: readonly string[],
  logPath: string,
  env: NodeJS.ProcessEnv = process.env,
): ComponentProcess {
  const fd = openSync(logPath, 'a');
  writeSync(fd, `$ ${binary} ${args.join(' ')}\n`);
  let child: ChildProcess;
  try {
    child = spawn(binary, args, { detached: true, stdio: ['ignore', fd, fd], env });
  } finally {
    closeSync(fd);
  }
  let resolveExit!: (status: string) => void;
  const exited = new Promise<string>((resolve) => (resolveExit = resolve));
  const component: ComponentProcess = { name, child, logPath, exited, exitStatus: null };
  running.add(component);
  const onEnd = (status: string) => {
    if (component.exitStatus !== null) return;
    component.exitStatus = status;
    running.delete(component);
    resolveExit(status);
  };
  child.once('exit', (code, signal) => onEnd(signal === null ? `code=${code}` : `signal=${signal}`));
  child.once('error', (error) => onEnd(`error=${error.message}`));
  return component;
}

/** The last `lines` lines of a log file ('' when it does not exist). */
export function logTail(logPath: string, lines = 40): string {
  if (!existsSync(logPath)) return '';
  return readFileSync(logPath, 'utf8')
    .split('\n')
    .slice(-lines - 1)
    .join('\n');
}

/**
 * Polls `ready` (every 100 ms, each check bounded by the caller) until it returns true.
 * @throws Error with the log's tail when the component exits first or `timeoutMs` passes
 */
export async function waitUntilReady(
  component: ComponentProcess,
  what: string,
  ready: () => Promise<boolean>,
  timeoutMs: number,
): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    if (component.exitStatus !== null) {
      throw new Error(
        `${component.name} exited (${component.exitStatus}) before ${what}; ${component.logPath}:\n` +
          `${logTail(component.logPath)}`,
      );
    }
    if (await ready().catch(() => false)) return;
    if (Date.now() > deadline) {
      throw new Error(
        `${component.name}: not ${what} within ${timeoutMs} ms; ${component.logPath}:\n${logTail(component.logPath)}`,
      );
    }
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

/**
 * SIGTERM to the component's group, SIGKILL after `graceMs`; resolves once it has exited (at most 5 s after SIGKILL).
 */
export async function stopComponent(component: ComponentProcess, graceMs = 5_000): Promise<void> {
  if (component.exitStatus !== null) return;
  killGroup(component, 'SIGTERM');
  const timeout = (ms: number) => new Promise<'timeout'>((resolve) => setTimeout(() => resolve('timeout'), ms).unref());
  if ((await Promise.race([component.exited, timeout(graceMs)])) !== 'timeout') return;
  killGroup(component, 'SIGKILL');
  await Promise.race([component.exited, timeout(5_000)]);
}
