/**
 * The control plane's error catalogue: every expected failure has a stable `code`, an HTTP status
 * and a message that names the field and, where there are any, the allowed values. The HTTP error
 * handler and the CLI map these in one place each.
 */

/** Base class of every expected (non-bug) error of the app layer. */
export class GpushareError extends Error {
  override name = 'GpushareError';
  /**
   * @param code stable machine-readable code, e.g. `GPUSHARE_JOB_NOT_FOUND`
   * @param httpStatus status the HTTP API answers with
   * @param message human text naming the field and the allowed values
   * @param details optional structured data (field name, allowed values, limits)
   */
  constructor(
    readonly code: string,
    readonly httpStatus: number,
    message: string,
    readonly details?: Record<string, unknown>,
    options?: { cause?: unknown },
  ) {
    super(message, options);
  }
}

/**
 * A field of a request breaks a rule checked after the request's schema (422): a rule between
 * fields, something that must exist on the server (a program, a tenant), a time that must lie ahead.
 * A request that breaks its schema (a wrong type, a value out of range, a missing field) is 400,
 * answered by the HTTP layer before any service runs; /openapi.json states those schemas, so a
 * request it allows is never 400 (docs/decisions/0035-the-api-as-described.md).
 */
export function invalidField(field: string, message: string, allowed?: readonly (string | number)[]): GpushareError {
  return new GpushareError(
    'GPUSHARE_INVALID_FIELD',
    422,
    `${field}: ${message}${allowed ? ` (allowed: ${allowed.join(', ')})` : ''}`,
    { field, ...(allowed ? { allowed } : {}) },
  );
}

/** The job could never run on this server, even when it is empty (422, reason `unresolvable`). */
export function unresolvable(message: string): GpushareError {
  return new GpushareError('GPUSHARE_UNRESOLVABLE', 422, `unresolvable: ${message}`, { reason: 'unresolvable' });
}

/** No such job, or one the caller may not see (404 either way, so ids of other tenants leak nothing). */
export function jobNotFound(id: number | string): GpushareError {
  return new GpushareError('GPUSHARE_JOB_NOT_FOUND', 404, `job ${id} not found`);
}

/** No GPU with that index (404). */
export function gpuNotFound(index: number | string, known: readonly number[]): GpushareError {
  return new GpushareError(
    'GPUSHARE_GPU_NOT_FOUND',
    404,
    `GPU ${index} not found (GPUs: ${known.join(', ') || 'none'})`,
    { allowed: known },
  );
}

/** The tenant a body names does not exist (422 on submit, naming the field: see invalidField). */
export function unknownTenant(name: string, known: readonly string[]): GpushareError {
  return new GpushareError(
    'GPUSHARE_UNKNOWN_TENANT',
    422,
    `tenant: unknown tenant "${name}" (known: ` +
      `${known.join(', ') || 'none; an admin creates tenants with `gpushare tenant create NAME`'})`,
    { field: 'tenant', allowed: known },
  );
}

/** No tenant of that name (404). */
export function tenantNotFound(name: string, known: readonly string[]): GpushareError {
  return new GpushareError(
    'GPUSHARE_TENANT_NOT_FOUND',
    404,
    `tenant "${name}" not found (tenants: ${known.join(', ') || 'none'})`,
    { allowed: known },
  );
}

/** Missing or wrong bearer token (401). */
export function unauthenticated(message: string): GpushareError {
  return new GpushareError('GPUSHARE_UNAUTHENTICATED', 401, message);
}

/** The caller's role may not do this (403). */
export function forbidden(message: string): GpushareError {
  return new GpushareError('GPUSHARE_FORBIDDEN', 403, message);
}

/**
 * Over a per-token limit (429): `message` names the limit; `retryAfterSeconds` (whole seconds,
 * at least 1) becomes the `Retry-After` header when given.
 */
export function tooManyRequests(message: string, limit: string, retryAfterSeconds?: number): GpushareError {
  return new GpushareError('GPUSHARE_TOO_MANY_REQUESTS', 429, message, {
    limit,
    ...(retryAfterSeconds === undefined ? {} : { retryAfterSeconds }),
  });
}

/** The request conflicts with the current state (409), e.g. cancelling a finished job. */
export function conflict(message: string): GpushareError {
  return new GpushareError('GPUSHARE_CONFLICT', 409, message);
}

/** The server is draining and takes no new jobs (503). */
export function draining(): GpushareError {
  return new GpushareError('GPUSHARE_DRAINING', 503, 'the server is draining: it takes no new jobs until it restarts');
}

/**
 * The disk holding the data directory is full (507 Insufficient Storage): nothing of the request
 * was stored. `detail` names what failed (e.g. `SQLITE_FULL`, `ENOSPC`).
 */
export function diskFull(dataDir: string, detail: string, cause?: unknown): GpushareError {
  return new GpushareError(
    'GPUSHARE_DISK_FULL',
    507,
    `the disk holding ${dataDir} is full: free space there (${detail}); nothing of this request was stored`,
    { dataDir, reason: 'disk-full' },
    { cause },
  );
}

/**
 * Free space on the data directory's disk is below the server's threshold (507, reason
 * `disk-low`): the call is refused before a write could fail, so that what runs can still record its
 * end. Details: `dataDir`, `freeBytes`, `minFreeBytes`.
 */
export function diskLow(dataDir: string, freeBytes: number, minFreeBytes: number): GpushareError {
  return new GpushareError(
    'GPUSHARE_DISK_FULL',
    507,
    `the disk holding ${dataDir} has ${Math.floor(freeBytes / (1 << 20))} MiB free, below the server's ` +
      `threshold of ${Math.floor(minFreeBytes / (1 << 20))} MiB (--min-free-disk-mib): new jobs are refused ` +
      `until there is more; nothing of this request was stored`,
    { dataDir, reason: 'disk-low', freeBytes, minFreeBytes },
  );
}

/** Error codes that mean "no space left": errno of a file write, SQLite's result code. */
const DISK_FULL_CODES = new Set(['ENOSPC', 'EDQUOT', 'SQLITE_FULL']);

/**
 * True when `error` (or an error in its `cause` chain) says the disk is full: a `diskFull`
 * GpushareError, a file write that failed with ENOSPC/EDQUOT, or SQLite's SQLITE_FULL.
 */
export function isDiskFullError(error: unknown): boolean {
  for (
    let e: unknown = error, depth = 0;
    e !== null && typeof e === 'object' && depth < 8;
    e = (e as { cause?: unknown }).cause, depth += 1
  ) {
    const code = (e as { code?: unknown }).code;
    if (code === 'GPUSHARE_DISK_FULL' || (typeof code === 'string' && DISK_FULL_CODES.has(code))) return true;
  }
  return false;
}
