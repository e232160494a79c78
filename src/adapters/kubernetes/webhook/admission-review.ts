/**
 * The AdmissionReview `admission.k8s.io/v1` envelope: reading the API server's request and writing
 * the response (field names from k8s.io/api admission/v1 types.go; ../shared contracts §3). The
 * response echoes the request's apiVersion, kind and `uid`; a patch is base64 of a JSON Patch array
 * with `patchType: JSONPatch`; warnings are shown by kubectl (`Warning: …`).
 */
import { z } from 'zod';
import type { JsonPatchOperation, JsonValue } from './json-patch.js';

const API_VERSION = 'admission.k8s.io/v1';
const KIND = 'AdmissionReview';

const groupVersionKind = z.object({ group: z.string(), version: z.string(), kind: z.string().min(1) });
const jsonObject = z.record(z.unknown());

const requestSchema = z.object({
  uid: z.string().min(1),
  kind: groupVersionKind,
  subResource: z.string().optional(),
  name: z.string().optional(),
  namespace: z.string().optional(),
  operation: z.enum(['CREATE', 'UPDATE', 'DELETE', 'CONNECT']),
  object: jsonObject.nullable().optional(),
  oldObject: jsonObject.nullable().optional(),
  dryRun: z.boolean().optional(),
  userInfo: z.object({ username: z.string().optional() }).passthrough().optional(),
});

const reviewSchema = z.object({
  apiVersion: z.literal(API_VERSION),
  kind: z.literal(KIND),
  request: requestSchema,
});

/** The parts of an AdmissionRequest the webhook reads. `object`/`oldObject` are the raw objects. */
export interface AdmissionRequest {
  readonly uid: string;
  readonly kind: { readonly group: string; readonly version: string; readonly kind: string };
  readonly subResource: string;
  readonly name: string;
  readonly namespace: string;
  readonly operation: 'CREATE' | 'UPDATE' | 'DELETE' | 'CONNECT';
  readonly object: Record<string, JsonValue> | null;
  readonly oldObject: Record<string, JsonValue> | null;
  /** Who made the request (`userInfo.username`); empty when not sent. */
  readonly username: string;
}

/** A well-formed AdmissionReview, or what is wrong with the input (answered with HTTP 400). */
export type ParsedReview =
  { readonly ok: true; readonly request: AdmissionRequest } | { readonly ok: false; readonly message: string };

/**
 * Reads an AdmissionReview the API server posted.
 * @returns the request, or a message naming the bad field (`request.uid: …`) and what it must be
 */
export function parseAdmissionReview(body: unknown): ParsedReview {
  const parsed = reviewSchema.safeParse(body);
  if (!parsed.success) {
    const issue = parsed.error.issues[0]!;
    const field = issue.path.join('.') || '(body)';
    const wanted =
      field === 'apiVersion'
        ? ` (this webhook speaks ${API_VERSION} only)`
        : field === 'kind'
          ? ` (must be ${KIND})`
          : '';
    return { ok: false, message: `AdmissionReview ${field}: ${issue.message}${wanted}` };
  }
  const r = parsed.data.request;
  const object = (r.object ?? null) as Record<string, JsonValue> | null;
  const oldObject = (r.oldObject ?? null) as Record<string, JsonValue> | null;
  if ((r.operation === 'CREATE' || r.operation === 'UPDATE') && object === null) {
    return { ok: false, message: `AdmissionReview request.object: required for operation ${r.operation}` };
  }
  if (r.operation === 'UPDATE' && oldObject === null)
    return { ok: false, message: 'AdmissionReview request.oldObject: required for operation UPDATE' };
  return {
    ok: true,
    request: {
      uid: r.uid,
      kind: r.kind,
      subResource: r.subResource ?? '',
      name: r.name ?? '',
      namespace: r.namespace ?? '',
      operation: r.operation,
      object,
      oldObject,
      username: r.userInfo?.username ?? '',
    },
  };
}

/** The AdmissionReview the webhook answers with. */
export interface AdmissionReviewResponse {
  readonly apiVersion: typeof API_VERSION;
  readonly kind: typeof KIND;
  readonly response: {
    readonly uid: string;
    readonly allowed: boolean;
    readonly patchType?: 'JSONPatch';
    /** base64 of the JSON Patch array; absent when nothing changes. */
    readonly patch?: string;
    readonly warnings?: readonly string[];
    readonly status?: {
      readonly status: 'Failure';
      readonly code: number;
      readonly reason: string;
      readonly message: string;
    };
  };
}

/** Allows the request, with the patch when there is one and the warnings when there are some. */
export function allowResponse(
  uid: string,
  patch: readonly JsonPatchOperation[],
  warnings: readonly string[],
): AdmissionReviewResponse {
  return {
    apiVersion: API_VERSION,
    kind: KIND,
    response: {
      uid,
      allowed: true,
      ...(patch.length > 0
        ? { patchType: 'JSONPatch' as const, patch: Buffer.from(JSON.stringify(patch)).toString('base64') }
        : {}),
      ...(warnings.length > 0 ? { warnings } : {}),
    },
  };
}

/**
 * Denies the request: the API server reports `admission webhook "<name>" denied the request: <message>`.
 * @param code 422 (Invalid: the object asks for something impossible) or 400 (BadRequest: malformed)
 */
export function denyResponse(
  uid: string,
  code: 400 | 422,
  message: string,
  warnings: readonly string[] = [],
): AdmissionReviewResponse {
  return {
    apiVersion: API_VERSION,
    kind: KIND,
    response: {
      uid,
      allowed: false,
      status: { status: 'Failure', code, reason: code === 422 ? 'Invalid' : 'BadRequest', message },
      ...(warnings.length > 0 ? { warnings } : {}),
    },
  };
}
