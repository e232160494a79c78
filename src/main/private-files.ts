/**
 * What `gpushare serve` makes of its data directory before it serves (docs/store.md, decision
 * 0012), so that one tenant's files and secrets never reach anyone else:
 * 1. Privacy: the data directory, `jobs/`, `quarantine/` and every job folder get mode 0700; the
 *    store (`gpushare.db`, `-wal`, `-shm`), the admin token and the job-id mark mode 0600. Wider
 *    modes left by an older release or a copied backup are tightened, and logged. The data
 *    directory, `jobs/` and the job folders may keep mode 0711 (passable, not listable), which a
 *    user-namespace sandbox sets ({@link openJobFoldersToTenants}).
 * 2. Job ids never come back: the store's job-id sequence is raised to the highest id the mark file
 *    (`last-job-id`) or any job folder on disk names (a restored backup forgot the jobs after it).
 * 3. Quarantine: a folder of `jobs/` that the store does not record as a job's own is moved to
 *    `quarantine/<time>/` and named in the log; no job is ever handed it.
 * 4. Process handles: the file paths of a running attempt are derived from its job folder, so a
 *    data directory copied or restored elsewhere keeps finding its jobs' outcome files.
 */
import { chmodSync, existsSync, lstatSync, mkdirSync, readdirSync, renameSync, statSync } from 'node:fs';
import { join } from 'node:path';
import type { Logger } from '../app/scheduling/plane-deps.js';
import type { CrashPoints } from '../app/ports/crash-points.js';
import type { JobFiles } from '../app/ports/job-files.js';
import type { StateStore } from '../app/ports/state-store.js';
import { attemptFiles } from '../adapters/process/attempt-files.js';
import {
  createJobFiles,
  JOB_FOLDER_MODE,
  jobIdOfFolder,
  TRAVERSABLE_FOLDER_MODE,
} from '../adapters/process/job-files.js';
import { openSqliteStore, type SqliteStateStore } from '../adapters/store/sqlite-store.js';
import { PRIVATE_FILE_MODE } from '../adapters/store/private-file.js';

/** The job-id high-water mark file in the data directory. */
const JOB_ID_MARK_FILE = 'last-job-id';

/** Files of the data directory that hold secrets (token digests, job environments, the admin token). */
const PRIVATE_FILES = ['gpushare.db', 'gpushare.db-wal', 'gpushare.db-shm', 'admin-token', JOB_ID_MARK_FILE];

/** Sets `path`'s permission bits to `mode` when they differ; returns `path (0755 → 0700)` then, else null. */
function tighten(path: string, mode: number): string | null {
  const was = statSync(path).mode & 0o777;
  if (was === mode) return null;
  chmodSync(path, mode);
  return `${path} (${was.toString(8).padStart(4, '0')} → ${mode.toString(8).padStart(4, '0')})`;
}

/** Like {@link tighten} to 0700, but a folder at 0711 (passable by others, a sandbox's) is left so. */
function tightenFolder(path: string): string | null {
  return (statSync(path).mode & 0o777) === TRAVERSABLE_FOLDER_MODE ? null : tighten(path, JOB_FOLDER_MODE);
}

/** Folders in `path` (none when it does not exist). */
function subfolders(path: string): string[] {
  if (!existsSync(path)) return [];
  return readdirSync(path, { withFileTypes: true })
    .filter((d) => d.isDirectory())
    .map((d) => d.name);
}

/**
 * Makes the data directory private (see the module comment, 1).
 * @returns the paths whose mode changed, each as `path (old → new)`
 */
function tightenDataDir(dataDir: string): string[] {
  const changed: (string | null)[] = [tightenFolder(dataDir)];
  for (const name of PRIVATE_FILES) {
    if (existsSync(join(dataDir, name))) changed.push(tighten(join(dataDir, name), PRIVATE_FILE_MODE));
  }
  for (const top of ['jobs', 'quarantine']) {
    const folder = join(dataDir, top);
    if (!existsSync(folder)) continue;
    const fix = top === 'jobs' ? tightenFolder : (path: string) => tighten(path, JOB_FOLDER_MODE);
    changed.push(fix(folder));
    for (const name of subfolders(folder)) changed.push(fix(join(folder, name)));
  }
  return changed.filter((c): c is string => c !== null);
}

/**
 * Lets a user-namespace sandbox, which runs under the tenant's uid, reach the job folders it binds
 * in (decision 0036): the data directory, `jobs/` and every job folder get mode 0711 (others may
 * pass through, never list or read), and every plain file directly in them loses any access by
 * group or others (mode & 0700): the store, the tokens, the keys and the attempts' logs and specs
 * stay private to root. Folders in them other than `jobs/` and the job folders (`tls/`,
 * `quarantine/`, the supervisor's) keep their own private modes. The folders a job owns (`work/`,
 * `checkpoint/`) are its uid's, mode 0700.
 * @returns the paths whose mode changed, each as `path (old → new)`
 */
export function openJobFoldersToTenants(dataDir: string): string[] {
  const changed: (string | null)[] = [];
  const privateFilesIn = (folder: string): void => {
    for (const entry of readdirSync(folder, { withFileTypes: true })) {
      if (!entry.isFile()) continue;
      const path = join(folder, entry.name);
      const mode = lstatSync(path).mode & 0o777;
      if ((mode & 0o077) !== 0) changed.push(tighten(path, mode & 0o700));
    }
  };
  changed.push(tighten(dataDir, TRAVERSABLE_FOLDER_MODE));
  privateFilesIn(dataDir);
  const jobs = join(dataDir, 'jobs');
  mkdirSync(jobs, { recursive: true, mode: TRAVERSABLE_FOLDER_MODE });
  changed.push(tighten(jobs, TRAVERSABLE_FOLDER_MODE));
  for (const name of subfolders(jobs)) {
    const folder = join(jobs, name);
    changed.push(tighten(folder, TRAVERSABLE_FOLDER_MODE));
    privateFilesIn(folder);
  }
  return changed.filter((c): c is string => c !== null);
}

/** The highest job id named by a folder of `jobs/` or of `quarantine/<time>/`; 0 when none. */
function highestJobIdOnDisk(dataDir: string): number {
  const names = [
    ...subfolders(join(dataDir, 'jobs')),
    ...subfolders(join(dataDir, 'quarantine')).flatMap((time) => subfolders(join(dataDir, 'quarantine', time))),
  ];
  return names.reduce((highest, name) => Math.max(highest, jobIdOfFolder(name) ?? 0), 0);
}

/**
 * Moves every entry of `jobs/` that is not the recorded folder of a job of `store` to a new
 * `quarantine/<time>/` (mode 0700; `time` is `nowMs` as ISO 8601 with `-` for `:`).
 * @returns the quarantine folder and the names moved, or null when every folder is known
 */
function quarantineUnknownJobFolders(
  dataDir: string,
  store: StateStore,
  nowMs: number,
): { readonly folder: string; readonly names: string[] } | null {
  const jobs = join(dataDir, 'jobs');
  if (!existsSync(jobs)) return null;
  const unknown = readdirSync(jobs)
    .filter((name) => {
      const id = jobIdOfFolder(name);
      return id === null || store.getJob(id)?.folder !== name;
    })
    .sort();
  if (unknown.length === 0) return null;
  const root = join(dataDir, 'quarantine');
  mkdirSync(root, { recursive: true, mode: JOB_FOLDER_MODE });
  chmodSync(root, JOB_FOLDER_MODE);
  const stamp = new Date(nowMs).toISOString().replaceAll(':', '-');
  let folder = join(root, stamp);
  for (let n = 2; existsSync(folder); n++) folder = join(root, `${stamp}-${n}`);
  mkdirSync(folder, { mode: JOB_FOLDER_MODE });
  chmodSync(folder, JOB_FOLDER_MODE);
  for (const name of unknown) renameSync(join(jobs, name), join(folder, name));
  return { folder, names: unknown };
}

/**
 * Rewrites the file paths of every stored process handle to the files of its attempt in its job's
 * folder, where they differ (a data directory copied, moved or restored elsewhere).
 * @returns the ids of the jobs whose handle changed
 */
function rebaseProcessHandles(store: StateStore, files: JobFiles, nowMs: number): number[] {
  const rebased: number[] = [];
  for (const job of store.listJobs({ states: ['scheduled', 'running', 'pending', 'preempted'] })) {
    if (job.process === null || job.folder === null) continue;
    const { stdoutPath, stderrPath, pidPath, outcomePath } = attemptFiles(files.directory(job.folder), job.attempt);
    const handle = job.process;
    if (
      handle.stdoutPath === stdoutPath &&
      handle.stderrPath === stderrPath &&
      handle.pidPath === pidPath &&
      handle.outcomePath === outcomePath
    )
      continue;
    store.applyJobChanges([
      {
        jobId: job.id,
        atMs: nowMs,
        expectState: job.state,
        patch: { process: { ...handle, stdoutPath, stderrPath, pidPath, outcomePath } },
      },
    ]);
    rebased.push(job.id);
  }
  return rebased;
}

/**
 * Opens the store of a locked data directory after making the directory private, raises its job
 * ids above every id given out before, quarantines unknown job folders and rebases process handles
 * (the module comment, 1-4), logging each change. `onDiskFull` hears of every write that fails
 * because the disk is full (sqlite-store.ts); `crashPoints` (tests of crashes only) is told of every
 * commit.
 * @throws Error naming the file when the store or the job-id mark cannot be opened
 */
export function openDataDirStore(
  dataDir: string,
  logger: Logger,
  nowMs: number = Date.now(),
  onDiskFull?: (error: Error) => void,
  crashPoints?: CrashPoints,
): SqliteStateStore {
  const tightened = tightenDataDir(dataDir);
  if (tightened.length > 0)
    logger.warn({ tightened }, `data directory: made private to this user: ${tightened.join(', ')}`);
  const store = openSqliteStore(join(dataDir, 'gpushare.db'), {
    jobIdMarkPath: join(dataDir, JOB_ID_MARK_FILE),
    jobIdFloor: highestJobIdOnDisk(dataDir),
    ...(onDiskFull ? { onDiskFull } : {}),
    ...(crashPoints ? { crashPoints } : {}),
  });
  try {
    const raised = store.jobIdsRaised;
    if (raised)
      logger.warn(
        { from: raised.from, to: raised.to },
        `job ids continue above ${raised.to}: ids up to ${raised.to} were given out before, the store ` +
          `only knew up to ${raised.from} (a restored backup); an id is never reused`,
      );
    const capped = store.tenantsGivenHighCap;
    if (capped.length > 0)
      logger.warn(
        { tenants: capped },
        `priority caps: existing tenant(s) ${capped.join(', ')} may now submit at most at priority class ` +
          `high (900); new tenants get normal; an admin raises a cap with \`gpushare tenant set-limits NAME ` +
          `--max-priority critical\``,
      );
    const quarantined = quarantineUnknownJobFolders(dataDir, store, nowMs);
    if (quarantined)
      logger.warn(
        { quarantine: quarantined.folder, folders: quarantined.names },
        `moved ${quarantined.names.length} job folder(s) the store does not know (a restored backup?) to ` +
          `${quarantined.folder}: ${quarantined.names.join(', ')}`,
      );
    const rebased = rebaseProcessHandles(store, createJobFiles(dataDir), nowMs);
    if (rebased.length > 0)
      logger.info({ jobIds: rebased }, 'process handles now point into their job folders in this data directory');
  } catch (error) {
    store.close();
    throw error;
  }
  return store;
}
