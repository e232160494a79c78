/**
 * The example jobs in examples/ honour the checkpoint protocol: on SIGUSR1 they write their state
 * to $GPUSHARE_CHECKPOINT_DIR and exit; with GPUSHARE_RESUME=1 they continue from it and finish
 * with the same result as an uninterrupted run. Real child processes.
 */
import { spawn, spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { WAIT_MS } from '../../src/testing/deadlines.js';

const EXAMPLES = join(import.meta.dirname, '..', '..', 'examples');
const dirs: string[] = [];
afterAll(() => dirs.forEach((d) => rmSync(d, { recursive: true, force: true })));
const hasPython = spawnSync('python3', ['--version']).status === 0;

async function preemptAndResume(
  command: string,
  script: string,
): Promise<{ first: string; second: string; step: number; code: number | null }> {
  const dir = mkdtempSync(join(tmpdir(), 'gpushare-example-'));
  dirs.push(dir);
  const env = { ...process.env, GPUSHARE_CHECKPOINT_DIR: join(dir, 'checkpoint') };
  const child = spawn(command, [join(EXAMPLES, script), '40', script.endsWith('.py') ? '0.05' : '50'], {
    env,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let first = '';
  child.stdout.on('data', (d: Buffer) => (first += d.toString()));
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  // Wait until it has made progress (its first checkpoint, every 10 steps), then preempt it.
  const state = join(dir, 'checkpoint', 'state.json');
  for (const deadline = Date.now() + WAIT_MS; !existsSync(state) && Date.now() < deadline;)
    await new Promise((r) => setTimeout(r, 50));
  expect(existsSync(state)).toBe(true);
  child.kill('SIGUSR1');
  const code = await exited;
  const step = (JSON.parse(readFileSync(join(dir, 'checkpoint', 'state.json'), 'utf8')) as { step: number }).step;
  const resumed = spawnSync(command, [join(EXAMPLES, script), '40', script.endsWith('.py') ? '0.01' : '10'], {
    env: { ...env, GPUSHARE_RESUME: '1' },
    encoding: 'utf8',
    timeout: WAIT_MS,
  });
  return { first, second: resumed.stdout, step, code };
}

describe('checkpoint examples', () => {
  it('examples/checkpoint-job.mjs checkpoints on SIGUSR1 and resumes to the right sum', async () => {
    const { first, second, step, code } = await preemptAndResume(process.execPath, 'checkpoint-job.mjs');
    expect(code).toBe(0);
    expect(step).toBeGreaterThan(0);
    expect(first).toBe(`starting from step 0\ncheckpointed at step ${step}; exiting for preemption\n`);
    expect(second).toBe(`resumed at step ${step} (sum ${(step * (step + 1)) / 2})\ndone: sum of 1..40 = 820\n`);
  });

  it.skipIf(!hasPython)('examples/checkpoint_job.py checkpoints on SIGUSR1 and resumes to the right sum', async () => {
    const { first, second, step, code } = await preemptAndResume('python3', 'checkpoint_job.py');
    expect(code).toBe(0);
    expect(step).toBeGreaterThan(0);
    expect(first).toBe(`starting from step 0\ncheckpointed at step ${step}; exiting for preemption\n`);
    expect(second).toBe(`resumed at step ${step} (sum ${(step * (step + 1)) / 2})\ndone: sum of 1..40 = 820\n`);
  });
});
