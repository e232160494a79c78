/**
 * Vitest global setup: builds dist/ once before any test runs (the end-to-end tests run the built
 * CLI, server and supervisor), so that no test builds while others read dist/.
 */
import { execFileSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));

/** Runs `npm run build` in the repository. */
export default function setup(): void {
  execFileSync('npm', ['run', 'build', '--silent'], { cwd: ROOT, stdio: 'inherit' });
}
