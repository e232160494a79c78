/**
 * An in-memory stand-in for the Kubernetes API server behind `KubeRest` (excluded from the build):
 * it keeps pods, answers `GET .../pods/<name>`, and creates a Binding as the API server does (sets
 * `spec.nodeName` and merges the Binding's annotations in one write, only if the pod with that UID
 * is not bound yet: 201, else 409; 404 for an unknown pod). Every call is recorded; a test can make
 * the next Binding fail or lose its answer.
 */
import type { KubePod } from '../schema/kube-objects.js';
import type { KubeResponse, KubeRest } from '../extender/kube-rest.js';

/** One request the fake received. */
export interface FakeKubeCall {
  readonly method: string;
  readonly path: string;
  readonly body: unknown;
}

/**
 * What the next Binding does: `apply` as the API server would; `lost` applies it and then fails
 * the call (an answer lost to a timeout); `unreachable` fails the call without applying; a
 * response is answered as is, without applying.
 */
export type BindingBehaviour = 'apply' | 'lost' | 'unreachable' | KubeResponse;

/** Kubernetes' `Status` body of a failure. */
function status(code: number, reason: string, message: string): KubeResponse {
  return { status: code, body: { kind: 'Status', apiVersion: 'v1', status: 'Failure', reason, message, code } };
}

const POD_PATH = /^\/api\/v1\/namespaces\/([^/]+)\/pods\/([^/]+)(\/binding)?$/;

/** The fake API server. */
export class FakeKubeApi implements KubeRest {
  /** Pods by `namespace/name`. */
  readonly pods = new Map<string, KubePod>();
  readonly calls: FakeKubeCall[] = [];
  /** What the next Binding does (then back to `apply`). */
  nextBinding: BindingBehaviour = 'apply';

  /** Stores `pod` (as a watch would have seen it created). */
  addPod(pod: KubePod): void {
    this.pods.set(`${pod.metadata!.namespace}/${pod.metadata!.name}`, pod);
  }

  /** The stored pod `namespace/name`. */
  pod(namespace: string, name: string): KubePod | undefined {
    return this.pods.get(`${namespace}/${name}`);
  }

  async request(method: string, path: string, body?: unknown): Promise<KubeResponse> {
    this.calls.push({ method, path, body });
    const match = POD_PATH.exec(path);
    if (!match) return status(404, 'NotFound', `the server could not find the requested resource`);
    const [, namespace, name, binding] = match.map((m) => (m === undefined ? m : decodeURIComponent(m)));
    const key = `${namespace}/${name}`;
    const pod = this.pods.get(key);
    if (method === 'GET' && binding === undefined) {
      return pod ? { status: 200, body: structuredClone(pod) } : status(404, 'NotFound', `pods "${name}" not found`);
    }
    if (method !== 'POST' || binding === undefined) return status(405, 'MethodNotAllowed', `${method} ${path}`);
    const behaviour = this.nextBinding;
    this.nextBinding = 'apply';
    if (behaviour === 'unreachable') throw new Error(`POST ${path}: connect ECONNREFUSED`);
    if (typeof behaviour === 'object') return behaviour;
    const created = this.applyBinding(key, pod, body as BindingBody);
    if (behaviour === 'lost') throw new Error(`POST ${path}: no answer in 10000 ms`);
    return created;
  }

  close(): void {}

  private applyBinding(key: string, pod: KubePod | undefined, binding: BindingBody): KubeResponse {
    if (!pod) return status(404, 'NotFound', `pods "${binding.metadata.name}" not found`);
    if (binding.metadata.uid !== undefined && binding.metadata.uid !== pod.metadata?.uid)
      return status(409, 'Conflict', `Operation cannot be fulfilled on pods/binding "${binding.metadata.name}"`);
    if (pod.spec?.nodeName)
      return status(409, 'Conflict', `pod ${binding.metadata.name} is already assigned to node "${pod.spec.nodeName}"`);
    this.pods.set(key, {
      ...pod,
      metadata: { ...pod.metadata, annotations: { ...pod.metadata?.annotations, ...binding.metadata.annotations } },
      spec: { ...pod.spec, nodeName: binding.target.name },
    });
    return { status: 201, body: { kind: 'Status', apiVersion: 'v1', status: 'Success', code: 201 } };
  }
}

/** The fields of a Binding the fake reads. */
interface BindingBody {
  readonly metadata: { readonly name: string; readonly uid?: string; readonly annotations?: Record<string, string> };
  readonly target: { readonly name: string };
}
