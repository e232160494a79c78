/**
 * The two cgroup freezer backends. Both freeze every process of the attempt's cgroup, whatever
 * its process group or session, and the kernel reports when the freeze is complete.
 */
import { join } from 'node:path';
import type { FreezerKind } from '../../app/ports/process-launcher.js';
import { errnoCode, readCgroupFile, writeCgroupFile } from './cgroup-dir.js';
import type { Freezer, FreezeTarget } from './freezer-backend.js';
import { waitUntil } from './wait-until.js';

/** The attempt's cgroup directory under `parentDir`; throws for a target without cgroup. */
function targetDirectory(kind: FreezerKind, parentDir: string, target: FreezeTarget): string {
  if (target.cgroupKey === null) throw new Error(`freezer ${kind}: the attempt has no cgroup`);
  return join(parentDir, target.cgroupKey);
}

/**
 * Runs `action` on a cgroup; resolves to false when the cgroup no longer exists (ENOENT), true
 * otherwise; other errors propagate.
 */
function onExistingCgroup(action: () => void): boolean {
  try {
    action();
    return true;
  } catch (error) {
    if (errnoCode(error) === 'ENOENT') return false;
    throw error;
  }
}

/** cgroup v2: writes `cgroup.freeze` and waits for `cgroup.events` to show `frozen 1`. */
export class CgroupV2Freezer implements Freezer {
  readonly kind = 'cgroup-v2' as const;

  /** @param parentDir the `gpushare` parent directory in the v2 hierarchy. */
  constructor(private readonly parentDir: string) {}

  /** {@inheritDoc Freezer.cgroupDirectory} */
  cgroupDirectory(cgroupKey: string): string {
    return join(this.parentDir, cgroupKey);
  }

  /** {@inheritDoc Freezer.freeze} */
  async freeze(target: FreezeTarget, timeoutMs: number): Promise<void> {
    const dir = targetDirectory(this.kind, this.parentDir, target);
    if (!onExistingCgroup(() => writeCgroupFile(dir, 'cgroup.freeze', '1'))) return;
    let gone = false;
    const frozen = await waitUntil(() => {
      let events = '';
      gone = !onExistingCgroup(() => {
        events = readCgroupFile(dir, 'cgroup.events');
      });
      return gone || /^frozen 1$/m.test(events);
    }, timeoutMs);
    if (!frozen) throw new Error(`freezer cgroup-v2: ${dir} not frozen after ${timeoutMs} ms`);
  }

  /** {@inheritDoc Freezer.thaw} */
  async thaw(target: FreezeTarget): Promise<void> {
    const dir = targetDirectory(this.kind, this.parentDir, target);
    onExistingCgroup(() => writeCgroupFile(dir, 'cgroup.freeze', '0'));
  }
}

/** cgroup v1: writes `freezer.state` FROZEN and waits until it reads FROZEN (not FREEZING). */
export class CgroupV1Freezer implements Freezer {
  readonly kind = 'cgroup-v1' as const;

  /** @param parentDir the `gpushare` parent directory in the v1 freezer hierarchy. */
  constructor(private readonly parentDir: string) {}

  /** {@inheritDoc Freezer.cgroupDirectory} */
  cgroupDirectory(cgroupKey: string): string {
    return join(this.parentDir, cgroupKey);
  }

  /** {@inheritDoc Freezer.freeze} */
  async freeze(target: FreezeTarget, timeoutMs: number): Promise<void> {
    const dir = targetDirectory(this.kind, this.parentDir, target);
    if (!onExistingCgroup(() => writeCgroupFile(dir, 'freezer.state', 'FROZEN'))) return;
    const frozen = await waitUntil(() => {
      let state = '';
      if (
        !onExistingCgroup(() => {
          state = readCgroupFile(dir, 'freezer.state');
        })
      )
        return true;
      // A freeze can stall in FREEZING (a task in an uninterruptible sleep): ask again.
      if (state === 'FREEZING') onExistingCgroup(() => writeCgroupFile(dir, 'freezer.state', 'FROZEN'));
      return state === 'FROZEN';
    }, timeoutMs);
    if (!frozen) throw new Error(`freezer cgroup-v1: ${dir} not frozen after ${timeoutMs} ms`);
  }

  /** {@inheritDoc Freezer.thaw} */
  async thaw(target: FreezeTarget): Promise<void> {
    const dir = targetDirectory(this.kind, this.parentDir, target);
    onExistingCgroup(() => writeCgroupFile(dir, 'freezer.state', 'THAWED'));
  }
}
