/**
 * The process events of crash testing (app/ports/crash-points.ts, docs/crash-testing.md): a
 * ProcessLauncher and a MigManager that reach a crash point before and after each launch, signal
 * (the preemption signal: `process.checkpoint`) and MIG layout change, and after each attempt's
 * end they read. Wrapped only where crash points are wired (the crash harness, `GPUSHARE_CRASH_AT`);
 * everything else passes straight through.
 */
import type { CrashPoints, CrashSite } from '../ports/crash-points.js';
import type { MigManager } from '../ports/mig-manager.js';
import type { ProcessLauncher } from '../ports/process-launcher.js';

/**
 * `launcher` with crash points: `process.launch` around `start` (detail `job N attempt M`),
 * `process.signal` around `stop` (`process.checkpoint` when the signal is `checkpointSignal`, the
 * server's preemption signal), and `process.exit` (phase `after`) each time `readOutcome` finds an
 * attempt ended.
 */
export function withLaunchCrashPoints(
  launcher: ProcessLauncher,
  points: CrashPoints,
  checkpointSignal: NodeJS.Signals,
): ProcessLauncher {
  const around = async <T>(site: CrashSite, detail: string, run: () => Promise<T>): Promise<T> => {
    points.reach({ site, phase: 'before', detail });
    const result = await run();
    points.reach({ site, phase: 'after', detail });
    return result;
  };
  const wrapped: ProcessLauncher = {
    get freezerKind() {
      return launcher.freezerKind;
    },
    get enforcement() {
      return launcher.enforcement;
    },
    get isolation() {
      return launcher.isolation;
    },
    start: (spec) => around('process.launch', `job ${spec.jobId} attempt ${spec.attempt}`, () => launcher.start(spec)),
    isAlive: (handle) => launcher.isAlive(handle),
    readOutcome: (handle) => {
      const outcome = launcher.readOutcome(handle);
      if (outcome !== null)
        points.reach({ site: 'process.exit', phase: 'after', detail: `pid ${handle.supervisorPid}` });
      return outcome;
    },
    stop: (handle, signal, graceMs) =>
      around(
        signal === checkpointSignal ? 'process.checkpoint' : 'process.signal',
        `${signal} to pid ${handle.supervisorPid}`,
        () => launcher.stop(handle, signal, graceMs),
      ),
    freeze: (handle) => launcher.freeze(handle),
    thaw: (handle) => launcher.thaw(handle),
    close: () => launcher.close(),
    cleanup: (handle) => launcher.cleanup(handle),
    readAttemptOutcome: (directory, attempt) => launcher.readAttemptOutcome(directory, attempt),
    killUnrecordedAttempt: (jobId, directory, attempt) => launcher.killUnrecordedAttempt(jobId, directory, attempt),
    jobUser: (tenant) => launcher.jobUser(tenant),
    workingDirectoryProblem: (path, tenant) => launcher.workingDirectoryProblem(path, tenant),
    resolveExecutable: (argv0, workingDirectory, environment, tenant) =>
      launcher.resolveExecutable(argv0, workingDirectory, environment, tenant),
  };
  const limitEvents = launcher.limitEvents?.bind(launcher);
  return limitEvents === undefined ? wrapped : { ...wrapped, limitEvents };
}

/** `mig` with crash points: `mig.apply` before and after each layout change (detail `GPU i`). */
export function withMigCrashPoints(mig: MigManager, points: CrashPoints): MigManager {
  return {
    listInstances: (gpuIndex) => mig.listInstances(gpuIndex),
    apply: async (gpuIndex, plan) => {
      points.reach({ site: 'mig.apply', phase: 'before', detail: `GPU ${gpuIndex}` });
      const result = await mig.apply(gpuIndex, plan);
      points.reach({ site: 'mig.apply', phase: 'after', detail: `GPU ${gpuIndex}` });
      return result;
    },
  };
}
