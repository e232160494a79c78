/**
 * The host limits in words (docs/processes.md "Host limits"): for `gpushare status`, what every job
 * gets on this host; for `gpushare show`, what one job runs under and what the kernel counted
 * against it. A limit that is not enforced says so, never a promise the host does not keep.
 */
import type { StatusView } from '../adapters/http-client/api-client.js';
import type { JobDetailView } from '../contract/api.js';

const MEMORY_SOURCES = {
  request: 'its --host-memory',
  'tenant-default': "its tenant's default",
  'server-default': "the server's default",
  none: 'none',
} as const;

/**
 * What every job gets on this host, one line: `host limits: per job processes 4096 (pids.max), memory --host-memory,
 * else 1024 MiB, cpu weight 100, --cpu a CFS quota`; a limit this host does not enforce reads `not enforced`. From a
 * server of before these defaults: `host limits: cpu enforced, memory not enforced (cgroup controllers of this host)`.
 */
export function formatHostLimitLine(host: StatusView['enforcement']['host']): string {
  const d = host.jobDefaults;
  if (d === undefined) {
    const yesNo = (b: boolean): string => (b ? 'enforced' : 'not enforced');
    const memory = yesNo(host.hostMemoryMiB);
    return `host limits: cpu ${yesNo(host.cpuMilli)}, memory ${memory} (cgroup controllers of this host)`;
  }
  const tenants = Object.entries(d.tenantDefaultHostMemoryMiB).map(([t, mib]) => `${t} ${mib} MiB`);
  const memory = !host.hostMemoryMiB
    ? 'memory not enforced'
    : d.defaultHostMemoryMiB === null
      ? 'memory only with --host-memory'
      : `memory --host-memory, else ${d.defaultHostMemoryMiB} MiB` +
        `${tenants.length > 0 ? ` (tenants' own: ${tenants.join(', ')})` : ''}`;
  return (
    `host limits: per job ${d.pidsMax === null ? 'processes not enforced' : `processes ${d.pidsMax} (pids.max)`}, ` +
    `${memory}, ${d.cpuWeight === null ? 'cpu weight not enforced' : `cpu weight ${d.cpuWeight}`}, ` +
    `${host.cpuMilli ? '--cpu a CFS quota' : '--cpu not enforced'}`
  );
}

/**
 * The host memory a job asked for (`hostMemoryMiB`, 0: none), for `show`'s request line: `4096 MiB`,
 * or for a job that asked for none the default reserved for it (`none asked: the server's default
 * 1024 MiB reserved`), or `none reserved`.
 */
export function formatHostMemoryRequest(hostMemoryMiB: number, limits: JobDetailView['hostLimits']): string {
  if (hostMemoryMiB > 0) return `${hostMemoryMiB} MiB`;
  if (limits === undefined || limits.hostMemoryMiB === null) return 'none reserved';
  const source = limits.hostMemorySource;
  if (source !== 'tenant-default' && source !== 'server-default') return 'none reserved';
  return `none asked: ${MEMORY_SOURCES[source]} ${limits.hostMemoryMiB} MiB reserved`;
}

/**
 * `host limits: processes 4096, memory 1024 MiB (the server's default), cpu weight 100, cpu quota none` and, while
 * the job runs, `limit hits:  0 forks refused, 0 OOM kills, 12 periods held at the CPU quota`; nothing from a server
 * that does not report them.
 */
export function formatJobHostLimits(limits: JobDetailView['hostLimits']): string[] {
  if (limits === undefined) return [];
  const memory =
    limits.hostMemoryMiB === null
      ? 'memory not enforced'
      : `memory ${limits.hostMemoryMiB} MiB (${MEMORY_SOURCES[limits.hostMemorySource]})`;
  const lines = [
    `host limits: ${limits.pidsMax === null ? 'processes not enforced' : `processes ${limits.pidsMax}`}, ${memory}, ` +
      `${limits.cpuWeight === null ? 'cpu weight not enforced' : `cpu weight ${limits.cpuWeight}`}, cpu quota ` +
      `${limits.cpuQuotaMilli === null ? 'none' : `${limits.cpuQuotaMilli} milli`}`,
  ];
  const e = limits.events;
  if (e !== null)
    lines.push(
      `limit hits:  ${e.pidsMaxHits} fork(s) refused, ${e.oomKills} OOM kill(s), ${e.cpuThrottledPeriods} ` +
        `period(s) held at the CPU quota`,
    );
  return lines;
}
