/**
 * One supervised attempt in this process (the supervisor's own tests run it in a real supervisor):
 * a command that ends before its pid file is written is still answered with its pids, and its
 * outcome is written after the pid file. The pid file's write is held back here until the attempt
 * has ended: on a loaded machine the write can simply be that slow.
 */
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it, vi } from 'vitest';
import { type AttemptPids, SupervisedAttempt } from './supervised-attempt.js';
import { makeJobDirectory, removeTemporaryDirectories, TEST_ENV } from './testing/process-test-kit.js';
import { waitUntil } from './wait-until.js';
import { WAIT_MS } from '../../testing/deadlines.js';

/** The paths tryWriteAtomically was called with, in order, and the pid file's write held back until released. */
const writes = vi.hoisted(() => {
  let release: () => void = () => undefined;
  const held = new Promise<void>((resolve) => (release = resolve));
  return { paths: [] as string[], held, release: () => release() };
});

vi.mock('./supervisor-helpers.js', async (importOriginal) => {
  const original = await importOriginal<typeof import('./supervisor-helpers.js')>();
  return {
    ...original,
    tryWriteAtomically: async (path: string, data: string): Promise<boolean> => {
      writes.paths.push(path);
      if (path.endsWith('.pid')) await writes.held;
      return original.tryWriteAtomically(path, data);
    },
  };
});

afterAll(() => removeTemporaryDirectories());

describe('a supervised attempt', () => {
  it('answers with the pids of a command that ended before its pid file was written; the outcome follows', async () => {
    const dir = makeJobDirectory();
    const pidPath = join(dir, 'attempt-1.pid');
    const outcomePath = join(dir, 'attempt-1.outcome.json');
    const ready: AttemptPids[] = [];
    let done = false;
    const attempt = new SupervisedAttempt(
      {
        argv: ['sh', '-c', 'echo hi'],
        workingDirectory: dir,
        environment: TEST_ENV,
        cgroups: [],
        stdoutPath: join(dir, 'attempt-1.stdout.log'),
        stderrPath: join(dir, 'attempt-1.stderr.log'),
        pidPath,
        outcomePath,
      },
      { onReady: (pids) => ready.push(pids), onDone: () => (done = true), log: () => undefined },
    );
    attempt.start();
    // The command ends, its pipes end, the attempt finishes: all while its pid file is held back.
    const finished = (): boolean => (attempt as unknown as { finished: boolean }).finished;
    expect(await waitUntil(finished, WAIT_MS)).toBe(true);
    expect([writes.paths, ready, existsSync(outcomePath)]).toEqual([[pidPath], [], false]);

    writes.release();
    expect(await waitUntil(() => done, WAIT_MS)).toBe(true);
    expect(writes.paths).toEqual([pidPath, outcomePath]);
    const written = JSON.parse(readFileSync(pidPath, 'utf8')) as AttemptPids;
    expect(written.jobPid).toBeGreaterThan(0);
    expect(written.commandPid).toBe(written.jobPid);
    expect(ready).toEqual([written]);
    expect(JSON.parse(readFileSync(outcomePath, 'utf8'))).toMatchObject({ exitCode: 0, signal: null, error: null });
  });
});
