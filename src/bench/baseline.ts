/**
 * The "before" of a before/after benchmark (`npm run bench -- --baseline-ref REF`): a git worktree
 * of REF in a temporary directory, sharing this checkout's node_modules and built with tsc, so
 * that one benchmark run measures both builds on the same machine, alternately. Removed after the
 * run (`git worktree remove`).
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));

/** A built baseline checkout. */
export interface Baseline {
  readonly ref: string;
  /** The commit `ref` resolved to. */
  readonly commit: string;
  /** Root of the checkout (its bin/gpushare and dist/ are the baseline's). */
  readonly root: string;
  /** Removes the worktree. */
  remove(): void;
}

/**
 * Checks `ref` out and builds it.
 * @throws Error when git cannot resolve the ref or the build fails
 */
export function prepareBaseline(ref: string, progress: (message: string) => void): Baseline {
  const git = (...args: string[]): string => execFileSync('git', args, { cwd: ROOT, encoding: 'utf8' }).trim();
  const commit = git('rev-parse', '--verify', `${ref}^{commit}`);
  const root = join(mkdtempSync(join(tmpdir(), 'gpushare-baseline-')), 'checkout');
  progress(`baseline: checking out ${ref} (${commit.slice(0, 10)}) into ${root}`);
  git('worktree', 'add', '--detach', root, commit);
  const remove = (): void => {
    try {
      git('worktree', 'remove', '--force', root);
    } catch {
      rmSync(root, { recursive: true, force: true });
      git('worktree', 'prune');
    }
    rmSync(dirname(root), { recursive: true, force: true });
  };
  try {
    symlinkSync(join(ROOT, 'node_modules'), join(root, 'node_modules'));
    progress('baseline: building (tsc)…');
    execFileSync(
      process.execPath,
      [join(ROOT, 'node_modules', 'typescript', 'bin', 'tsc'), '-p', 'tsconfig.build.json'],
      { cwd: root, stdio: 'pipe' },
    );
  } catch (error) {
    remove();
    throw error;
  }
  return { ref, commit, root, remove };
}
