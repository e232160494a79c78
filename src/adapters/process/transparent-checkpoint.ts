/**
 * Detection of transparent checkpointing (CRIU for host processes, NVIDIA's `cuda-checkpoint` for
 * CUDA state) at server start. gpushare checkpoints preemption victims with the signal protocol
 * (docs/preemption.md); it reports what this host would offer for transparent checkpoints but
 * never uses or claims them unless they were checked here: a missing tool or a failing
 * `criu check` is reported as such.
 */
import { spawnSync } from 'node:child_process';

/** What the host offers, and what gpushare uses. */
export interface CheckpointSupport {
  /** Always `signal`: the protocol gpushare uses for preemption. */
  readonly method: 'signal';
  /** Whether transparent checkpointing could be used on this host (it is not, see `detail`). */
  readonly transparentAvailable: boolean;
  /** One line per tool: found or not, and what its check said. */
  readonly detail: string;
}

/** Runs the checks (each bounded by `timeoutMs`). Never throws. */
export function detectCheckpointSupport(options: { timeoutMs?: number; path?: string } = {}): CheckpointSupport {
  const timeout = options.timeoutMs ?? 5000;
  const env = { ...process.env, ...(options.path ? { PATH: options.path } : {}) };
  const run = (cmd: string, args: string[]) => spawnSync(cmd, args, { timeout, env, encoding: 'utf8' });
  const criu = run('criu', ['check']);
  const criuLine = criu.error
    ? 'criu: not installed'
    : criu.status === 0
      ? 'criu: `criu check` passed'
      : `criu: \`criu check\` failed (${(criu.stderr || criu.stdout || `exit ${criu.status}`).trim().split('\n')[0]})`;
  const cuda = run('cuda-checkpoint', ['--help']);
  const cudaLine = cuda.error ? 'cuda-checkpoint: not installed' : 'cuda-checkpoint: found';
  const transparentAvailable = !criu.error && criu.status === 0 && !cuda.error;
  return {
    method: 'signal',
    transparentAvailable,
    detail:
      `${criuLine}; ${cudaLine}; preemption uses the signal protocol` +
      `${transparentAvailable ? ' (transparent checkpointing is not used by this version)' : ''}`,
  };
}
