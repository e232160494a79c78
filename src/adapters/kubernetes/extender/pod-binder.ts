/**
 * The extender's bind verb: commit the allocation in memory first (so every later filter sees it),
 * then create the Binding with the assignment as its annotations, which the API server writes into
 * the pod together with its node in one update, only if that pod (by UID) is still unbound. A
 * failed Binding releases the share; nothing is left on the pod to undo. Wire format: `ExtenderBindingArgs {PodName,
 * PodNamespace, PodUID, Node}` in,
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

const podPath = (args: BindingArgs): string =>
  `/api/v1/namespaces/${encodeURIComponent(args.PodNamespace)}/pods/${encodeURIComponent(args.PodName)}`;

/** Binds pods for the kube-scheduler. */
export class PodBinder {
  constructor(
    private readonly view: ClusterView,
    private readonly rest: KubeRest,
  ) {}

  /** Runs one bind. @returns the assignment, or the error to answer (the pod's share is then released) */
  async bind(args: BindingArgs): Promise<{ assignment: PodAssignment } | { error: string }> {
    if (this.view.pod(args.PodUID) === undefined) {
      // The scheduler saw the pod before this view's watch did: read it from the API server (never
      // from the caller), then place it.
      const read = await this.rest.request('GET', podPath(args)).catch(() => null);
      const pod = read?.status === 200 ? (read.body as KubePod) : null;
      if (pod?.metadata?.uid === args.PodUID) this.view.upsertPod(pod);
    }
    const reserved = this.view.reserve(args.PodUID, args.Node);
    if ('error' in reserved) return reserved;
    const { assignment } = reserved;
    const annotations = assignmentAnnotations(assignment);
    try {
      // One write: the API server sets spec.nodeName and merges the Binding's annotations into the
      // pod together, only if the pod (this UID) is not bound yet (pkg/registry/core/pod/storage
      // setPodHostAndAnnotations). No pod ever carries an assignment without its binding.
      const binding = {
        apiVersion: 'v1',
        kind: 'Binding',
        metadata: { name: args.PodName, namespace: args.PodNamespace, uid: args.PodUID, annotations },
        target: { apiVersion: 'v1', kind: 'Node', name: args.Node },
      };
      const bound = await this.rest.request('POST', `${podPath(args)}/binding`, binding);
      if (bound.status !== 201 && bound.status !== 200)
        throw new Error(
          `creating the Binding of ${args.PodNamespace}/${args.PodName} to ${args.Node} failed: ` +
            `${statusMessage(bound)}`,
        );
      return { assignment };
    } catch (err) {
      // Refused, or its answer was lost (a timeout after the API server acted): read the pod, and
      // release the share only if it is not bound here with this assignment.
      const now = await this.rest.request('GET', podPath(args)).catch(() => null);
      const pod = now?.status === 200 ? (now.body as KubePod) : null;
      const boundHere =
        pod?.metadata?.uid === args.PodUID &&
        pod.spec?.nodeName === args.Node &&
        pod.metadata?.annotations?.[POD_ANNOTATIONS.assignment] === annotations[POD_ANNOTATIONS.assignment];
      if (boundHere) return { assignment };
      this.view.rollback(args.PodUID);
      return { error: (err as Error).message };
    }
  }
}
