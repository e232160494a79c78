// The static half of `npm test`: ESLint, the Prettier check, tsc, the dependency rules and knip,
// run two at a time (longest first) because each uses one core. Each check's output is printed
// whole when it ends, with its duration; the exit status is 1 when any check failed, and every
// check runs to its end either way, so that one run reports every failure.
// Usage: node scripts/static-checks.mjs [--jobs N] [--with-build]
import { spawn } from 'node:child_process';

/** npm scripts of package.json, longest first (CPU seconds on 2 idle cores, about 18/16/13/4/3). */
const CHECKS = ['typecheck', 'format:check', 'lint', 'deps', 'knip'];
// --with-build also builds dist/ (about 20 s of CPU) beside the checks, for the tests that follow
// (npm test then tells vitest's global setup, with GPUSHARE_DIST_BUILT=1, that dist/ is built).
if (process.argv.includes('--with-build')) CHECKS.splice(1, 0, 'build');

const jobsFlag = process.argv.indexOf('--jobs');
const jobs = jobsFlag === -1 ? 2 : Number(process.argv[jobsFlag + 1]);
if (!Number.isInteger(jobs) || jobs < 1 || jobs > CHECKS.length) {
  process.stderr.write(`--jobs must be a whole number from 1 to ${CHECKS.length}, got ${process.argv[jobsFlag + 1]}\n`);
  process.exit(2);
}

/** Runs `npm run <name> --silent`; resolves to its exit code, output and wall time in seconds. */
function run(name) {
  const started = process.hrtime.bigint();
  return new Promise((resolve) => {
    const child = spawn('npm', ['run', name, '--silent'], { stdio: ['ignore', 'pipe', 'pipe'] });
    const chunks = [];
    child.stdout.on('data', (c) => chunks.push(c));
    child.stderr.on('data', (c) => chunks.push(c));
    child.on('error', (error) => resolve({ name, code: 127, output: `${error.message}\n`, seconds: 0 }));
    child.on('close', (code, signal) => {
      const seconds = Number(process.hrtime.bigint() - started) / 1e9;
      resolve({ name, code: code ?? (signal === null ? 1 : 128), output: Buffer.concat(chunks).toString(), seconds });
    });
  });
}

const queue = [...CHECKS];
const failed = [];
/** Takes checks off the queue one after another until it is empty. */
async function worker() {
  for (let name = queue.shift(); name !== undefined; name = queue.shift()) {
    const result = await run(name);
    const verdict = result.code === 0 ? 'ok' : `FAILED (exit ${result.code})`;
    process.stdout.write(`${result.output}::: ${name}: ${verdict}, ${result.seconds.toFixed(1)} s\n`);
    if (result.code !== 0) failed.push(name);
  }
}
await Promise.all(Array.from({ length: jobs }, () => worker()));
if (failed.length > 0) {
  process.stderr.write(`static checks failed: ${failed.join(', ')}\n`);
  process.exit(1);
}
