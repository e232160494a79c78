/**
 * Where this host mounts its cgroup hierarchies (cgroup v2 and/or v1, the "hybrid" layout
 * included), read from `/proc/self/mounts`, which cgroup this process is in, and the folder a
 * server's jobs get in each hierarchy.
 */
import { createHash } from 'node:crypto';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';

/** The cgroup hierarchies usable by the launcher. */
export interface CgroupLayout {
  /** Mount point of the cgroup v2 (unified) hierarchy, null when none. */
  v2Mount: string | null;
  /** Controllers available at the v2 root (`cgroup.controllers`), e.g. ['cpu', 'memory']. */
  v2Controllers: readonly string[];
  /** Mount point of each cgroup v1 controller (`freezer`, `cpu`, `memory`, ...). */
  v1Mounts: Readonly<Record<string, string>>;
}

/** One line of /proc/self/mounts. */
interface MountEntry {
  mountPoint: string;
  fsType: string;
  options: string[];
}

/** Undoes the octal escapes (`\040` for a space) of /proc/self/mounts fields. */
function unescapeMountField(field: string): string {
  return field.replace(/\\([0-7]{3})/g, (_, octal: string) => String.fromCharCode(parseInt(octal, 8)));
}

/** Parses /proc/self/mounts text into entries. */
function parseMounts(text: string): MountEntry[] {
  const entries: MountEntry[] = [];
  for (const line of text.split('\n')) {
    const fields = line.trim().split(/\s+/);
    if (fields.length < 4) continue;
    entries.push({
      mountPoint: unescapeMountField(fields[1] ?? ''),
      fsType: fields[2] ?? '',
      options: (fields[3] ?? '').split(','),
    });
  }
  return entries;
}

/** v1 controllers the launcher knows (the names that appear as mount options). */
const V1_CONTROLLERS = ['freezer', 'cpu', 'cpuacct', 'memory', 'pids'] as const;

/**
 * Finds the cgroup hierarchies mounted under `cgroupRoot` (default `/sys/fs/cgroup`) in
 * `mountsText` (the text of /proc/self/mounts). `readControllers` reads a v2 root's
 * `cgroup.controllers` (injectable for tests). The first mount found for each kind wins.
 */
export function parseCgroupLayout(
  mountsText: string,
  cgroupRoot: string,
  readControllers: (v2Mount: string) => string,
): CgroupLayout {
  const root = cgroupRoot.replace(/\/+$/, '');
  const under = (p: string): boolean => p === root || p.startsWith(`${root}/`);
  let v2Mount: string | null = null;
  const v1Mounts: Record<string, string> = {};
  for (const entry of parseMounts(mountsText)) {
    if (!under(entry.mountPoint)) continue;
    if (entry.fsType === 'cgroup2' && v2Mount === null) v2Mount = entry.mountPoint;
    if (entry.fsType !== 'cgroup') continue;
    for (const controller of V1_CONTROLLERS) {
      if (entry.options.includes(controller) && v1Mounts[controller] === undefined) {
        v1Mounts[controller] = entry.mountPoint;
      }
    }
  }
  let v2Controllers: string[] = [];
  if (v2Mount !== null) {
    try {
      v2Controllers = readControllers(v2Mount)
        .trim()
        .split(/\s+/)
        .filter((c) => c !== '');
    } catch {
      v2Controllers = [];
    }
  }
  return { v2Mount, v2Controllers, v1Mounts };
}

/** The mount point of each hierarchy in `layout` (the v2 one and each v1 controller's), each once. */
export function cgroupMounts(layout: CgroupLayout): string[] {
  return [...new Set([layout.v2Mount, ...Object.values(layout.v1Mounts)].filter((m): m is string => m !== null))];
}

/**
 * The cgroup folder, in each hierarchy, of the jobs of a server on data dir `dataDir` (its resolved
 * `--data-dir`): `gpushare-` and the first 12 hex digits of the path's SHA-256. Job ids restart in
 * every store, so two servers on one host (a test run beside a service) must never share one.
 */
export function jobCgroupParent(dataDir: string): string {
  return `gpushare-${createHash('sha256').update(dataDir).digest('hex').slice(0, 12)}`;
}

/** Detects this host's cgroup layout under `cgroupRoot` (default `/sys/fs/cgroup`). */
export function detectCgroupLayout(cgroupRoot = '/sys/fs/cgroup'): CgroupLayout {
  let mounts = '';
  try {
    mounts = readFileSync('/proc/self/mounts', 'utf8');
  } catch {
    return { v2Mount: null, v2Controllers: [], v1Mounts: {} };
  }
  return parseCgroupLayout(mounts, cgroupRoot, (m) => readFileSync(join(m, 'cgroup.controllers'), 'utf8'));
}

/**
 * Parses /proc/<pid>/cgroup text: `0::/path` (v2) and `n:ctrl1,ctrl2:/path` (v1) lines. Returns
 * the v2 path (null when none) and the path of each v1 controller.
 */
export function parseProcCgroup(text: string): { v2: string | null; v1: Record<string, string> } {
  let v2: string | null = null;
  const v1: Record<string, string> = {};
  for (const line of text.split('\n')) {
    const match = /^(\d+):([^:]*):(.*)$/.exec(line.trim());
    if (match === null) continue;
    const [, id, controllers, path] = match;
    if (id === '0' && controllers === '') v2 = path ?? null;
    else for (const c of (controllers ?? '').split(',')) if (c !== '') v1[c] = path ?? '/';
  }
  return { v2, v1 };
}

/**
 * The directory of this process's own cgroup in the hierarchy mounted at `mount` (v2 when
 * `controller` is null, else the v1 hierarchy of `controller`), or null when it cannot be found
 * (e.g. in a container without a cgroup namespace). `procSelfCgroup`: the text of
 * /proc/self/cgroup when the caller has just read it (several hierarchies, one read); read here
 * otherwise.
 */
export function ownCgroupDirectory(mount: string, controller: string | null, procSelfCgroup?: string): string | null {
  try {
    const own = parseProcCgroup(procSelfCgroup ?? readFileSync('/proc/self/cgroup', 'utf8'));
    const path = controller === null ? own.v2 : own.v1[controller];
    if (path === undefined || path === null) return null;
    const dir = join(mount, path);
    return existsSync(join(dir, 'cgroup.procs')) ? dir : null;
  } catch {
    return null;
  }
}
