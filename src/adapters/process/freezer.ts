/**
 * Freezer backends: how the launcher stops a job's whole process tree from running and lets it
 * run again. Preference order: cgroup v2 (`cgroup.freeze`), cgroup v1 (`freezer.state`), then
 * signals (SIGSTOP/SIGCONT to the job's process group). The cgroup backends freeze every
 * descendant, also one that left the process group; signals reach only the process group.
 */
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import type { FreezerKind } from '../../app/ports/process-launcher.js';
import { CgroupV1Freezer, CgroupV2Freezer } from './cgroup-freezers.js';
import { createCgroup } from './cgroup-dir.js';
import type { CgroupLayout } from './cgroup-layout.js';
import { SignalFreezer } from './signal-freezer.js';
import type { Freezer } from './freezer-backend.js';

export type { Freezer } from './freezer-backend.js';

/** Creates `<mount>/<parent>` and reports whether it has control file `file`; false on any error. */
function probeParent(mount: string | null | undefined, cgroupParent: string, file: string): boolean {
  if (mount === null || mount === undefined) return false;
  try {
    const dir = join(mount, cgroupParent);
    createCgroup(dir);
    return existsSync(join(dir, file));
  } catch {
    return false;
  }
}

/**
 * The freezer backends this host supports, most preferred first (`signals` always last). Probing
 * creates the `cgroupParent` directory (e.g. `gpushare`) in the candidate hierarchies.
 */
export function detectFreezerKinds(layout: CgroupLayout, cgroupParent: string): FreezerKind[] {
  const kinds: FreezerKind[] = [];
  // A non-root v2 cgroup has cgroup.freeze (kernel 5.2+); the root never has it.
  if (probeParent(layout.v2Mount, cgroupParent, 'cgroup.freeze')) kinds.push('cgroup-v2');
  if (probeParent(layout.v1Mounts.freezer, cgroupParent, 'freezer.state')) kinds.push('cgroup-v1');
  kinds.push('signals');
  return kinds;
}

/**
 * Creates the freezer of kind `kind` for jobs under `cgroupParent`. Throws when `kind` needs a
 * hierarchy this layout lacks (check {@link detectFreezerKinds} first).
 */
export function createFreezer(kind: FreezerKind, layout: CgroupLayout, cgroupParent: string): Freezer {
  switch (kind) {
    case 'cgroup-v2':
      if (layout.v2Mount === null) throw new Error('freezer cgroup-v2: no cgroup2 hierarchy is mounted');
      return new CgroupV2Freezer(join(layout.v2Mount, cgroupParent));
    case 'cgroup-v1': {
      const mount = layout.v1Mounts.freezer;
      if (mount === undefined) throw new Error('freezer cgroup-v1: no v1 freezer hierarchy is mounted');
      return new CgroupV1Freezer(join(mount, cgroupParent));
    }
    case 'signals':
      return new SignalFreezer();
  }
}
