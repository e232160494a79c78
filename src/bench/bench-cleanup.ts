/**
 * Cleanup after the server benchmark: the job processes the server started (`sleep 100000`, never
 * finishing during the run) must not outlive it. Kills the process groups named in
 * `DIR/data/jobs/<id>/attempt-<n>.pid` and, as a safety net, any process whose working directory
 * or command line lies in the temp dir (supervisors still starting). Linux /proc; elsewhere only
 * the pid files are used.
 */
import type { ChildProcess } from 'node:child_process';
import { existsSync, readdirSync, readFileSync, readlinkSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { readJobPidFile } from '../adapters/process/attempt-files.js';
import { sleepSync } from '../host/sleep-sync.js';

const REAP_TIMEOUT_MS = 15_000;

/** Live pids (other than ours) whose cwd or command line lies under `dir` (Linux /proc; [] elsewhere). */
function processesUnder(dir: string): number[] {
  if (!existsSync('/proc/self')) return [];
  const found: number[] = [];
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    const pid = Number(entry);
    if (pid === process.pid) continue;
    try {
      const cwd = readlinkSync(`/proc/${pid}/cwd`);
      const cmdline = readFileSync(`/proc/${pid}/cmdline`, 'utf8');
      if (cwd === dir || cwd.startsWith(`${dir}/`) || cmdline.includes(dir)) found.push(pid);
    } catch {
      // gone, or not ours to inspect
    }
  }
  return found;
}

/** Live `sleep 100000` processes (what `pgrep -f 'sleep 100000'` finds), /proc only. */
export function sleepProcesses(): number[] {
  if (!existsSync('/proc/self')) return [];
  const found: number[] = [];
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      if (readFileSync(`/proc/${entry}/cmdline`, 'utf8').replaceAll('\0', ' ').includes('sleep 100000'))
        found.push(Number(entry));
    } catch {
      // gone
    }
  }
  return found;
}

/** The job pids recorded in `dataDir/jobs/<id>/attempt-<n>.pid`. */
function recordedJobPids(dataDir: string): number[] {
  const jobsDir = join(dataDir, 'jobs');
  if (!existsSync(jobsDir)) return [];
  const pids: number[] = [];
  for (const id of readdirSync(jobsDir)) {
    let files: string[];
    try {
      files = readdirSync(join(jobsDir, id));
    } catch {
      continue;
    }
    for (const file of files) {
      if (!/^attempt-\d+\.pid$/.test(file)) continue;
      try {
        const pid = readJobPidFile(join(jobsDir, id, file));
        if (pid !== null) pids.push(pid);
      } catch {
        // half-written pid file: the next sweep reads it
      }
    }
  }
  return pids;
}

/** True when `pid` exists and is not a zombie. */
function isLive(pid: number): boolean {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    return stat.slice(stat.lastIndexOf(')') + 2, stat.lastIndexOf(')') + 3) !== 'Z';
  } catch {
    return false;
  }
}

const killQuietly = (pid: number, signal: NodeJS.Signals): boolean => {
  try {
    process.kill(pid, signal);
    return true;
  } catch {
    return false;
  }
};

/** Everything to undo after (or during) a run; each step is idempotent. */
export class BenchCleanup {
  /** The server process once started (never signalled as a stray). */
  server: ChildProcess | null = null;
  private readonly killedGroups = new Set<number>();
  /** Other processes signalled (supervisors, jobs not yet in a pid file), distinct pids. */
  private readonly strayPids = new Set<number>();

  /** @param dir the temp dir (the server's data dir is `dir/data`) */
  constructor(readonly dir: string) {}

  /** The server's data dir. */
  get dataDir(): string {
    return join(this.dir, 'data');
  }

  /** SIGKILL to the process group of every recorded job pid not killed yet. */
  killRecordedJobs(): void {
    for (const pid of recordedJobPids(this.dataDir)) {
      if (this.killedGroups.has(pid)) continue;
      this.killedGroups.add(pid);
      killQuietly(-pid, 'SIGKILL');
    }
  }

  /**
   * SIGKILL to every process still in the temp dir (supervisors not yet past their launch). @returns how many were
   * found
   */
  killStrays(): number {
    const pids = processesUnder(this.dir).filter((pid) => pid !== this.server?.pid);
    for (const pid of pids) if (killQuietly(pid, 'SIGKILL')) this.strayPids.add(pid);
    return pids.length;
  }

  /** Job process groups signalled so far. */
  get groupsKilled(): number {
    return this.killedGroups.size;
  }

  /** Other processes signalled so far. */
  get straysKilled(): number {
    return this.strayPids.size;
  }

  /** Job pids from the pid files that are still alive (not zombies). */
  liveJobPids(): number[] {
    return [...this.killedGroups].filter(isLive);
  }

  /** Synchronous last resort (exit or signal of the benchmark itself): kill everything, remove the dir. */
  emergency(): void {
    if (this.server && this.server.exitCode === null && this.server.signalCode === null) this.server.kill('SIGKILL');
    for (let sweep = 0; sweep < 20; sweep++) {
      this.killRecordedJobs();
      if (this.killStrays() === 0 && sweep > 0) break;
      sleepSync(100);
    }
    try {
      rmSync(this.dir, { recursive: true, force: true, maxRetries: 5, retryDelay: 100 });
    } catch (error) {
      process.stderr.write(`[bench] could not remove ${this.dir}: ${(error as Error).message}\n`);
    }
  }
}

/**
 * Kills the jobs' process groups and stray processes until two sweeps in a row find nothing alive
 * in the temp dir (a supervisor may write its pid file after the first sweep), for at most 15 s.
 * @returns processes still alive in the temp dir at the end
 */
export async function reapJobs(cleanup: BenchCleanup): Promise<number> {
  const deadline = performance.now() + REAP_TIMEOUT_MS;
  let quietSweeps = 0;
  while (performance.now() < deadline) {
    cleanup.killRecordedJobs();
    const alive = cleanup.killStrays() + cleanup.liveJobPids().length;
    quietSweeps = alive === 0 ? quietSweeps + 1 : 0;
    if (quietSweeps >= 2) return 0;
    await sleep(250);
  }
  return processesUnder(cleanup.dir).length;
}
