/**
 * The mutating admission webhook's decision for one AdmissionReview (docs/kubernetes/webhook.md):
 * Pods, and the pod templates of Deployments, StatefulSets, DaemonSets, ReplicaSets, Jobs and
 * CronJobs, asking for `nvidia.com/gpu` (or carrying gpushare annotations) are rewritten into
 * gpushare's request (pod-template-mutation.ts) and answered with a JSON Patch; an impossible request
 * is denied with a message naming the container and field; every other object passes unchanged.
 * Pure: no I/O, the GPU-memory bound comes from {@link WebhookConfig}.
 */
import type { CapacityCheck } from '../../../core/index.js';
import { GPUSHARE_PREFIX, POD_ANNOTATIONS } from '../schema/names.js';
import { parsePodRequest, requestAnnotations, type PodGpuRequest } from '../schema/pod-request.js';
import {
  allowResponse,
  denyResponse,
  parseAdmissionReview,
  type AdmissionRequest,
  type AdmissionReviewResponse,
} from './admission-review.js';
import { capacityWarning } from './capacity-warning.js';
import { childObject, objectAtPath, stringEntries, type JsonObject } from './json-object.js';
import { diffJsonPatch } from './json-patch.js';
import { mutatePodTemplate, type TemplateOutcome } from './pod-template-mutation.js';
import { fixUpSelector } from './selector-fixup.js';
import { workloadKindOf } from './workload-kinds.js';

/** The most GPUs one pod may ask for (parsePodRequest's default bound). */
export const MAX_GPU_COUNT = 64;

/** What the webhook is configured with. */
export interface WebhookConfig {
  /** `spec.schedulerName` written into GPU pods; null leaves it as it is. */
  readonly schedulerName: string | null;
  /** Largest GPU memory of any gpushare node, MiB (the NodeGpuMemory port); null: unknown, no check. */
  maxGpuMemoryMiB(): number | null;
  /**
   * The gpushare nodes' capacity (the NodeGpuMemory port's watch): a new request no node could ever
   * hold is admitted with a warning. Absent or null: unknown, no warning.
   */
  capacity?(): CapacityCheck | null;
  /**
   * Users who may change a pod's assignment annotations (`userInfo.username`): the extender's
   * ServiceAccount. @defaultValue [DEFAULT_ASSIGNMENT_WRITER]
   */
  readonly assignmentWriters?: readonly string[];
}

/** The extender's ServiceAccount as deploy/kubernetes/rbac-extender.yaml creates it. */
export const DEFAULT_ASSIGNMENT_WRITER = 'system:serviceaccount:gpushare-system:gpushare-extender';

/** The HTTP answer to a POST of an AdmissionReview: 200 with the review, or 400 naming the bad field. */
export type AdmissionOutcome =
  | { readonly httpStatus: 200; readonly review: AdmissionReviewResponse }
  | { readonly httpStatus: 400; readonly message: string };

/**
 * Decides an AdmissionReview (admission.k8s.io/v1, as posted by the API server).
 * @param body the parsed JSON body
 */
export function admit(body: unknown, config: WebhookConfig): AdmissionOutcome {
  const parsed = parseAdmissionReview(body);
  if (!parsed.ok) return { httpStatus: 400, message: parsed.message };
  return { httpStatus: 200, review: decide(parsed.request, config) };
}

function decide(request: AdmissionRequest, config: WebhookConfig): AdmissionReviewResponse {
  const { uid, operation } = request;
  const kind = workloadKindOf(request.kind.group, request.kind.kind);
  if (kind === undefined || request.subResource !== '' || (operation !== 'CREATE' && operation !== 'UPDATE'))
    return allowResponse(uid, [], []);
  const original = request.object!;
  const object = structuredClone(original) as JsonObject;
  const template = objectAtPath(object, kind.templatePath);
  if (template === undefined)
    return denyResponse(uid, 400, `${kind.templatePath.join('.')}: required: the ${kind.kind}'s pod template`);
  const podUpdate = kind.kind === 'Pod' && operation === 'UPDATE';
  // A pod's assignment says which GPUs its containers get and what its share counts for: only the
  // extender writes it (on create the rewrite strips it).
  if (
    podUpdate &&
    assignmentOf(request.oldObject!) !== assignmentOf(original) &&
    !(config.assignmentWriters ?? [DEFAULT_ASSIGNMENT_WRITER]).includes(request.username)
  ) {
    return denyResponse(
      uid,
      422,
      `metadata.annotations[${POD_ANNOTATIONS.assignment}]: only the gpushare extender (` +
        `${(config.assignmentWriters ?? [DEFAULT_ASSIGNMENT_WRITER]).join(', ')}) may set, change or remove ` +
        `a pod's assignment; ${request.username || 'this user'} may not`,
    );
  }
  const oldRequest = podUpdate ? parsePodRequest(annotationsOf(request.oldObject!)) : null;
  if (oldRequest !== null && oldRequest.kind !== 'request') {
    // A pod admitted before the webhook ran, or without a GPU: its spec cannot change, so it is left
    // as it is, as long as nobody adds gpushare annotations to it.
    if (gpushareAnnotations(request.oldObject!) === gpushareAnnotations(original)) return allowResponse(uid, [], []);
    return denyResponse(
      uid,
      422,
      'metadata.annotations: gpushare annotations cannot be added to an existing pod (its resources are ' +
        'immutable): create a new pod',
    );
  }
  // The memory bound is checked when the memory asked for is new: an object that keeps what it was
  // admitted with stays admissible even if the largest GPU has left the cluster since.
  const memoryKept =
    operation === 'UPDATE' &&
    templateMemory(request.oldObject!, kind.templatePath) === templateMemory(original, kind.templatePath);
  const outcome = mutatePodTemplate(template, kind.templatePath, {
    // A pod's schedulerName is immutable: only new pods and templates get the configured one.
    schedulerName: podUpdate ? null : config.schedulerName,
    maxGpuMemoryMiB: memoryKept ? null : config.maxGpuMemoryMiB(),
    maxGpuCount: MAX_GPU_COUNT,
    stripAssignment: !podUpdate,
  });
  if (outcome.kind === 'rejected') return denyResponse(uid, outcome.code, outcome.messages.join('; '));
  if (oldRequest?.kind === 'request') {
    const refusal = requestChange(oldRequest.request, outcome);
    if (refusal !== null) return denyResponse(uid, 422, refusal);
  }
  if (outcome.kind === 'untouched') return allowResponse(uid, [], []);
  const warnings = [...outcome.warnings];
  if (outcome.request !== null) warnings.push(...fixUpSelector(object, kind));
  // A request the object already had was warned about when it was new; an object a controller
  // makes (a Deployment's ReplicaSet, its Pods) was warned about in its owner.
  if (
    outcome.request !== null &&
    !hasOwner(original) &&
    (operation === 'CREATE' ||
      templateRequest(request.oldObject!, kind.templatePath) !== JSON.stringify(outcome.request.gpu))
  ) {
    const warning = capacityWarning(outcome.request, config.capacity?.() ?? null, kind.templatePath);
    if (warning !== null) warnings.push(warning);
  }
  return allowResponse(uid, diffJsonPatch(original, object), warnings);
}

/**
 * An UPDATE of a Pod admitted with a gpushare request: resources and env are immutable, so the
 * request must stay what it was (the rewrite restores the stored form when a client such as
 * `kubectl apply` sends `nvidia.com/gpu` again).
 * @returns null when the request is unchanged, else the reason to deny
 */
function requestChange(old: PodGpuRequest, outcome: TemplateOutcome): string | null {
  const describe = (request: PodGpuRequest | null): string =>
    request === null
      ? 'none'
      : Object.entries(requestAnnotations(request))
          .sort()
          .map(([k, v]) => `${k}=${v}`)
          .join(',');
  const before = describe(old);
  const after = describe(outcome.kind === 'mutated' ? outcome.request : null);
  return before === after
    ? null
    : `metadata.annotations: the gpushare request of a pod cannot change after it is created (was ${before}` +
        `; now ${after})`;
}

function annotationsOf(object: JsonObject): Record<string, string> {
  return stringEntries(childObject(childObject(object, 'metadata') ?? {}, 'annotations'));
}

/** The GPU memory annotation of the pod template at `path` of `object`, if any. */
function templateMemory(object: JsonObject, path: readonly string[]): string | undefined {
  const template = objectAtPath(object, path);
  return template === undefined ? undefined : annotationsOf(template)[POD_ANNOTATIONS.gpuMemoryMiB];
}

/** The gpushare request of the pod template at `path` of `object`, as comparable text; null for none. */
function templateRequest(object: JsonObject, path: readonly string[]): string | null {
  const template = objectAtPath(object, path);
  const parsed = template === undefined ? null : parsePodRequest(annotationsOf(template));
  return parsed?.kind === 'request' ? JSON.stringify(parsed.request.gpu) : null;
}

/** Whether `object` names an owner (`metadata.ownerReferences`): a controller made it. */
function hasOwner(object: JsonObject): boolean {
  const owners = childObject(object, 'metadata')?.ownerReferences;
  return Array.isArray(owners) && owners.length > 0;
}

/** The assignment annotations of an object, as comparable text. */
function assignmentOf(object: JsonObject): string {
  const annotations = annotationsOf(object);
  return JSON.stringify([
    annotations[POD_ANNOTATIONS.assignment] ?? null,
    annotations[POD_ANNOTATIONS.assignedGpus] ?? null,
  ]);
}

/** The gpushare annotations of an object, as comparable text. */
function gpushareAnnotations(object: JsonObject): string {
  return JSON.stringify(
    Object.entries(annotationsOf(object))
      .filter(([k]) => k.startsWith(GPUSHARE_PREFIX))
      .sort(),
  );
}
