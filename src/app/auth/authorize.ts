/**
 * Authorization, decided in one place: what each principal may do (docs/security.md, "Roles", has
 * the same table per route). Every service and route asks `authorize` before it acts.
 *
 * - `admin`: everything.
 * - `tenant-admin`: everything on its own tenant: jobs (any member's), logs, cancel, its tenant's
 *   tokens of role member and viewer, its quota and audit entries; reads GPUs and status.
 * - `member`: submits; reads its tenant's jobs; reads the logs of, cancels and reports for the jobs
 *   it submitted; lists, rotates and revokes its own token.
 * - `viewer`: reads its tenant's jobs (not their logs), GPUs, quota, status; its own token.
 * - `job` (an attempt's report token): only reports for its own job.
 *
 * Another tenant's job is "not found" (404), never "forbidden", so job ids leak nothing; a member
 * acting on a fellow member's job gets 403 (it may see that job).
 */
import type { TokenRole } from '../ports/state-store.js';
import { forbidden, jobNotFound } from '../errors.js';
import type { Principal } from './tokens.js';

/** Every action a principal may be allowed, by what it acts on. */
export const ACTIONS = [
  'job.submit',
  'job.read',
  'job.logs',
  'job.cancel',
  'job.report',
  'gpu.read',
  'gpu.cordon',
  'tenant.read',
  'tenant.create',
  'tenant.update',
  'quota.read',
  'quota.set',
  'token.read',
  'token.create',
  'token.revoke',
  'token.rotate',
  'audit.read',
  'server.status',
  'server.drain',
  'server.backup',
  'usage.read',
  'events.read',
  'metrics.read',
] as const;

/** An action `authorize` decides. */
export type Action = (typeof ACTIONS)[number];

/** What an action is done to; the fields an action does not concern are left out. */
export interface AuthTarget {
  /** The tenant the target belongs to (a job's, a token's, a quota's); null for an admin token. */
  readonly tenant?: string | null;
  /** A job's id (for messages, and a job token's own job). */
  readonly jobId?: number;
  /** The token that submitted the job (its owner), or the token acted on; null when unknown. */
  readonly ownerTokenId?: number | null;
  /** The role of a token being created, revoked or rotated. */
  readonly tokenRole?: TokenRole;
}

const READ_ANY: ReadonlySet<Action> = new Set(['gpu.read', 'server.status', 'usage.read', 'events.read']);
const TENANT_READ: ReadonlySet<Action> = new Set(['job.read', 'tenant.read', 'quota.read']);
const OWN_TOKEN: ReadonlySet<Action> = new Set(['token.read', 'token.rotate', 'token.revoke']);
const OWN_JOB: ReadonlySet<Action> = new Set(['job.logs', 'job.cancel', 'job.report']);
const JOB_ACTIONS: ReadonlySet<Action> = new Set(['job.read', 'job.logs', 'job.cancel', 'job.report']);

/** Why a principal may not act, or null when it may. 404 hides another tenant's job. */
export function denial(
  principal: Principal,
  action: Action,
  target: AuthTarget = {},
): { status: 403 | 404; message: string } | null {
  const { role } = principal;
  if (role === 'admin') return null;
  if (role === 'job') {
    if (action === 'job.report' && target.jobId !== undefined && target.jobId === principal.jobId) return null;
    return {
      status: 403,
      message: `a job token (GPUSHARE_JOB_TOKEN) may only report for its own job ${principal.jobId}`,
    };
  }
  const ownTenant = target.tenant === undefined || target.tenant === principal.tenant;
  if (JOB_ACTIONS.has(action) && !ownTenant) return { status: 404, message: `job ${target.jobId ?? '?'} not found` };
  if (READ_ANY.has(action)) return null;
  if (!ownTenant) {
    const other =
      target.tenant === null ? 'admin tokens, which belong to no tenant (an admin may)' : `tenant "${target.tenant}"`;
    return {
      status: 403,
      message: `this ${role} token belongs to tenant "${principal.tenant}" and cannot act on ${other}`,
    };
  }
  if (TENANT_READ.has(action)) return null;
  if (role === 'tenant-admin') {
    if (['job.submit', 'job.logs', 'job.cancel', 'job.report', 'audit.read'].includes(action)) return null;
    if (action === 'token.read') return null;
    if (OWN_TOKEN.has(action) && target.ownerTokenId === principal.tokenId) return null;
    if (['token.create', 'token.revoke', 'token.rotate'].includes(action)) {
      if (target.tokenRole === 'member' || target.tokenRole === 'viewer') return null;
      return {
        status: 403,
        message:
          `a tenant-admin manages its tenant's member and viewer tokens only; ${target.tokenRole ?? 'this'} ` +
          `tokens need an admin`,
      };
    }
  }
  if (role === 'member') {
    if (action === 'job.submit') return null;
    if (OWN_JOB.has(action)) {
      if (
        target.ownerTokenId !== undefined &&
        target.ownerTokenId !== null &&
        target.ownerTokenId === principal.tokenId
      )
        return null;
      return {
        status: 403,
        message:
          `a member may ` +
          `${action === 'job.logs' ? 'read the logs of' : action === 'job.cancel' ? 'cancel' : 'report for'}` +
          ` only the jobs it submitted; job ${target.jobId ?? '?'} was submitted by another token (ask your ` +
          `tenant-admin)`,
      };
    }
  }
  if ((role === 'member' || role === 'viewer') && OWN_TOKEN.has(action) && target.ownerTokenId === principal.tokenId)
    return null;
  return { status: 403, message: `a ${role} token may not ${describe(action)}${ROLE_HINT[action] ?? ''}` };
}

const ROLE_HINT: Partial<Record<Action, string>> = {
  'job.submit': ' (a member or tenant-admin token may)',
  'job.logs': " (the job's submitter or a tenant-admin may)",
  'job.cancel': " (the job's submitter or a tenant-admin may)",
  'token.create': " (a tenant-admin may create its tenant's member and viewer tokens; an admin any)",
  'audit.read': " (a tenant-admin reads its tenant's entries)",
};

/** What each action does, in words, for refusals ("a viewer token may not read job logs"). */
const ACTION_WORDS: Record<Action, string> = {
  'job.submit': 'submit jobs',
  'job.read': 'read jobs',
  'job.logs': 'read job logs',
  'job.cancel': 'cancel jobs',
  'job.report': 'report job progress',
  'gpu.read': 'read GPUs',
  'gpu.cordon': 'cordon or uncordon GPUs',
  'tenant.read': 'read tenants',
  'tenant.create': 'create tenants',
  'tenant.update': "change tenants' limits",
  'quota.read': 'read quotas',
  'quota.set': 'set quotas',
  'token.read': 'list tokens',
  'token.create': 'create tokens',
  'token.revoke': 'revoke tokens',
  'token.rotate': 'rotate tokens',
  'audit.read': 'read the audit log',
  'server.status': 'read the server status',
  'server.drain': 'drain the server',
  'server.backup': 'back up the server',
  'usage.read': 'read usage history',
  'events.read': 'open event streams',
  'metrics.read': 'read metrics',
};

function describe(action: Action): string {
  return ACTION_WORDS[action];
}

/**
 * Throws unless `principal` may do `action` to `target`.
 * @throws GpushareError 404 for another tenant's job (job ids leak nothing), else 403 naming what
 *   the role may not do and who may
 */
export function authorize(principal: Principal, action: Action, target: AuthTarget = {}): void {
  const why = denial(principal, action, target);
  if (why === null) return;
  if (why.status === 404) throw jobNotFound(target.jobId ?? 0);
  throw forbidden(why.message);
}

/** Whether `principal` may do `action` to `target` (for filtering lists). */
export function isAllowed(principal: Principal, action: Action, target: AuthTarget = {}): boolean {
  return denial(principal, action, target) === null;
}
