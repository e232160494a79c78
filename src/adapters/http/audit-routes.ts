/**
 * The one table of audited API routes: for every state-changing route under `/api/v1`, the audit
 * action it records and how its target and tenant are named (docs/security.md "Audit log"). A
 * state-changing route without a row is recorded as `api.<method>` with its pattern as the target,
 * and fails `audit-routes.test.ts`. `POST /jobs/:id/qos-reports` is recorded only for usage
 * values (`gpuMemoryUsedMiB`, `gpuUtilizationPct`) that raised the job's stored usage peak, or were
 * refused: a job's own progress reports, every few seconds, change no state anyone acts on
 * (docs/qos.md).
 */

import { bulkCancelDoneMessage, bulkCancelSummaryBody, bulkCancelTarget } from './audit-bulk-cancel.js';

/** What a row may read to name the target and tenant. */
export interface AuditRouteContext {
  /** Path parameters as the router decoded them. */
  readonly params: Readonly<Record<string, unknown>>;
  /** The request body when it is an object, else `{}`. */
  readonly body: Readonly<Record<string, unknown>>;
  /** The answer's body when the call succeeded (the created job's or token's id), else null. */
  readonly created: Readonly<Record<string, unknown>> | null;
  /** The tenant of a job, null when unknown. */
  readonly jobTenant: (id: number) => string | null;
}

/** A row of the table. */
export interface AuditedRoute {
  readonly action: string;
  readonly target: (c: AuditRouteContext) => string;
  /** The tenant acted on, when the caller's own tenant does not say (admin calls). */
  readonly tenant?: (c: AuditRouteContext) => string | null;
  /** False for a call that changes nothing and is not recorded (a dry run); recorded when absent. */
  readonly recorded?: (c: AuditRouteContext) => boolean;
  /** The body as the summary records it, when it is not the body as sent (ids as ranges). */
  readonly summaryBody?: (c: AuditRouteContext) => Record<string, unknown>;
  /** The outcome's message of a call that succeeded (what a bulk action did); null when absent. */
  readonly doneMessage?: (c: AuditRouteContext) => string | null;
}

/** HTTP methods whose calls change state. */
export const STATE_CHANGING_METHODS: ReadonlySet<string> = new Set(['POST', 'PUT', 'PATCH', 'DELETE']);

/** State-changing routes that are not recorded, and why (none today). */
export const UNAUDITED_ROUTES: Readonly<Record<string, string>> = {};

const text = (value: unknown): string => (typeof value === 'string' || typeof value === 'number' ? String(value) : '?');
const jobId = (c: AuditRouteContext): number => Number(c.params.id);
const ofJob = (c: AuditRouteContext): string | null => (Number.isSafeInteger(jobId(c)) ? c.jobTenant(jobId(c)) : null);
/** The tenant of the token or job the call answered with, null when none (or an admin token's). */
const createdTenant = (c: AuditRouteContext): string | null =>
  typeof c.created?.tenant === 'string' ? c.created.tenant : null;
const bodyTenant = (c: AuditRouteContext): string | null => (typeof c.body.tenant === 'string' ? c.body.tenant : null);

/** `METHOD /api/v1/pattern` → its row. */
export const AUDITED_ROUTES: Readonly<Record<string, AuditedRoute>> = {
  'POST /api/v1/jobs': {
    action: 'job.submit',
    target: (c) => (c.created?.id === undefined ? 'job (none created)' : `job ${text(c.created.id)}`),
    tenant: (c) => (typeof c.created?.tenant === 'string' ? c.created.tenant : bodyTenant(c)),
  },
  'POST /api/v1/jobs/:id/cancel': { action: 'job.cancel', target: (c) => `job ${text(c.params.id)}`, tenant: ofJob },
  // One entry per call, however many jobs (audit-bulk-cancel.ts); a dry run is not recorded.
  'POST /api/v1/jobs/cancel': {
    action: 'job.cancel-bulk',
    target: (c) => bulkCancelTarget(c.created),
    tenant: bodyTenant,
    recorded: (c) => c.body.dryRun !== true,
    summaryBody: (c) => bulkCancelSummaryBody(c.body),
    doneMessage: (c) => (c.created === null ? null : bulkCancelDoneMessage(c.created)),
  },
  // Only usage values that raised the job's stored peak (or were refused): see the module comment.
  'POST /api/v1/jobs/:id/qos-reports': {
    action: 'job.report-usage',
    target: (c) => `job ${text(c.params.id)}`,
    tenant: ofJob,
    recorded: (c) =>
      c.created === null
        ? c.body.gpuMemoryUsedMiB !== undefined || c.body.gpuUtilizationPct !== undefined
        : c.created.peakRaised === true,
  },
  'POST /api/v1/gpus/:index/cordon': { action: 'gpu.cordon', target: (c) => `gpu ${text(c.params.index)}` },
  'POST /api/v1/gpus/:index/uncordon': { action: 'gpu.uncordon', target: (c) => `gpu ${text(c.params.index)}` },
  'POST /api/v1/tenants': {
    action: 'tenant.create',
    target: (c) => `tenant ${text(c.body.name)}`,
    tenant: (c) => (typeof c.body.name === 'string' ? c.body.name : null),
  },
  'PUT /api/v1/tenants/:name/quota': {
    action: 'quota.set',
    target: (c) => `tenant ${text(c.params.name)}`,
    tenant: (c) => text(c.params.name),
  },
  'PUT /api/v1/tenants/:name/limits': {
    action: 'tenant.limits',
    target: (c) => `tenant ${text(c.params.name)}`,
    tenant: (c) => text(c.params.name),
  },
  'POST /api/v1/tokens': {
    action: 'token.create',
    target: (c) => (c.created?.id === undefined ? 'token (none created)' : `token ${text(c.created.id)}`),
    tenant: (c) => createdTenant(c) ?? bodyTenant(c),
  },
  'POST /api/v1/tokens/:id/revoke': {
    action: 'token.revoke',
    target: (c) => `token ${text(c.params.id)}`,
    tenant: createdTenant,
  },
  'POST /api/v1/tokens/:id/rotate': {
    action: 'token.rotate',
    target: (c) => `token ${text(c.params.id)}`,
    tenant: createdTenant,
  },
  'POST /api/v1/drain': { action: 'server.drain', target: () => 'server' },
  'POST /api/v1/backup': { action: 'server.backup', target: () => 'server' },
};
