/**
 * Records every state-changing call under `/api/v1` in the audit log (docs/security.md "Audit
 * log"): an `onSend` hook of the API's scope, so the entry is stored before the caller sees the
 * answer, for calls that succeeded and for calls refused after authentication (403 `denied`,
 * another 4xx `rejected`, 5xx `failed`, with the status and the error message). Calls without a
 * valid token (401) are not recorded (they reach no principal), nor calls refused by the request
 * rate (429: else a throttled token could still grow the log without bound); nor are paths that match no route
 * (404 before authentication: nothing changed), the routes of `UNAUDITED_ROUTES` and calls a row
 * says change nothing (a bulk cancel's dry run). The action, target, tenant, and for a bulk action
 * the summary's ids and the outcome's message, come from `AUDITED_ROUTES`.
 */
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { auditActor, auditResultOf } from '../../app/audit/audit-recorder.js';
import type { AuditServices } from './server-services.js';
import { AUDITED_ROUTES, STATE_CHANGING_METHODS, UNAUDITED_ROUTES, type AuditRouteContext } from './audit-routes.js';
import { cutString, requestSummary } from './audit-summary.js';

const MAX_MESSAGE = 500;

/** The answer's JSON object, or null (not JSON, not an object, a stream). */
function answerObject(payload: unknown): Record<string, unknown> | null {
  const text = typeof payload === 'string' ? payload : Buffer.isBuffer(payload) ? payload.toString('utf8') : null;
  if (text === null || text.length === 0 || text.length > 1 << 20) return null;
  try {
    const parsed: unknown = JSON.parse(text);
    return parsed !== null && typeof parsed === 'object' && !Array.isArray(parsed)
      ? (parsed as Record<string, unknown>)
      : null;
  } catch {
    return null;
  }
}

/** The error message of an error answer (`{ error: { message } }`), null when there is none. */
function errorMessage(answer: Record<string, unknown> | null): string | null {
  const error = answer?.error as { message?: unknown } | undefined;
  return typeof error?.message === 'string' ? cutString(error.message, MAX_MESSAGE) : null;
}

/** Records one answered call, unless it is not recorded (see the module comment). */
function recordCall(audit: AuditServices, request: FastifyRequest, reply: FastifyReply, payload: unknown): void {
  if (!STATE_CHANGING_METHODS.has(request.method)) return;
  const principal = request.principal as FastifyRequest['principal'] | null;
  if (principal === null) return; // 401: no token, nobody to record
  const pattern = request.routeOptions.url;
  if (pattern === undefined) return; // no route: nothing changed
  const key = `${request.method} ${pattern}`;
  if (key in UNAUDITED_ROUTES) return;
  const status = reply.statusCode;
  if (status === 429) return; // throttled: recording it would let the throttled token grow the log
  const answer = answerObject(payload);
  const body =
    request.body !== null && typeof request.body === 'object' && !Array.isArray(request.body)
      ? (request.body as Record<string, unknown>)
      : {};
  const context: AuditRouteContext = {
    params: (request.params ?? {}) as Record<string, unknown>,
    body,
    created: status < 400 ? answer : null,
    jobTenant: audit.jobTenant,
  };
  const row = AUDITED_ROUTES[key];
  if (row?.recorded !== undefined && !row.recorded(context)) return; // changes nothing (a dry run)
  const action = row?.action ?? `api.${request.method.toLowerCase()}`;
  const target = row ? row.target(context) : cutString(pattern);
  audit.record({
    atMs: audit.nowMs(),
    actor: auditActor(principal, audit.tokenLabel),
    role: principal.role,
    tenant: principal.tenant ?? row?.tenant?.(context) ?? null,
    action,
    target,
    summary: requestSummary({
      method: request.method,
      route: pattern,
      params: request.params,
      query: request.query,
      body: row?.summaryBody ? row.summaryBody(context) : request.body,
    }),
    outcome: {
      result: auditResultOf(status),
      httpStatus: status,
      message: status < 400 ? (row?.doneMessage?.(context) ?? null) : errorMessage(answer),
    },
  });
}

/** Adds the audit hook to `api` (the `/api/v1` scope, after authentication is set up). */
export function registerAuditHook(api: FastifyInstance, audit: AuditServices): void {
  api.addHook('onSend', async (request, reply, payload) => {
    try {
      recordCall(audit, request, reply, payload);
    } catch (error) {
      audit.logError(error as Error, `${request.method} ${request.url.split('?')[0] ?? ''}`);
    }
    return payload;
  });
}
