/**
 * `gpushare status [-o text|json]`: the server's version, GPU source, job counts, enforcement (host
 * limits by cgroup controllers, GPU limits per sharing mode),
 * scheduling pass times, how preemption victims are checkpointed, and who the token belongs to.
 */
import { Command, Option } from 'commander';
import type { StatusView } from '../adapters/http-client/api-client.js';
import { JOB_STATES } from '../core/index.js';
import { processIo, type CliIo } from './cli-io.js';
import { formatShareEnforcement } from './format-enforcement.js';
import { formatHostLimitLine } from './format-host-limits.js';
import { addConnectionOptions, connect, type ConnectionFlags } from './connection.js';
import { escapeControlCharactersDeep, jsonForTerminal } from '../lib/control-characters.js';

interface StatusOptions extends ConnectionFlags {
  output: 'text' | 'json';
}

/** A duration in milliseconds rounded to at most 2 decimals, without trailing zeros: `0.29`, `2`. */
export function formatMs(ms: number): string {
  return String(Math.round(ms * 100) / 100);
}

/** Who the token belongs to: `admin`, or `tenant team-a`. */
export function formatPrincipal(you: StatusView['you']): string {
  if (you.role === 'admin') return you.tenant === null ? 'admin' : `admin (tenant ${you.tenant})`;
  return you.tenant === null ? 'tenant' : `tenant ${you.tenant}`;
}

/** `gpu limits:  mps        memory per process (MPS), compute per process (MPS)`, one line per mode. */
function formatGpuLimits(gpu: StatusView['enforcement']['gpu']): string[] {
  const modes = ['exclusive', 'mig', 'mps', 'timeslice'] as const;
  return modes.map(
    (mode, i) =>
      `${i === 0 ? 'gpu limits:  ' : '             '}${mode.padEnd(10)} ${formatShareEnforcement(gpu[mode])}`,
  );
}

/** The status for people; `url` is the server's base URL. Without a final newline. */
export function formatStatus(received: StatusView, url: string): string {
  const status = escapeControlCharactersDeep(received);
  const known = JOB_STATES.filter((s) => status.jobs[s] !== undefined).map((s) => `${s} ${status.jobs[s]}`);
  const other = Object.entries(status.jobs)
    .filter(([s]) => !(JOB_STATES as readonly string[]).includes(s))
    .map(([s, n]) => `${s} ${n}`);
  const sched = status.scheduler;
  return [
    `server:      ${url} (gpushare ${status.version})`,
    `you:         ${formatPrincipal(status.you)}`,
    `draining:    ${status.draining ? 'yes: no new jobs start; the server exits once none runs' : 'no'}`,
    `gpus from:   ${status.gpuSource}`,
    `jobs:        ${[...known, ...other].join(', ') || 'none'}`,
    `isolation:   ${status.isolation.sandboxed ? 'sandboxed' : 'NOT sandboxed'}: ${status.isolation.detail}`,
    `freezer:     ${status.freezer}`,
    formatHostLimitLine(status.enforcement.host),
    ...formatGpuLimits(status.enforcement.gpu),
    `scheduler:   ${sched.passes} passes; last ${formatMs(sched.lastPassMs)} ms, p50 ` +
      `${formatMs(sched.p50PassMs)} ms, ` +
      (`p99 ${formatMs(sched.p99PassMs)} ms, max ${formatMs(sched.maxPassMs)} ms; at most ` +
        `${sched.maxPendingConsidered} pending jobs considered; `) +
      `${sched.passesSkipped} skipped (nothing changed)`,
    `checkpoint:  ${status.checkpoint.detail}`,
  ].join('\n');
}

/**
 * Builds the `status` subcommand. Its action rejects with ApiError or ApiUnreachableError.
 * @param io - Output, environment and clock (default: the real process).
 */
export function createStatusCommand(io: CliIo = processIo()): Command {
  const command = new Command('status')
    .description("show the server's status: version, GPU source, job counts, enforcement, checkpointing, your role")
    .allowExcessArguments(false)
    .addOption(new Option('-o, --output <format>', 'output format').choices(['text', 'json']).default('text'))
    .action(async (opts: StatusOptions) => {
      const client = await connect(opts, io);
      const status = await client.status();
      io.stdout(opts.output === 'json' ? `${jsonForTerminal(status)}\n` : `${formatStatus(status, client.url)}\n`);
    });
  return addConnectionOptions(command);
}
