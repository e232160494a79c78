/**
 * Typed client of the standalone server's HTTP API (`src/contract/api.ts`): one method per route,
 * every answer validated with the contract's schemas: a job or a page of jobs by the hand checks of
 * contract/job-check.ts (zod's verdicts, without building zod's schemas), the others with the zod
 * schemas of answer-schemas.ts, loaded by the first call that needs them. Uses node:http(s)
 * requests (node-http-fetch.ts), or a fetch passed in.
 */
import type { z } from 'zod';
import type {
  GpuView,
  JobDetailView,
  JobView,
  LogsSchema,
  NewTokenSchema,
  QosReportBody,
  QosReportResultSchema,
  QuotaUseSchema,
  SetTenantLimits,
  StatusSchema,
  SubmitJobInput,
  TenantSchema,
  TokenSchema,
} from '../../contract/api.js';
import type { JobState } from '../../core/index.js';
import type { AuditEntryView } from '../../contract/audit.js';
import type { BulkCancelInput, BulkCancelResult } from '../../contract/bulk-cancel.js';
import { checkJob } from '../../contract/job-check.js';
import type { JobField } from '../../contract/job-fields.js';
import type { JobPage, JobTablePage } from '../../contract/job-list.js';
import { checkJobPage, checkJobTablePage } from '../../contract/job-page-check.js';
import type { AnswerSchemas } from './answer-schemas.js';
import {
  ApiError,
  ApiResponseError,
  ApiUnreachableError,
  failureCode,
  isCertificateError,
  networkReason,
} from './api-errors.js';
import { createNodeHttpFetch, type HttpFetch, type HttpResponse } from './node-http-fetch.js';

/** Path prefix of the versioned API. */
export const API_PREFIX = '/api/v1';
/** How long one call may take before the server counts as unreachable, in milliseconds. */
export const DEFAULT_TIMEOUT_MS = 30_000;

/** The zod schemas of answers, built on first use (answer-schemas.ts). */
function loadAnswerSchemas(): Promise<AnswerSchemas> {
  return import('./answer-schemas.js').then((m) => m.ANSWER_SCHEMAS);
}

/** `GET /jobs/:id/logs` answer. */
export type LogsView = z.infer<typeof LogsSchema>;
/** A tenant. */
export type TenantView = z.infer<typeof TenantSchema>;
/** A tenant's quota as `PUT /tenants/:name/quota` takes it (GPU-equivalents; limit null = none). */
export interface QuotaInput {
  readonly guaranteedGpuEquivalents: number;
  readonly limitGpuEquivalents: number | null;
}
/** One tenant's use against its quota (`GET /quotas`). */
export type QuotaUseView = z.infer<typeof QuotaUseSchema>;
/** A freshly created or rotated token (its secret is shown only once). */
export type NewTokenView = z.infer<typeof NewTokenSchema>;
/** A token as `GET /tokens` shows it (no secret). */
export type TokenView = z.infer<typeof TokenSchema>;
/** `POST /tokens` body as the client sends it (absent fields take the server's defaults: role member, no expiry). */
export interface CreateTokenInput {
  readonly tenant?: string;
  readonly role?: 'admin' | 'tenant-admin' | 'member' | 'viewer';
  readonly label?: string;
  readonly expiresInSeconds?: number;
  readonly expiresAt?: string;
}
/** `GET /status` answer. */
export type StatusView = z.infer<typeof StatusSchema>;
/** `POST /drain` answer: the number of jobs still running. */
export type DrainResult = z.infer<AnswerSchemas['drain']>;
/** `POST /backup` answer: where the backup was written (on the server's machine) and its size in bytes. */
export type BackupResult = z.infer<AnswerSchemas['backup']>;

/** Options of {@link createApiClient}. */
export interface ApiClientOptions {
  /** Base URL of the server (`http://host:port`; a trailing `/` or `/api/v1` is accepted). */
  readonly url: string;
  /** Bearer token; sent with every call except {@link ApiClient.healthz}. */
  readonly token: string;
  /**
   * fetch implementation (default: node:http(s) requests trusting `ca`, see node-http-fetch.ts; the global fetch also
   * fits).
   */
  readonly fetch?: HttpFetch;
  /**
   * PEM of the CA an https server's certificate must chain to (default fetch only); null or absent: Node's built-in
   * CAs.
   */
  readonly ca?: string | null;
  /** Appended to the reason when the server's certificate is not trusted: where the CA comes from and how to set it. */
  readonly certificateHint?: string;
  /** Per-call timeout in milliseconds (default {@link DEFAULT_TIMEOUT_MS}). */
  readonly timeoutMs?: number;
}

/**
 * One method per API route. Every method rejects with {@link ApiError} on a non-2xx answer,
 * {@link ApiUnreachableError} when the server cannot be reached or does not answer in time, and
 * {@link ApiResponseError} when a 2xx answer does not match the contract.
 */
export interface ApiClient {
  /** The normalized base URL (no trailing `/`, no `/api/v1`). */
  readonly url: string;
  /** `GET /healthz` (no token). */
  healthz(): Promise<{ status: 'ok' }>;
  /** `POST /jobs`: submits a job; resolves to the new job. */
  submitJob(body: SubmitJobInput): Promise<JobView>;
  /** `GET /jobs`: the caller's jobs (all tenants' for admins); `all` includes finished ones. */
  listJobs(query?: { all?: boolean; state?: JobState }): Promise<JobView[]>;
  /**
   * `GET /jobs` one page at a time: the selectors, page size (`limit`), cursor (`after`) and fields
   * of docs/server.md; resolves to the page and `nextAfter` (null when no more jobs match). With
   * `fields`, each job is checked to hold those fields (and `id`) as JobSchema types them
   * (contract/job-page-check.ts, a fast check for thousands of jobs).
   */
  listJobsPage(query: JobPageQuery): Promise<JobPage>;
  /**
   * `GET /jobs?view=table` one page at a time: the same selectors, page size and cursor as
   * {@link listJobsPage} (not `fields`); resolves to the job table's columns and rows, as the server
   * writes them (contract/job-table.ts), checked by contract/job-page-check.ts.
   */
  listJobTablePage(query: Omit<JobPageQuery, 'fields'>): Promise<JobTablePage>;
  /** `GET /jobs/:id`: a job with its events, attempts and environment. */
  getJob(id: number): Promise<JobDetailView>;
  /** `POST /jobs/:id/cancel`. */
  cancelJob(id: number): Promise<JobView>;
  /** `POST /jobs/cancel`: cancels the jobs a selector names (at least one of ids, state, tenant, name, since). */
  cancelJobs(body: BulkCancelInput): Promise<BulkCancelResult>;
  /** `GET /jobs/:id/logs`: text of one stream from byte `offset` (default: stdout of the latest attempt from 0). */
  getLogs(id: number, query?: { stream?: 'stdout' | 'stderr'; attempt?: number; offset?: number }): Promise<LogsView>;
  /** `GET /gpus`. */
  listGpus(): Promise<GpuView[]>;
  /** `POST /gpus/:index/cordon` (admin): no new jobs on that GPU. */
  cordonGpu(index: number): Promise<GpuView>;
  /** `POST /gpus/:index/uncordon` (admin). */
  uncordonGpu(index: number): Promise<GpuView>;
  /** `POST /tenants` (admin). */
  createTenant(name: string): Promise<TenantView>;
  /** `GET /tenants`. */
  listTenants(): Promise<TenantView[]>;
  /**
   * `PUT /tenants/:name/quota` (admin): sets the tenant's guarantee and limit (null = no limit);
   * resolves to the tenant with its new quota. 404 for an unknown tenant, 400 when the limit is
   * below the guarantee.
   */
  setQuota(tenant: string, quota: QuotaInput): Promise<TenantView>;
  /**
   * `PUT /tenants/:name/limits` (admin): changes the given caps and limits (null = back to the
   * server's default); resolves to the tenant with its new limits. 404 for an unknown tenant.
   */
  setTenantLimits(tenant: string, limits: SetTenantLimits): Promise<TenantView>;
  /** `GET /quotas`: each tenant's use against its quota (a tenant token sees only its own). */
  listQuotas(): Promise<QuotaUseView[]>;
  /** `POST /tokens`: a new token (role member unless given); its secret is in the answer only. */
  createToken(body: CreateTokenInput): Promise<NewTokenView>;
  /** `GET /tokens`: the tokens the caller may see. */
  listTokens(): Promise<TokenView[]>;
  /** `POST /tokens/:id/revoke`: the token gets 401 from its next request on. */
  revokeToken(id: number): Promise<TokenView>;
  /** `POST /tokens/:id/rotate`: a new secret for the token (the old one gets 401). */
  rotateToken(id: number): Promise<NewTokenView>;
  /** `POST /drain` (admin): the server starts no new jobs and exits once none runs. */
  drain(): Promise<DrainResult>;
  /** `POST /backup` (admin): writes a backup of the state to `path` (absolute, on the server's machine). */
  backup(path: string): Promise<BackupResult>;
  /** `GET /status`. */
  status(): Promise<StatusView>;
  /** `POST /jobs/:id/qos-reports`: a running job's progress report (docs/qos.md); returns its QoS state. */
  reportQos(id: number, body: QosReportBody): Promise<z.infer<typeof QosReportResultSchema>>;
  /** `GET /audit` (admin): audit log entries in seq order (docs/security.md "Audit log"). */
  listAudit(query: AuditQuery): Promise<AuditEntryView[]>;
  /**
   * `GET /history`: the CSV of the jobs the caller may read that ran and ended (contract/history.ts), submitted in
   * [since, until) (ms since the epoch).
   */
  exportHistory(query?: { since?: number; until?: number }): Promise<string>;
}

/** `GET /jobs` query of one page (absent: not sent); `since` an ISO 8601 time with a zone. */
export interface JobPageQuery {
  readonly all?: boolean;
  readonly states?: readonly JobState[];
  readonly tenant?: string;
  readonly name?: string;
  readonly since?: string;
  readonly limit?: number;
  readonly after?: number;
  readonly fields?: readonly JobField[];
}

/** The query parameters of a {@link JobPageQuery} but `fields` (absent: not sent). */
function jobPageParameters(query: JobPageQuery): Record<string, string | number | undefined> {
  return {
    all: query.all === undefined ? undefined : String(query.all),
    state: query.states?.join(','),
    tenant: query.tenant,
    name: query.name,
    since: query.since,
    limit: query.limit,
    after: query.after,
  };
}

/**
 * `GET /audit` query: `since` an ISO 8601 time; `newest` the newest `limit` entries instead of the oldest after
 * `afterSeq`.
 */
export interface AuditQuery {
  readonly since?: string;
  readonly afterSeq?: number;
  readonly limit?: number;
  readonly newest?: boolean;
  readonly tenant?: string;
}

/**
 * Normalizes a server base URL: `http(s)://host[:port][/prefix]`, without a trailing `/` or `/api/v1`.
 * @throws Error when `url` is not an absolute http or https URL.
 */
export function normalizeBaseUrl(url: string): string {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    throw new Error(`'${url}' is not a URL; expected e.g. http://127.0.0.1:7070`);
  }
  if (parsed.protocol !== 'http:' && parsed.protocol !== 'https:') {
    throw new Error(`'${url}' is not an http or https URL; expected e.g. http://127.0.0.1:7070`);
  }
  if (parsed.search !== '' || parsed.hash !== '')
    throw new Error(`'${url}' has a query or fragment; give the server's base URL, e.g. http://127.0.0.1:7070`);
  let path = parsed.pathname.replace(/\/+$/, '');
  if (path.endsWith(API_PREFIX)) path = path.slice(0, -API_PREFIX.length);
  return `${parsed.origin}${path}`;
}

/** The JSON value of `text`; undefined when it is empty or not JSON. */
function parseJson(text: string): unknown {
  try {
    return text === '' ? undefined : (JSON.parse(text) as unknown);
  } catch {
    return undefined;
  }
}

interface CallOptions {
  readonly query?: Readonly<Record<string, string | number | boolean | undefined>>;
  readonly body?: unknown;
  readonly auth?: boolean;
}

/**
 * Creates a client for the server at `options.url`.
 * @throws Error when the URL is not an http(s) URL (see {@link normalizeBaseUrl}).
 */
export function createApiClient(options: ApiClientOptions): ApiClient {
  const base = normalizeBaseUrl(options.url);
  const doFetch = options.fetch ?? createNodeHttpFetch({ ca: options.ca });
  const timeoutMs = options.timeoutMs ?? DEFAULT_TIMEOUT_MS;

  /**
   * {@link callChecked} with the zod schema `name` of answer-schemas.ts as the check; the schemas
   * load while the request is on its way.
   */
  function call<K extends keyof AnswerSchemas>(
    method: 'GET' | 'POST' | 'PUT',
    path: string,
    name: K,
    options: CallOptions = {},
  ): Promise<z.infer<AnswerSchemas[K]>> {
    type Answer = z.infer<AnswerSchemas[K]>;
    const schemas = loadAnswerSchemas();
    schemas.catch(() => undefined); // awaited by the check; a call that fails first leaves it unread
    return callChecked<Answer>(
      method,
      path,
      async (json) => {
        const parsed = (await schemas)[name].safeParse(json);
        if (parsed.success) return { value: parsed.data as Answer };
        const issue = parsed.error.issues[0];
        return { problem: issue ? `${issue.path.join('.') || 'body'}: ${issue.message}` : 'invalid body' };
      },
      options,
    );
  }

  /** One call; a 2xx answer's JSON must pass `check` (else ApiResponseError naming the problem). */
  async function callChecked<T>(
    method: 'GET' | 'POST' | 'PUT',
    path: string,
    check: (json: unknown) => { value: T } | { problem: string } | Promise<{ value: T } | { problem: string }>,
    call: CallOptions = {},
  ): Promise<T> {
    const { route, text } = await send(method, path, 'application/json', call);
    const json = parseJson(text);
    if (json === undefined) throw new ApiResponseError(route, text === '' ? 'empty body' : 'the body is not JSON');
    const checked = await check(json);
    if ('problem' in checked) throw new ApiResponseError(route, checked.problem);
    return checked.value;
  }

  /** A GET whose 2xx answer is text of `mediaType` (else ApiResponseError): the text. */
  async function callText(path: string, mediaType: string, call: CallOptions = {}): Promise<string> {
    const { route, response, text } = await send('GET', path, mediaType, call);
    const type = response.headers?.get('content-type') ?? mediaType;
    if (!type.toLowerCase().startsWith(mediaType))
      throw new ApiResponseError(route, `the body is ${type}, not ${mediaType}`);
    return text;
  }

  /**
   * Sends one request and reads the whole answer.
   * @throws ApiUnreachableError when the server cannot be reached or does not answer in time; ApiError on a non-2xx
   */
  async function send(
    method: 'GET' | 'POST' | 'PUT',
    path: string,
    accept: string,
    call: CallOptions,
  ): Promise<{ route: string; response: HttpResponse; text: string }> {
    const routePath = call.auth === false ? path : `${API_PREFIX}${path}`;
    const route = `${method} ${routePath}`;
    const target = new URL(`${base}${routePath}`);
    for (const [key, value] of Object.entries(call.query ?? {})) {
      if (value !== undefined) target.searchParams.set(key, String(value));
    }
    const headers: Record<string, string> = { accept };
    if (call.auth !== false) headers.authorization = `Bearer ${options.token}`;
    if (call.body !== undefined) headers['content-type'] = 'application/json';
    let response: HttpResponse;
    let text: string;
    try {
      response = await doFetch(target, {
        method,
        headers,
        body: call.body === undefined ? undefined : JSON.stringify(call.body),
        signal: AbortSignal.timeout(timeoutMs),
      });
      text = await response.text();
    } catch (err) {
      const timedOut = err instanceof Error && (err.name === 'TimeoutError' || err.name === 'AbortError');
      // An HTTPS server closes a plain-HTTP connection without an answer.
      const hint =
        options.certificateHint !== undefined && isCertificateError(err)
          ? `; ${options.certificateHint}`
          : base.startsWith('http:') && failureCode(err) === 'ECONNRESET'
            ? '; if the server uses TLS (the default), use its https:// URL'
            : '';
      throw new ApiUnreachableError(
        base,
        timedOut ? `no answer within ${timeoutMs / 1000} s` : `${networkReason(err)}${hint}`,
        { cause: err },
      );
    }
    if (response.ok) return { route, response, text };
    const json = parseJson(text);
    const parsed = (await loadAnswerSchemas()).error.safeParse(json);
    if (parsed.success)
      throw new ApiError(response.status, parsed.data.error.code, parsed.data.error.message, parsed.data.error.details);
    const status = `${response.status}${response.statusText ? ` ${response.statusText}` : ''}`;
    throw new ApiError(
      response.status,
      `HTTP_${response.status}`,
      `${route} failed with HTTP ${status}${text && json === undefined ? `: ${text.slice(0, 200)}` : ''}`,
    );
  }

  const jobPath = (id: number, rest = ''): string => `/jobs/${encodeURIComponent(String(id))}${rest}`;
  const gpuPath = (index: number, action: string): string => `/gpus/${encodeURIComponent(String(index))}/${action}`;

  return {
    url: base,
    healthz: () => call('GET', '/healthz', 'health', { auth: false }),
    submitJob: (body) => callChecked('POST', '/jobs', checkJob, { body }),
    listJobs: async (query = {}) =>
      (
        await call('GET', '/jobs', 'jobList', {
          query: { all: query.all === undefined ? undefined : String(query.all), state: query.state },
        })
      ).jobs,
    listJobsPage: (query) =>
      callChecked(
        'GET',
        '/jobs',
        (json) => {
          const checked = checkJobPage(json, query.fields);
          return 'page' in checked ? { value: checked.page } : checked;
        },
        { query: { ...jobPageParameters(query), fields: query.fields?.join(',') } },
      ),
    listJobTablePage: (query) =>
      callChecked(
        'GET',
        '/jobs',
        (json) => {
          const checked = checkJobTablePage(json);
          return 'page' in checked ? { value: checked.page } : checked;
        },
        { query: { ...jobPageParameters(query), view: 'table' } },
      ),
    getJob: (id) => call('GET', jobPath(id), 'jobDetail'),
    cancelJob: (id) => callChecked('POST', jobPath(id, '/cancel'), checkJob),
    cancelJobs: (body) => call('POST', '/jobs/cancel', 'bulkCancel', { body }),
    getLogs: (id, query = {}) => call('GET', jobPath(id, '/logs'), 'logs', { query }),
    listGpus: async () => (await call('GET', '/gpus', 'gpuList')).gpus,
    cordonGpu: (index) => call('POST', gpuPath(index, 'cordon'), 'gpu'),
    uncordonGpu: (index) => call('POST', gpuPath(index, 'uncordon'), 'gpu'),
    createTenant: (name) => call('POST', '/tenants', 'tenant', { body: { name } }),
    listTenants: async () => (await call('GET', '/tenants', 'tenantList')).tenants,
    setQuota: (tenant, quota) =>
      call('PUT', `/tenants/${encodeURIComponent(tenant)}/quota`, 'tenant', {
        body: {
          guaranteedGpuEquivalents: quota.guaranteedGpuEquivalents,
          limitGpuEquivalents: quota.limitGpuEquivalents,
        },
      }),
    setTenantLimits: (tenant, limits) =>
      call('PUT', `/tenants/${encodeURIComponent(tenant)}/limits`, 'tenant', { body: limits }),
    listQuotas: async () => (await call('GET', '/quotas', 'quotaList')).quotas,
    createToken: (body) =>
      call('POST', '/tokens', 'newToken', {
        body: Object.fromEntries(Object.entries(body).filter(([, value]) => value !== undefined)),
      }),
    listTokens: async () => (await call('GET', '/tokens', 'tokenList')).tokens,
    revokeToken: (id) => call('POST', `/tokens/${encodeURIComponent(String(id))}/revoke`, 'token'),
    rotateToken: (id) => call('POST', `/tokens/${encodeURIComponent(String(id))}/rotate`, 'newToken'),
    drain: () => call('POST', '/drain', 'drain'),
    backup: (path) => call('POST', '/backup', 'backup', { body: { path } }),
    status: () => call('GET', '/status', 'status'),
    exportHistory: (query = {}) => callText('/history', 'text/csv', { query }),
    reportQos: (id, body) => call('POST', jobPath(id, '/qos-reports'), 'qosReportResult', { body }),
    listAudit: async (query) =>
      (
        await call('GET', '/audit', 'auditList', {
          query: {
            since: query.since,
            afterSeq: query.afterSeq,
            limit: query.limit,
            newest: query.newest === undefined ? undefined : String(query.newest),
            tenant: query.tenant,
          },
        })
      ).entries,
  };
}
