/**
 * `GPUSHARE_CRASH_AT=<site>.<phase>:<n>`, a test hook read once when `gpushare serve` starts
 * (docs/crash-testing.md): the server SIGKILLs itself the n-th time it reaches that crash point
 * (app/ports/crash-points.ts), e.g. `store.commit.after:12` or `process.launch.before:1`. Unset (the
 * normal case), no crash point is wired at all.
 */
import type { CrashPoint, CrashPoints, CrashSite } from '../app/ports/crash-points.js';
import { crashPointName } from '../app/ports/crash-points.js';

/** The environment variable. */
export const CRASH_AT_VARIABLE = 'GPUSHARE_CRASH_AT';

const SITES: readonly CrashSite[] = [
  'store.commit',
  'audit.commit',
  'job-id-mark.write',
  'job-id-sequence.raise',
  'audit-journal.write',
  'process.launch',
  'process.exit',
  'process.signal',
  'process.checkpoint',
  'mig.apply',
];

/** Every name `GPUSHARE_CRASH_AT` accepts before its `:<n>`. */
export const CRASH_POINT_NAMES: readonly string[] = SITES.flatMap((site) =>
  (['before', 'after'] as const).map((phase) => crashPointName({ site, phase })),
);

/**
 * The crash points of `GPUSHARE_CRASH_AT` in `env`; null when it is unset or empty.
 * @param kill ends the process (default: SIGKILL to itself)
 * @throws RangeError naming the variable and the allowed values when it is malformed
 */
export function crashPointsFromEnv(
  env: Readonly<Record<string, string | undefined>>,
  kill: (point: CrashPoint) => void = () => process.kill(process.pid, 'SIGKILL'),
): CrashPoints | null {
  const value = env[CRASH_AT_VARIABLE];
  if (value === undefined || value === '') return null;
  const match = /^([a-z.-]+):([1-9][0-9]{0,8})$/.exec(value);
  if (match === null || !CRASH_POINT_NAMES.includes(match[1]!)) {
    throw new RangeError(
      `${CRASH_AT_VARIABLE}=${JSON.stringify(value)}: expected <point>:<n> with n ≥ 1 and point one of ` +
        CRASH_POINT_NAMES.join(', '),
    );
  }
  const name = match[1]!;
  const at = Number(match[2]);
  let reached = 0;
  return {
    reach: (point) => {
      if (crashPointName(point) === name && ++reached === at) kill(point);
    },
  };
}
