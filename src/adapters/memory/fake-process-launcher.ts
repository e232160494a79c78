/**
 * A process launcher without processes (app/ports/process-launcher.ts), for tests of the control
 * plane: an attempt "runs" from `start` until the test ends it (`exit`, `vanish`) or a stop signal
 * reaches it, and its job's reaction to a signal is the test's to choose (exit 0 after saving a
 * checkpoint, ignore it, ...). Times come from the clock the test drives.
 */
import type { Clock } from '../../app/ports/clock.js';
import type {
  FreezerKind,
  LaunchSpec,
  LimitEnforcement,
  ProcessHandle,
  ProcessLauncher,
  ProcessOutcome,
} from '../../app/ports/process-launcher.js';

/** How a fake job answers a signal: an exit (code or signal), or null to keep running. */
export type SignalReaction = (
  signal: NodeJS.Signals,
  spec: LaunchSpec,
) => { exitCode: number | null; signal: string | null } | null;

/** One fake attempt. */
export interface FakeAttempt {
  readonly spec: LaunchSpec;
  readonly handle: ProcessHandle;
  outcome: ProcessOutcome | null;
  /** False once it vanished without an outcome (lost). */
  alive: boolean;
  /** Signals it was sent, in order. */
  readonly signals: NodeJS.Signals[];
  frozen: boolean;
  /** When the first signal reached it while it ran; null while none has. */
  signalDeliveredAtMs: number | null;
}

/** The fake launcher. */
export class FakeProcessLauncher implements ProcessLauncher {
  readonly freezerKind: FreezerKind = 'signals';
  readonly enforcement: LimitEnforcement = { cpuMilli: false, hostMemoryMiB: false };
  /** Every attempt started, in order. */
  readonly attempts: FakeAttempt[] = [];
  /** How jobs react to signals; default: any signal ends the job with that signal. */
  onSignal: SignalReaction = (signal) => ({ exitCode: null, signal });
  /** Programs `resolveExecutable` finds (argv[0] → path); default: every program exists as /usr/bin/<name>. */
  programs: (argv0: string) => string | null = (argv0) => (argv0.includes('/') ? argv0 : `/usr/bin/${argv0}`);
  /** Directories `workingDirectoryProblem` accepts; default: every absolute path is one. */
  directories: (path: string) => boolean = (path) => path.startsWith('/');
  private nextPid = 1000;

  constructor(private readonly clock: Clock) {}

  /** The latest attempt of job `jobId`. @throws Error when it never started */
  attempt(jobId: number): FakeAttempt {
    const found = [...this.attempts].reverse().find((a) => a.spec.jobId === jobId);
    if (!found) throw new Error(`job ${jobId} never started`);
    return found;
  }

  /**
   * Ends the latest attempt of job `jobId` on its own (before any signal) with `exitCode` or
   * `signal`, at `endedAtMs` as its supervisor records it (default: now).
   */
  exit(jobId: number, result: { exitCode: number | null; signal?: string | null; endedAtMs?: number }): void {
    this.end(this.attempt(jobId), result.exitCode, result.signal ?? null, result.endedAtMs);
  }

  /** Makes the latest attempt of job `jobId` vanish without an outcome (a lost process). */
  vanish(jobId: number): void {
    this.attempt(jobId).alive = false;
  }

  async start(spec: LaunchSpec): Promise<ProcessHandle> {
    const pid = this.nextPid++;
    const handle: ProcessHandle = {
      supervisorPid: pid,
      supervisorStartTime: String(this.clock.nowMs()),
      jobPid: pid + 100_000,
      cgroupKey: null,
      freezerKind: 'signals',
      stdoutPath: `${spec.jobDirectory}/attempt-${spec.attempt}.stdout.log`,
      stderrPath: `${spec.jobDirectory}/attempt-${spec.attempt}.stderr.log`,
      pidPath: `${spec.jobDirectory}/attempt-${spec.attempt}.pid`,
      outcomePath: `${spec.jobDirectory}/attempt-${spec.attempt}.outcome.json`,
    };
    this.attempts.push({
      spec,
      handle,
      outcome: null,
      alive: true,
      signals: [],
      frozen: false,
      signalDeliveredAtMs: null,
    });
    return handle;
  }

  isAlive(handle: ProcessHandle): boolean {
    const a = this.find(handle);
    return a !== undefined && a.alive && a.outcome === null;
  }

  readOutcome(handle: ProcessHandle): ProcessOutcome | null {
    return this.find(handle)?.outcome ?? null;
  }

  async stop(handle: ProcessHandle, signal: NodeJS.Signals): Promise<void> {
    const a = this.find(handle);
    if (!a || !a.alive || a.outcome !== null) return;
    a.signals.push(signal);
    a.signalDeliveredAtMs ??= this.clock.nowMs();
    const reaction = this.onSignal(signal, a.spec);
    if (reaction !== null) this.end(a, reaction.exitCode, reaction.signal);
  }

  async freeze(handle: ProcessHandle): Promise<void> {
    const a = this.find(handle);
    if (a) a.frozen = true;
  }

  async thaw(handle: ProcessHandle): Promise<void> {
    const a = this.find(handle);
    if (a) a.frozen = false;
  }

  async cleanup(): Promise<void> {
    // nothing to clean
  }

  readAttemptOutcome(jobDirectory: string, attempt: number): ProcessOutcome | null {
    return (
      this.attempts.find((a) => a.spec.jobDirectory === jobDirectory && a.spec.attempt === attempt)?.outcome ?? null
    );
  }

  /** Ends the attempt `attempt` of the job whose folder is `jobDirectory` with SIGKILL, when it still runs. */
  async killUnrecordedAttempt(_jobId: number, jobDirectory: string, attempt: number): Promise<void> {
    for (const a of this.attempts)
      if (a.spec.jobDirectory === jobDirectory && a.spec.attempt === attempt && a.alive && a.outcome === null)
        this.end(a, null, 'SIGKILL');
  }

  readonly isolation = { sandboxed: false, detail: 'fake processes' };

  /** The Unix user of a tenant's jobs (`jobUser`); default none (jobs run as the server's user). */
  users: (tenant: string) => { uid: number; gid: number } | null = () => null;

  close(): void {
    // nothing made on a host
  }

  jobUser(tenant: string): { uid: number; gid: number } | null {
    return this.users(tenant);
  }

  workingDirectoryProblem(path: string): string | null {
    return this.directories(path) ? null : `directory "${path}" does not exist on the server`;
  }

  resolveExecutable(argv0: string): string | null {
    return this.programs(argv0);
  }

  private end(a: FakeAttempt, exitCode: number | null, signal: string | null, endedAtMs = this.clock.nowMs()): void {
    a.outcome = {
      exitCode,
      signal,
      startedAtMs: Number(a.handle.supervisorStartTime),
      endedAtMs,
      error: null,
      signalDeliveredAtMs: a.signalDeliveredAtMs,
    };
  }

  private find(handle: ProcessHandle): FakeAttempt | undefined {
    return this.attempts.find((a) => a.handle.supervisorPid === handle.supervisorPid);
  }
}
