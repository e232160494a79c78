/**
 * Reads ResourceClaims for the preparer through the API server:
 * GET /apis/resource.k8s.io/v1/namespaces/{namespace}/resourceclaims/{name} (RBAC: get
 * resourceclaims).
 */
import type { ResourceClaimObject } from './claim-allocation.js';
import { ClaimNotFoundError, type ClaimReader } from './claim-preparer.js';
import { statusMessage, type KubeRest } from '../extender/kube-rest.js';

/** A ClaimReader over `api`. */
export function createApiClaimReader(api: KubeRest): ClaimReader {
  return {
    async read(namespace, name) {
      const path =
        `/apis/resource.k8s.io/v1/namespaces/${encodeURIComponent(namespace)}` +
        `/resourceclaims/${encodeURIComponent(name)}`;
      const answer = await api.request('GET', path);
      if (answer.status === 404) throw new ClaimNotFoundError(`claim ${namespace}/${name} does not exist`);
      if (answer.status !== 200) throw new Error(`GET ${path}: ${statusMessage(answer)}`);
      return answer.body as ResourceClaimObject;
    },
  };
}
