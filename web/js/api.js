/**
 * The dashboard's access to the gpushare API: the token (kept in sessionStorage, so it lives only
 * as long as the tab) and JSON calls with `Authorization: Bearer`. Failed calls throw ApiError with
 * the server's own message.
 */

const TOKEN_KEY = 'gpushare.token';

/** An API call that failed: HTTP status and the server's error code and message. */
export class ApiError extends Error {
  /** @param {number} status @param {string} code @param {string} message */
  constructor(status, code, message) {
    super(message);
    this.name = 'ApiError';
    this.status = status;
    this.code = code;
  }
}

/** The stored token, or null. */
export function getToken() {
  return sessionStorage.getItem(TOKEN_KEY);
}

/** Stores the token for this tab. @param {string} token */
export function setToken(token) {
  sessionStorage.setItem(TOKEN_KEY, token);
}

/** Forgets the token. */
export function clearToken() {
  sessionStorage.removeItem(TOKEN_KEY);
}

/** Headers of an authenticated call. @param {string} [token] */
export function authHeaders(token = getToken() ?? '') {
  return { authorization: `Bearer ${token}` };
}

/**
 * Calls `/api/v1{path}` and returns the parsed JSON body.
 * @param {string} method
 * @param {string} path e.g. `/jobs?all=true`
 * @param {unknown} [body] sent as JSON
 * @param {string} [token] default: the stored token
 * @throws {ApiError} on a non-2xx answer (message from the server) or a network failure (status 0)
 */
export async function apiCall(method, path, body, token) {
  let response;
  try {
    response = await fetch(`/api/v1${path}`, {
      method,
      headers: { ...authHeaders(token), ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    });
  } catch (error) {
    throw new ApiError(
      0,
      'NETWORK',
      `cannot reach the server: ${error instanceof Error ? error.message : String(error)}`,
    );
  }
  const text = await response.text();
  let parsed = null;
  try {
    parsed = text ? JSON.parse(text) : null;
  } catch {
    parsed = null;
  }
  if (!response.ok) {
    const error = parsed && parsed.error;
    throw new ApiError(
      response.status,
      error?.code ?? `HTTP_${response.status}`,
      error?.message ?? `HTTP ${response.status} ${response.statusText}`,
    );
  }
  return parsed;
}
