import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import type { FreezerKind, ProcessHandle, ProcessLauncher } from '../../app/ports/process-launcher.js';
import { createChildProcessLauncher } from './child-process-launcher.js';
import { detectCgroupLayout } from './cgroup-layout.js';
import { detectFreezerKinds } from './freezer.js';
import { listProcessGroup, processGroupCpuMs } from './proc-group.js';
import {
  compiledSupervisorPath,
  makeJobDirectory,
  removeTemporaryDirectories,
  removeTestCgroupParent,
  TEST_ENV,
  testCgroupParent,
  waitForOutcome,
} from './testing/process-test-kit.js';
import { waitUntil } from './wait-until.js';
import { WAIT_MS } from '../../testing/deadlines.js';

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
    case 'cgroup-v2':
      return /^frozen (\d)$/m.exec(readFileSync(join(dir(layout.v2Mount), 'cgroup.events'), 'utf8'))?.[0] ?? '';
    case 'cgroup-v1':
      return readFileSync(join(dir(layout.v1Mounts.freezer), 'freezer.state'), 'utf8').trim();
    case 'signals':
      return listProcessGroup(handle.jobPid ?? -1)
        .map((p) => p.state)
        .join('');
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
    expect(available).toEqual(
      ['cgroup-v2', 'cgroup-v1', 'signals'].filter((k) => available.includes(k as FreezerKind)),
    );
  });
});

describe.each(['cgroup-v2', 'cgroup-v1', 'signals'] as const)('freezer %s', (kind) => {
  const missing = !available.includes(kind);
  let launcher: ProcessLauncher | null = null;
  const getLauncher = (): ProcessLauncher =>
    (launcher ??= createChildProcessLauncher({
      freezer: kind,
      cgroupParent,
      supervisorPath: compiledSupervisorPath(),
      supervisorDirectory: makeJobDirectory(),
      supervisorIdleExitMs: 2000,
    }));

  it.skipIf(missing)(
    `a CPU-bound job's CPU time stops while frozen and grows after thaw` +
      `${missing ? ` (skipped: this host has no ${kind} freezer)` : ''}`,
    async () => {
      const l = getLauncher();
      expect(l.freezerKind).toBe(kind);
      const dir = makeJobDirectory();
      const handle = await l.start({
        jobId: 1,
        attempt: 1,
        argv: ['sh', '-c', 'while :; do :; done'],
        workingDirectory: dir,
        environment: TEST_ENV,
        jobDirectory: dir,
        cpuMilli: 0,
        hostMemoryMiB: 0,
      });
      cleanups.push(async () => {
        await l.stop(handle, 'SIGKILL', 500);
        await l.cleanup(handle);
      });
      // A second CPU-bound job, never frozen: the yardstick of "the frozen job had its chance to run".
      const yardstickDir = makeJobDirectory(); // its own attempt files
      const yardstick = await l.start({
        jobId: 2,
        attempt: 1,
        argv: ['sh', '-c', 'while :; do :; done'],
        workingDirectory: yardstickDir,
        environment: TEST_ENV,
        jobDirectory: yardstickDir,
        cpuMilli: 0,
        hostMemoryMiB: 0,
      });
      cleanups.push(async () => {
        await l.stop(yardstick, 'SIGKILL', 500);
        await l.cleanup(yardstick);
      });
      const pgid = handle.jobPid ?? -1;
      const cpuOf = (group: number): number => processGroupCpuMs(group);
      /** Waits until `group` has used `ms` more CPU than `from` (bounded), returning its CPU then. */
      const cpuReaches = async (group: number, from: number, ms: number): Promise<number> => {
        expect(await waitUntil(() => cpuOf(group) - from >= ms, WAIT_MS, 10)).toBe(true);
        return cpuOf(group);
      };
      await cpuReaches(pgid, 0, 10);
      await l.freeze(handle);
      expect(frozenEvidence(kind, handle)).toBe(FROZEN[kind][0]);
      const frozenAt = cpuOf(pgid);
      // While the yardstick runs 300 ms of CPU, the frozen job runs none.
      await cpuReaches(yardstick.jobPid ?? -1, cpuOf(yardstick.jobPid ?? -1), 300);
      expect(cpuOf(pgid) - frozenAt).toBe(0);
      expect(l.isAlive(handle)).toBe(true); // the supervisor is not frozen with the job
      await l.thaw(handle);
      expect(frozenEvidence(kind, handle)).toMatch(FROZEN[kind][1]);
      await cpuReaches(pgid, cpuOf(pgid), 30); // runs again: ≥ 3 ticks
      // stop of a frozen job: thawed first, so SIGTERM works on every backend
      await l.freeze(handle);
      await l.stop(handle, 'SIGTERM', WAIT_MS);
      expect((await waitForOutcome(l, handle)).signal).toBe('SIGTERM');
      await l.freeze(handle); // a finished attempt: no-op
      await l.thaw(handle);
      await l.stop(yardstick, 'SIGKILL', 500);
      await waitForOutcome(l, yardstick);
    },
  );

  it.skipIf(!missing)(`forcing ${kind} on a host without it throws`, () => {
    expect(() => getLauncher()).toThrow(`freezer backend ${kind} is not available on this host`);
  });
});
