/**
 * Errors of the typed HTTP client: the server answered with an error, could not be reached, or
 * answered with something that does not match the API contract.
 */

/** The server answered a call with a non-2xx status. */
export class ApiError extends Error {
  /**
   * @param status - HTTP status (4xx or 5xx).
   * @param code - The error body's stable code (e.g. `GPUSHARE_JOB_NOT_FOUND`), or `HTTP_<status>`
   *   when the body was not a gpushare error.
   * @param message - The error body's message, meant for people.
   * @param details - The error body's structured details, if any.
   */
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
    readonly details?: unknown,
  ) {
    super(message);
    this.name = 'ApiError';
  }
}

/** The server could not be reached (connection refused, unknown host, no answer in time). */
export class ApiUnreachableError extends Error {
  /**
   * @param url - The server's base URL.
   * @param reason - What went wrong, e.g. `connection refused`.
   */
  constructor(
    readonly url: string,
    readonly reason: string,
    options?: { cause?: unknown },
  ) {
    super(`cannot reach the gpushare server at ${url}: ${reason}`, options);
    this.name = 'ApiUnreachableError';
  }
}

/** The server answered 2xx with a body that does not match the API contract (version mismatch?). */
export class ApiResponseError extends Error {
  /**
   * @param route - Method and path of the call, e.g. `GET /api/v1/jobs`.
   * @param reason - What did not match.
   */
  constructor(
    readonly route: string,
    reason: string,
  ) {
    super(`unexpected answer from the server to ${route}: ${reason} (is the server the same gpushare version?)`);
    this.name = 'ApiResponseError';
  }
}

/** Human names of the socket error codes fetch reports as the cause of a failed request. */
const NETWORK_REASONS: Readonly<Record<string, string>> = {
  ECONNREFUSED: 'connection refused (is `gpushare serve` running?)',
  ENOTFOUND: 'unknown host',
  EAI_AGAIN: 'host name lookup failed',
  ECONNRESET: 'connection reset',
  EHOSTUNREACH: 'host unreachable',
  ENETUNREACH: 'network unreachable',
  ETIMEDOUT: 'connection timed out',
  UND_ERR_SOCKET: 'connection closed by the server',
  UND_ERR_CONNECT_TIMEOUT: 'connection timed out',
};

/** OpenSSL and Node codes of a server certificate the client refused to trust. */
const CERTIFICATE_CODES: ReadonlySet<string> = new Set([
  'SELF_SIGNED_CERT_IN_CHAIN',
  'DEPTH_ZERO_SELF_SIGNED_CERT',
  'UNABLE_TO_VERIFY_LEAF_SIGNATURE',
  'UNABLE_TO_GET_ISSUER_CERT',
  'UNABLE_TO_GET_ISSUER_CERT_LOCALLY',
  'CERT_SIGNATURE_FAILURE',
  'CERT_UNTRUSTED',
  'CERT_HAS_EXPIRED',
  'CERT_NOT_YET_VALID',
  'CERT_REVOKED',
  'INVALID_CA',
  'ERR_TLS_CERT_ALTNAME_INVALID',
]);

/** The first error `code` along `err`'s cause chain, or null. */
function errorCode(err: unknown): { code: string; message: string } | null {
  let current: unknown = err;
  for (let depth = 0; depth < 4 && current instanceof Error; depth++) {
    const code = (current as { code?: unknown }).code;
    if (typeof code === 'string') return { code, message: current.message };
    current = current.cause;
  }
  return null;
}

/** The socket or TLS error code (`ECONNRESET`, `SELF_SIGNED_CERT_IN_CHAIN`, ...) fetch rejected with, or null. */
export function failureCode(err: unknown): string | null {
  return errorCode(err)?.code ?? null;
}

/**
 * True when fetch rejected because the server's TLS certificate was not trusted (unknown CA, expired, wrong host name).
 */
export function isCertificateError(err: unknown): boolean {
  const code = failureCode(err);
  return code !== null && CERTIFICATE_CODES.has(code);
}

/**
 * Describes why fetch rejected: the socket or TLS error code of its cause when there is one.
 * @returns A short human reason, e.g. `connection refused (is ...)` or `the server's TLS
 *   certificate is not trusted: self-signed certificate in certificate chain (SELF_SIGNED_CERT_IN_CHAIN)`.
 */
export function networkReason(err: unknown): string {
  const found = errorCode(err);
  if (found === null) return err instanceof Error ? err.message : String(err);
  if (CERTIFICATE_CODES.has(found.code))
    return `the server's TLS certificate is not trusted: ${found.message} (${found.code})`;
  if (found.code === 'EPROTO' && /wrong version number|packet length too long|http request/i.test(found.message)) {
    return 'the server does not answer TLS (a server started with --insecure-http? use its http:// URL)';
  }
  return NETWORK_REASONS[found.code] ?? `${found.code}: ${found.message}`;
}
