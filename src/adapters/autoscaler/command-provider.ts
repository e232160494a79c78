/**
 * The `command` provider: runs an operator's program (a script around a cloud CLI or an
 * auto-scaling group) once per template and decision, without a shell (spawn of the file itself,
 * as execFile does), so no argument is ever parsed as shell syntax.
 *
 * The call, for template `a100x2` asked to have 2 nodes, removing node `gpu-7`:
 *
 *     <command> [<args>...] a100x2 2 gpu-7
 *
 * with these environment variables added to the autoscaler's own:
 * `GPUSHARE_TEMPLATE=a100x2`, `GPUSHARE_DESIRED_COUNT=2`, `GPUSHARE_REMOVE_NODES=gpu-7` (comma-
 * separated Node names, empty on a scale-up), `GPUSHARE_DECISION_ID=<id>` (the same when a restart
 * repeats the call). The count is the group's size once done, never a difference: the program must
 * set the group to it (deleting the named nodes rather than others), so running it twice with the
 * same arguments does what once does.
 *
 * Exit code 0 is success. A non-zero exit, a signal, a program that cannot be started or one still
 * running after `timeoutMs` (its process group is killed with SIGKILL) is a provider failure. The
 * outcome's detail records the exit code (or signal, or time-out), the duration and the end of the
 * output (stdout and stderr together, at most `maxOutputBytes`).
 */
import { spawn } from 'node:child_process';
import type { NodeProvider, ProviderOutcome, ScaleRequest } from '../../app/ports/node-provider.js';

/** How the program runs. */
export interface CommandProviderOptions {
  /** Absolute path of the program. */
  readonly command: string;
  /** Arguments put before the template, count and nodes. */
  readonly args: readonly string[];
  /** How long a call may run, ms. */
  readonly timeoutMs: number;
  /** Output kept (its end), bytes. */
  readonly maxOutputBytes: number;
  /** The environment the variables are added to (the composition root passes its own). */
  readonly env: Readonly<Record<string, string | undefined>>;
}

/** How one run ended. */
export interface CommandRun {
  readonly argv: readonly string[];
  /** Exit code; null when killed by a signal, timed out or never started. */
  readonly exitCode: number | null;
  readonly signal: string | null;
  readonly timedOut: boolean;
  /** Why it could not start (ENOENT, EACCES); null when it started. */
  readonly startError: string | null;
  readonly durationMs: number;
  /** The end of its output, at most maxOutputBytes. */
  readonly output: string;
  /** Bytes of output left out before `output`. */
  readonly outputCutBytes: number;
}

/** The command provider. */
export class CommandProvider implements NodeProvider {
  readonly kind = 'command';
  /** The last runs (at most 16), oldest first. */
  readonly runs: CommandRun[] = [];

  constructor(private readonly options: CommandProviderOptions) {}

  async scale(request: ScaleRequest): Promise<ProviderOutcome> {
    const run = await this.run(request);
    this.runs.push(run);
    if (this.runs.length > 16) this.runs.shift();
    const ok = run.exitCode === 0;
    return { ok, changed: ok, detail: describeRun(run) };
  }

  private run(request: ScaleRequest): Promise<CommandRun> {
    const { options } = this;
    const argv = [...options.args, request.template, String(request.desiredCount), ...request.removeNodes];
    const env = {
      ...options.env,
      GPUSHARE_TEMPLATE: request.template,
      GPUSHARE_DESIRED_COUNT: String(request.desiredCount),
      GPUSHARE_REMOVE_NODES: request.removeNodes.join(','),
      GPUSHARE_DECISION_ID: request.decisionId,
    };
    const started = performance.now();
    return new Promise<CommandRun>((resolve) => {
      let output = Buffer.alloc(0);
      let cut = 0;
      let exitCode: number | null = null;
      let signal: string | null = null;
      let timedOut = false;
      let settled = false;
      const child = spawn(options.command, argv, { env, detached: true, stdio: ['ignore', 'pipe', 'pipe'] });
      const keep = (chunk: Buffer): void => {
        output = Buffer.concat([output, chunk]);
        if (output.length > options.maxOutputBytes) {
          cut += output.length - options.maxOutputBytes;
          output = output.subarray(output.length - options.maxOutputBytes);
        }
      };
      const finish = (startError: string | null): void => {
        if (settled) return;
        settled = true;
        clearTimeout(timer);
        resolve({
          argv: [options.command, ...argv],
          exitCode,
          signal,
          timedOut,
          startError,
          durationMs: Math.round(performance.now() - started),
          output: output.toString('utf8'),
          outputCutBytes: cut,
        });
      };
      const timer = setTimeout(() => {
        if (exitCode === null && signal === null) timedOut = true;
        try {
          // The whole group: a script's own children (a cloud CLI) go with it.
          if (child.pid !== undefined) process.kill(-child.pid, 'SIGKILL');
        } catch {
          // already gone
        }
        finish(null);
      }, options.timeoutMs);
      child.stdout.on('data', keep);
      child.stderr.on('data', keep);
      child.once('error', (err) => finish(err.message));
      child.once('exit', (code, sig) => {
        exitCode = code;
        signal = sig;
      });
      child.once('close', () => finish(null));
    });
  }
}

/** One line about a run: how it ended, how long it took, the end of its output (JSON-quoted). */
export function describeRun(run: CommandRun): string {
  const end =
    run.startError !== null
      ? `could not start: ${run.startError}`
      : run.timedOut
        ? `timed out after ${run.durationMs} ms (process group killed)`
        : run.signal !== null
          ? `killed by ${run.signal} after ${run.durationMs} ms`
          : `exit code ${run.exitCode} after ${run.durationMs} ms`;
  const cut = run.outputCutBytes > 0 ? ` (first ${run.outputCutBytes} bytes left out)` : '';
  return `${run.argv.join(' ')}: ${end}; output${cut}: ${JSON.stringify(run.output.trimEnd())}`;
}
