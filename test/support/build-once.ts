/**
 * Vitest global setup: builds dist/ once before any test runs (the end-to-end tests run the built
 * CLI, server and supervisor), so that no test builds while others read dist/.
 */
import { execFileSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));

/**
 * Runs `npm run build` in the repository, unless `GPUSHARE_DIST_BUILT=1` says that it has just run
 * (`npm test` builds beside its static checks, with concurrently).
 */
export default function setup(): void {
  if (process.env['GPUSHARE_DIST_BUILT'] === '1') return;
  execFileSync('npm', ['run', 'build', '--silent'], { cwd: ROOT, stdio: 'inherit' });
}
