import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { afterAll, describe, expect, it } from 'vitest';
import type { FreezerKind, ProcessHandle, ProcessLauncher } from '../../app/ports/process-launcher.js';
import { createChildProcessLauncher } from './child-process-launcher.js';
import { detectCgroupLayout } from './cgroup-layout.js';
import { detectFreezerKinds } from './freezer.js';
import { listProcessGroup, processGroupCpuMs } from './proc-group.js';
import {
  compiledSupervisorPath, makeJobDirectory, removeTemporaryDirectories, removeTestCgroupParent, TEST_ENV, testCgroupParent, waitForOutcome,
} from './testing/process-test-kit.js';

const cgroupParent = testCgroupParent('freezer');
const layout = detectCgroupLayout();
const available = detectFreezerKinds(layout, cgroupParent);
const cleanups: Array<() => Promise<void>> = [];

afterAll(async () => {
  for (const cleanup of cleanups) await cleanup();
  removeTestCgroupParent(cgroupParent);
  removeTemporaryDirectories();
});

/** What the kernel says about a frozen attempt, per backend. */
function frozenEvidence(kind: FreezerKind, handle: ProcessHandle): string {
  const dir = (mount: string | null | undefined): string => join(mount ?? '', cgroupParent, handle.cgroupKey ?? '');
  switch (kind) {
    case 'cgroup-v2': return /^frozen (\d)$/m.exec(readFileSync(join(dir(layout.v2Mount), 'cgroup.events'), 'utf8'))?.[0] ?? '';
    case 'cgroup-v1': return readFileSync(join(dir(layout.v1Mounts.freezer), 'freezer.state'), 'utf8').trim();
    case 'signals': return listProcessGroup(handle.jobPid ?? -1).map((p) => p.state).join('');
  }
}

const FROZEN: Record<FreezerKind, [frozen: string, thawed: RegExp]> = {
  'cgroup-v2': ['frozen 1', /^frozen 0$/],
  'cgroup-v1': ['FROZEN', /^THAWED$/],
  signals: ['T', /^[RS]$/],
};

describe('freezer detection', () => {
  it(`finds the backends of this host, signals last (found: ${available.join(', ')})`, () => {
    expect(available.at(-1)).toBe('signals');
    expect(available).toEqual(['cgroup-v2', 'cgroup-v1', 'signals'].filter((k) => available.includes(k as FreezerKind)));
  });
});

describe.each(['cgroup-v2', 'cgroup-v1', 'signals'] as const)('freezer %s', (kind) => {
  const missing = !available.includes(kind);
  let launcher: ProcessLauncher | null = null;
  const getLauncher = (): ProcessLauncher =>
    (launcher ??= createChildProcessLauncher({ freezer: kind, cgroupParent, supervisorPath: compiledSupervisorPath() }));

  it.skipIf(missing)(`a CPU-bound job's CPU time stops while frozen and grows after thaw${missing ? ` (skipped: this host has no ${kind} freezer)` : ''}`, async () => {
    const l = getLauncher();
    expect(l.freezerKind).toBe(kind);
    const dir = makeJobDirectory();
    const handle = await l.start({
      jobId: 1, attempt: 1, argv: ['sh', '-c', 'while :; do :; done'], workingDirectory: dir,
      environment: TEST_ENV, jobDirectory: dir, cpuMilli: 0, hostMemoryMiB: 0,
    });
    cleanups.push(async () => { await l.stop(handle, 'SIGKILL', 500); await l.cleanup(handle); });
    const pgid = handle.jobPid ?? -1;
    await sleep(300);
    expect(processGroupCpuMs(pgid)).toBeGreaterThan(0);
    await l.freeze(handle);
    expect(frozenEvidence(kind, handle)).toBe(FROZEN[kind][0]);
    const frozenAt = processGroupCpuMs(pgid);
    await sleep(600);
    expect(processGroupCpuMs(pgid) - frozenAt).toBe(0);
    expect(l.isAlive(handle)).toBe(true); // the supervisor is not frozen with the job
    await l.thaw(handle);
    expect(frozenEvidence(kind, handle)).toMatch(FROZEN[kind][1]);
    const thawedAt = processGroupCpuMs(pgid);
    await sleep(600);
    expect(processGroupCpuMs(pgid) - thawedAt).toBeGreaterThanOrEqual(30); // ≥ 3 ticks, even on a loaded host
    // stop of a frozen job: thawed first, so SIGTERM works on every backend
    await l.freeze(handle);
    await l.stop(handle, 'SIGTERM', 2000);
    expect((await waitForOutcome(l, handle)).signal).toBe('SIGTERM');
    await l.freeze(handle); // a finished attempt: no-op
    await l.thaw(handle);
  });

  it.skipIf(!missing)(`forcing ${kind} on a host without it throws`, () => {
    expect(() => getLauncher()).toThrow(`freezer backend ${kind} is not available on this host`);
  });
});
