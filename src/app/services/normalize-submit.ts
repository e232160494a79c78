/**
 * Turns a validated submit body into the job to store, applying defaults and the rules that need
 * the server's context: who may submit for which tenant, that the program exists, that the working
 * directory exists, and that the job could ever fit on this server.
 */
import { basename, resolve } from 'node:path';
import {
  effectiveGpuMilli,
  JOB_EVENT_CODES,
  jobEventReason,
  type JobEventReason,
  PRIORITY_CLASSES,
  whyUnresolvable,
  type GpuDevice,
  type HostCapacity,
} from '../../core/index.js';
import type { SubmitJob } from '../../contract/api.js';
import { forbidden, invalidField, unknownTenant, unresolvable } from '../errors.js';
import type { Principal } from '../auth/tokens.js';
import type { NewJob } from '../ports/state-store.js';

/** What the rules need to know about the server. */
export interface SubmitContext {
  readonly principal: Principal;
  readonly knownTenants: readonly string[];
  /**
   * Why a directory cannot be a job's working directory for a tenant; null when it can
   * (ProcessLauncher.workingDirectoryProblem).
   */
  readonly workingDirectoryProblem: (path: string, tenant: string) => string | null;
  /** Resolves argv[0] like execvp; null when not found. */
  readonly resolveExecutable: (
    argv0: string,
    workingDirectory: string,
    environment: Readonly<Record<string, string>>,
    tenant: string,
  ) => string | null;
  /** PATH used to look the program up (the job's own PATH wins). */
  readonly serverPath: string;
  readonly gpus: readonly GpuDevice[];
  readonly host: HostCapacity;
}

/** A submit made ready to store. */
export interface NormalizedSubmit {
  readonly job: NewJob;
  /**
   * Set when the job runs in a private working directory because the one asked for cannot be its
   * own and the body allowed that (`workingDirectoryFallback: private`): code `workdir-not-writable`
   * with `requestedDirectory` and `problem`, to record as a note of the job. Null otherwise.
   */
  readonly workingDirectoryReason: JobEventReason | null;
}

/**
 * @returns the job to store, and why it runs in a private working directory when it fell back to one
 * @throws GpushareError: 422 naming the field (tenant, command, workingDirectory, gpu.gpuMilli),
 *   403 for a tenant token submitting for another tenant, 422 `unresolvable` when it can never fit
 */
export function normalizeSubmit(body: SubmitJob, ctx: SubmitContext): NormalizedSubmit {
  const tenant = resolveTenant(body.tenant, ctx);
  const reserved = Object.keys(body.environment).filter(isReservedVariable);
  if (reserved.length > 0) {
    throw invalidField(
      'environment',
      `${reserved.join(', ')} ${reserved.length === 1 ? 'is' : 'are'} set by gpushare from the job's ` +
        `placement and cannot be given (reserved: CUDA_VISIBLE_DEVICES, CUDA_MPS_*, GPUSHARE_*)`,
    );
  }
  // Without one, the job runs in a private working directory of its own, made at launch.
  let workingDirectory = body.workingDirectory ?? null;
  let workingDirectoryReason: JobEventReason | null = null;
  let command = body.command;
  if (workingDirectory !== null) {
    const problem = ctx.workingDirectoryProblem(workingDirectory, tenant);
    if (problem !== null && body.workingDirectoryFallback === 'private') {
      // The folder a user submitted from, not one they named: run in a private one and say why. A
      // relative program path still means that folder (as with gpushare submit --private-workdir).
      workingDirectoryReason = jobEventReason(JOB_EVENT_CODES.workdirNotWritable, {
        requestedDirectory: workingDirectory,
        problem,
      });
      const first = command[0]!;
      if (first.includes('/') && !first.startsWith('/'))
        command = [resolve(workingDirectory, first), ...command.slice(1)];
      workingDirectory = null;
    } else if (problem !== null)
      throw invalidField(
        'workingDirectory',
        `${problem} (give a folder jobs may use, or none for a private one: gpushare submit --private-workdir)`,
      );
  }
  const lookupEnv = { PATH: ctx.serverPath, ...body.environment };
  const program = command[0]!;
  if (workingDirectory === null && program.includes('/') && !program.startsWith('/')) {
    throw invalidField(
      'command',
      `program "${program}" is a relative path, but the job gets a private working directory: give an ` +
        `absolute path or a workingDirectory`,
    );
  }
  if (ctx.resolveExecutable(program, workingDirectory ?? '/', lookupEnv, tenant) === null) {
    const where = program.includes('/') ? `relative to ${workingDirectory ?? '/'}` : 'in the PATH the job gets';
    throw invalidField(
      'command',
      `program "${program}" was not found, is not executable, or lies where jobs cannot see it on the ` +
        `server (looked up ${where})`,
    );
  }
  const gpu = { ...body.gpu, gpuMilli: body.gpu.gpuMilli ?? milliFromMemory(body.gpu.gpuMemoryMiB, ctx.gpus) };
  if (gpu.mode === 'exclusive' && gpu.gpuMilli !== 1000) {
    throw invalidField(
      'gpu.gpuMilli',
      `mode exclusive takes whole GPUs, so gpuMilli must be 1000, got ${gpu.gpuMilli}`,
    );
  }
  const priority = typeof body.priority === 'number' ? body.priority : PRIORITY_CLASSES[body.priority];
  const job: NewJob = {
    name: body.name ?? basename(program),
    tenant,
    command,
    workingDirectory,
    environment: body.environment,
    priority,
    timeLimitSeconds: body.timeLimitSeconds,
    retries: body.retries,
    preemptible: body.preemptible ?? priority < PRIORITY_CLASSES.high,
    cpuMilli: body.cpuMilli,
    hostMemoryMiB: body.hostMemoryMiB,
    gpu: {
      gpuCount: gpu.gpuCount,
      gpuMilli: gpu.gpuMilli,
      gpuMemoryMiB: gpu.gpuMemoryMiB,
      mode: gpu.mode,
      isolation: gpu.isolation,
    },
    // QoS targets (docs/qos.md); `{}` declares none.
    qos:
      body.qos !== undefined && (body.qos.stepSeconds !== undefined || body.qos.latencySeconds !== undefined)
        ? { ...body.qos }
        : null,
    submittedByTokenId: ctx.principal.tokenId ?? null,
  };
  const why = whyUnresolvable(
    {
      id: 0,
      tenant,
      priority,
      submittedAtMs: 0,
      cpuMilli: job.cpuMilli,
      hostMemoryMiB: job.hostMemoryMiB,
      gpu: job.gpu,
    },
    ctx.gpus,
    ctx.host,
  );
  if (why !== null) throw unresolvable(why);
  return { job, workingDirectoryReason };
}

/**
 * compute share of a request that names only memory: that memory's share of the largest GPU of
 * this server, rounded down (`effectiveGpuMilli`: requests whose memory adds up to one GPU's also
 * fit its compute, and a small GPU model beside a big one does not inflate it); 1000 without memory
 * or when no GPU holds it (the submit check then rejects it).
 */
function milliFromMemory(gpuMemoryMiB: number | null, gpus: readonly GpuDevice[]): number {
  if (gpuMemoryMiB === null) return 1000;
  const largest = Math.max(0, ...gpus.map((g) => g.gpuMemoryMiB));
  return largest < gpuMemoryMiB ? 1000 : effectiveGpuMilli(null, gpuMemoryMiB, largest);
}

/** Variables gpushare sets from the placement, which a job may not override. */
export function isReservedVariable(name: string): boolean {
  return name === 'CUDA_VISIBLE_DEVICES' || name.startsWith('CUDA_MPS_') || name.startsWith('GPUSHARE_');
}

function resolveTenant(requested: string | undefined, ctx: SubmitContext): string {
  if (ctx.principal.role === 'job') throw forbidden('a job token (GPUSHARE_JOB_TOKEN) cannot submit jobs');
  if (ctx.principal.role !== 'admin') {
    if (requested !== undefined && requested !== ctx.principal.tenant)
      throw forbidden(
        `tenant: this token belongs to tenant "${ctx.principal.tenant}" and cannot submit for "${requested}"`,
      );
    return ctx.principal.tenant!;
  }
  const tenant = requested ?? 'default';
  if (!ctx.knownTenants.includes(tenant)) throw unknownTenant(tenant, ctx.knownTenants);
  return tenant;
}
