/**
 * The extender's bind verb: commit the allocation in memory first (so every later filter sees it),
 * record the assignment on the pod with a resourceVersion precondition, then create the Binding.
 * A step that fails rolls back the ones before it: the share is released and the annotation the
 * pod got is removed. Wire format: `ExtenderBindingArgs {PodName, PodNamespace, PodUID, Node}` in,
 * `ExtenderBindingResult {Error}` out (k8s.io/kube-scheduler extender/v1).
 */
import { z } from 'zod';
import { POD_ANNOTATIONS } from '../schema/names.js';
import { assignmentAnnotations, type PodAssignment } from '../schema/pod-assignment.js';
import type { KubePod } from '../schema/kube-objects.js';
import type { ClusterView } from './cluster-view.js';
import { statusMessage, type KubeRest } from './kube-rest.js';

const bindingArgsSchema = z.object({
  PodName: z.string().min(1),
  PodNamespace: z.string().min(1),
  PodUID: z.string().min(1),
  Node: z.string().min(1),
});

/** A parsed ExtenderBindingArgs. */
export type BindingArgs = z.infer<typeof bindingArgsSchema>;

/** Parses an ExtenderBindingArgs body. @returns the args, or an error naming the field */
export function parseBindingArgs(body: unknown): BindingArgs | { error: string } {
  const parsed = bindingArgsSchema.safeParse(body);
  if (parsed.success) return parsed.data;
  const issue = parsed.error.issues[0]!;
  return { error: `ExtenderBindingArgs.${issue.path.join('.')}: ${issue.message}` };
}

/** JSON Pointer escaping of one path segment (RFC 6901). */
function pointer(segment: string): string {
  return segment.replace(/~/g, '~0').replace(/\//g, '~1');
}

const podPath = (args: BindingArgs): string => `/api/v1/namespaces/${encodeURIComponent(args.PodNamespace)}/pods/${encodeURIComponent(args.PodName)}`;

/** Binds pods for the kube-scheduler. */
export class PodBinder {
  constructor(private readonly view: ClusterView, private readonly rest: KubeRest) {}

  /** Runs one bind. @returns the assignment, or the error to answer (the pod's share is then released) */
  async bind(args: BindingArgs): Promise<{ assignment: PodAssignment } | { error: string }> {
    if (this.view.pod(args.PodUID) === undefined) {
      // The scheduler saw the pod before this view's watch did: read it from the API server (never
      // from the caller), then place it.
      const read = await this.rest.request('GET', podPath(args)).catch(() => null);
      const pod = read?.status === 200 ? read.body as KubePod : null;
      if (pod?.metadata?.uid === args.PodUID) this.view.upsertPod(pod);
    }
    const reserved = this.view.reserve(args.PodUID, args.Node);
    if ('error' in reserved) return reserved;
    const { assignment } = reserved;
    let annotated = false;
    try {
      const recorded = await this.recordAssignment(args, assignment);
      if (recorded !== null) throw new Error(recorded);
      annotated = true;
      const binding = { apiVersion: 'v1', kind: 'Binding', metadata: { name: args.PodName, namespace: args.PodNamespace, uid: args.PodUID }, target: { apiVersion: 'v1', kind: 'Node', name: args.Node } };
      const bound = await this.rest.request('POST', `${podPath(args)}/binding`, binding);
      if (bound.status !== 201 && bound.status !== 200) throw new Error(`creating the Binding of ${args.PodNamespace}/${args.PodName} to ${args.Node} failed: ${statusMessage(bound)}`);
      return { assignment };
    } catch (err) {
      // A step failed, or its answer was lost (a timeout after the API server acted): roll back only
      // what the API server shows was not done.
      const now = await this.rest.request('GET', podPath(args)).catch(() => null);
      const pod = now?.status === 200 ? now.body as KubePod : null;
      const sameNode = pod?.metadata?.uid === args.PodUID && pod.spec?.nodeName === args.Node && pod.metadata?.annotations?.[POD_ANNOTATIONS.assignment] === JSON.stringify(assignment);
      if (sameNode) return { assignment };
      this.view.rollback(args.PodUID);
      const unbound = pod?.metadata?.uid === args.PodUID && !pod.spec?.nodeName;
      if (annotated && unbound) await this.removeAssignment(args).catch(() => undefined);
      return { error: (err as Error).message };
    }
  }

  /** Writes the assignment annotations with the pod's resourceVersion as precondition; retried once on a conflict. @returns null, or what went wrong */
  private async recordAssignment(args: BindingArgs, assignment: PodAssignment): Promise<string | null> {
    const annotations = assignmentAnnotations(assignment);
    let resourceVersion = this.view.pod(args.PodUID)?.resourceVersion ?? '';
    for (let attempt = 0; attempt < 2; attempt++) {
      const patch = [
        { op: 'test', path: '/metadata/uid', value: args.PodUID },
        { op: 'test', path: '/metadata/resourceVersion', value: resourceVersion },
        ...Object.entries(annotations).map(([key, value]) => ({ op: 'add', path: `/metadata/annotations/${pointer(key)}`, value })),
      ];
      const answer = await this.rest.request('PATCH', podPath(args), patch, 'application/json-patch+json');
      if (answer.status === 200) {
        this.view.upsertPod(answer.body as KubePod);
        return null;
      }
      if (answer.status !== 409 && answer.status !== 422) return `recording the assignment on ${args.PodNamespace}/${args.PodName} failed: ${statusMessage(answer)}`;
      // The pod changed since the view saw it: read it again and check it is still ours to bind.
      const fresh = await this.rest.request('GET', podPath(args));
      if (fresh.status !== 200) return `reading ${args.PodNamespace}/${args.PodName} failed: ${statusMessage(fresh)}`;
      const pod = fresh.body as KubePod;
      if (pod.metadata?.uid !== args.PodUID) return `pod ${args.PodNamespace}/${args.PodName} was replaced (uid ${pod.metadata?.uid ?? 'none'})`;
      if (pod.spec?.nodeName) return `pod ${args.PodNamespace}/${args.PodName} is already bound to ${pod.spec.nodeName}`;
      this.view.upsertPod(pod);
      resourceVersion = pod.metadata?.resourceVersion ?? '';
    }
    return `pod ${args.PodNamespace}/${args.PodName} kept changing while its assignment was recorded`;
  }

  /** Removes the assignment annotations (rollback after a failed Binding). */
  private async removeAssignment(args: BindingArgs): Promise<void> {
    const patch = [POD_ANNOTATIONS.assignment, POD_ANNOTATIONS.assignedGpus].map((key) => ({ op: 'remove', path: `/metadata/annotations/${pointer(key)}` }));
    await this.rest.request('PATCH', podPath(args), [{ op: 'test', path: '/metadata/uid', value: args.PodUID }, ...patch], 'application/json-patch+json');
  }
}
