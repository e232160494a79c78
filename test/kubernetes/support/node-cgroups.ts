/**
 * The cgroups of a real test node: the kubelet's `cgroupRoot` made in every mounted hierarchy
 * before it starts (on a cgroup v1 host with the cgroupfs driver the kubelet expects it to exist in
 * each one; cpuset needs its CPUs and memory nodes copied from the parent), and at the end every
 * process in it killed and every cgroup under it removed, deepest first.
 */
import { existsSync, mkdirSync, readdirSync, readFileSync, rmdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

/** Mount points of the cgroup hierarchies (v1 and v2) of this host, from /proc/self/mounts. */
export function cgroupMountPoints(): string[] {
  return readFileSync('/proc/self/mounts', 'utf8')
    .split('\n')
    .map((line) => line.split(' '))
    .filter((fields) => fields[2] === 'cgroup' || fields[2] === 'cgroup2')
    .map((fields) => fields[1]!);
}

/**
 * Makes `/<name>` in every hierarchy (cpuset's with the root's `cpuset.cpus` and `cpuset.mems`)
 * and returns the folders made.
 * @throws Error (EEXIST) when one exists already
 */
export function makeCgroupRoot(name: string): string[] {
  const made: string[] = [];
  for (const mount of cgroupMountPoints()) {
    const dir = join(mount, name);
    mkdirSync(dir); // a cgroup of that name already there is an error: stop() would kill its processes
    made.push(dir);
    for (const file of ['cpuset.cpus', 'cpuset.mems']) {
      if (existsSync(join(mount, file)) && !existsSync(join(mount, 'cgroup.subtree_control')))
        writeFileSync(join(dir, file), readFileSync(join(mount, file)));
    }
  }
  return made;
}

/** Every cgroup folder under `dir`, `dir` included, deepest first. */
function cgroupsUnder(dir: string): string[] {
  if (!existsSync(dir)) return [];
  const children = readdirSync(dir, { withFileTypes: true })
    .filter((entry) => entry.isDirectory())
    .flatMap((entry) => cgroupsUnder(join(dir, entry.name)));
  return [...children, dir];
}

function pidsIn(dir: string): number[] {
  try {
    return readFileSync(join(dir, 'cgroup.procs'), 'utf8')
      .split('\n')
      .filter((line) => line !== '')
      .map(Number);
  } catch {
    return [];
  }
}

/**
 * Kills (SIGKILL) every process in the cgroups under `roots` until none is left, then removes the
 * cgroups, deepest first. Bounded by `timeoutMs`.
 * @throws Error naming what is left when the time runs out
 */
export async function removeCgroupTrees(roots: readonly string[], timeoutMs = 30_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const left = roots.flatMap(cgroupsUnder);
    const pids = [...new Set(left.flatMap(pidsIn))];
    for (const pid of pids) {
      try {
        process.kill(pid, 'SIGKILL');
      } catch {
        // gone already
      }
    }
    for (const dir of left) {
      try {
        if (pidsIn(dir).length === 0) rmdirSync(dir);
      } catch {
        // busy (a child left or a process still exiting): the next round
      }
    }
    if (roots.every((root) => !existsSync(root))) return;
    if (Date.now() > deadline)
      throw new Error(`cgroups still there after ${timeoutMs} ms: ${left.join(', ')} (pids ${pids.join(' ')})`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}
