/**
 * A pod as the extender's view keeps it: its gpushare request as the core's `JobRequest` (tenant =
 * namespace, priority = the pod's priority), its assignment, where it is bound, and whether it has
 * finished. Read from a Pod object of the API server's watch.
 */
import type { JobRequest } from '../../../core/index.js';
import type { KubePod } from '../schema/kube-objects.js';
import { parseAssignment, type PodAssignment } from '../schema/pod-assignment.js';
import { parsePodRequest } from '../schema/pod-request.js';

/** A pod the view knows. */
export interface PodEntry {
  /** The core's job id for this pod (a counter: pod UIDs are strings). */
  readonly jobId: number;
  readonly uid: string;
  readonly namespace: string;
  readonly name: string;
  /** The core request; null for a pod without a (valid) gpushare request. */
  readonly request: JobRequest | null;
  /** Why the request is invalid; null when valid or absent. */
  readonly requestError: string | null;
  readonly assignment: PodAssignment | null;
  readonly nodeName: string | null;
  /** The pod's PriorityClass name; empty when none. */
  readonly priorityClassName: string;
  /**
   * Succeeded or Failed: its containers have stopped. A pod being deleted still holds its share
   * until it is gone (its containers may run through their grace period), as the kube-scheduler
   * counts it.
   */
  readonly finished: boolean;
}

/** The entry of `pod` (with UID `uid`) under core job id `jobId`. */
export function podEntryOf(pod: KubePod, uid: string, jobId: number): PodEntry {
  const parsed = parsePodRequest(pod.metadata?.annotations);
  const assignment = parseAssignment(pod.metadata?.annotations);
  const phase = pod.status?.phase;
  const namespace = pod.metadata?.namespace ?? '';
  const created = pod.metadata?.creationTimestamp;
  const request: JobRequest | null =
    parsed.kind !== 'request'
      ? null
      : {
          id: jobId,
          tenant: namespace,
          priority: pod.spec?.priority ?? 0,
          submittedAtMs: created ? new Date(created).getTime() : 0,
          cpuMilli: 0,
          hostMemoryMiB: 0,
          gpu: parsed.request.gpu,
        };
  return {
    jobId,
    uid,
    namespace,
    name: pod.metadata?.name ?? '',
    request,
    requestError: parsed.kind === 'invalid' ? parsed.message : null,
    assignment: assignment !== null && !('error' in assignment) ? assignment : null,
    nodeName: pod.spec?.nodeName || null,
    priorityClassName: pod.spec?.priorityClassName ?? '',
    finished: phase === 'Succeeded' || phase === 'Failed',
  };
}
