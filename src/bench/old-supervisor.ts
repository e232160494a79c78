/**
 * The baseline of the supervisor benchmark: the memory of one supervisor of the earlier design,
 * one Node process per attempt, taken from git (its four source files at
 * {@link OLD_SUPERVISOR_COMMIT}), bundled with esbuild and run on one `sleep` job without a sandbox.
 */
import { execFileSync, spawn } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { fileURLToPath } from 'node:url';
import { processMemory, type MemoryKiB } from './process-memory.js';

/** The last commit whose supervisor ran one attempt per process. */
export const OLD_SUPERVISOR_COMMIT = '90c829c';
const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const FILES = ['supervisor.ts', 'supervisor-spec.ts', 'capped-log.ts', 'sandbox-argv.ts'];

/**
 * Runs the old supervisor on `sleep 60` in `dir` and measures it once it runs the job.
 * @returns its memory, or a sentence saying why it could not be measured (no git history, no esbuild)
 */
export async function measureOldSupervisor(dir: string): Promise<MemoryKiB | string> {
  const source = join(dir, 'old-supervisor');
  mkdirSync(source, { recursive: true });
  try {
    for (const file of FILES) {
      writeFileSync(
        join(source, file),
        execFileSync('git', ['show', `${OLD_SUPERVISOR_COMMIT}:src/adapters/process/${file}`], {
          cwd: ROOT,
          encoding: 'utf8',
          stdio: ['ignore', 'pipe', 'ignore'],
        }),
      );
    }
    const { buildSync } = await import('esbuild');
    buildSync({
      entryPoints: [join(source, 'supervisor.ts')],
      outfile: join(source, 'supervisor.mjs'),
      bundle: true,
      platform: 'node',
      format: 'esm',
      logLevel: 'error',
    });
  } catch (error) {
    return `the supervisor of ${OLD_SUPERVISOR_COMMIT} could not be built: ${(error as Error).message.split('\n')[0]}`;
  }
  const job = join(dir, 'old-job');
  mkdirSync(job, { recursive: true });
  const spec = {
    argv: ['sleep', '60'],
    workingDirectory: job,
    environment: { PATH: process.env.PATH ?? '/usr/bin:/bin' },
    cgroups: [],
    stdoutPath: join(job, 'out.log'),
    stderrPath: join(job, 'err.log'),
    pidPath: join(job, 'job.pid'),
    outcomePath: join(job, 'outcome.json'),
  };
  writeFileSync(join(job, 'spec.json'), JSON.stringify(spec), { mode: 0o600 });
  const child = spawn(process.execPath, [join(source, 'supervisor.mjs'), join(job, 'spec.json')], {
    detached: true,
    stdio: 'ignore',
  });
  child.unref();
  try {
    for (let i = 0; i < 200 && !existsSync(spec.pidPath); i++) await sleep(50);
    if (!existsSync(spec.pidPath)) return 'the old supervisor did not start its job within 10 s';
    await sleep(500); // settled, as a supervisor is while its job runs
    return processMemory(child.pid!);
  } finally {
    try {
      process.kill(-(JSON.parse(readFileSync(spec.pidPath, 'utf8')) as { jobPid: number }).jobPid, 'SIGKILL');
    } catch {
      // never started
    }
    child.kill('SIGKILL');
  }
}
