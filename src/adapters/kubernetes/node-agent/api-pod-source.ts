/**
 * The device plugin's PodSource over the API server (GET /api/v1/namespaces/{ns}/pods/{name}) with
 * @kubernetes/client-node: a pod's annotations, null when the pod does not exist (404).
 */
import { ApiException, CoreV1Api, type KubeConfig } from '@kubernetes/client-node';
import type { PodInfo, PodSource } from '../device-plugin/pod-source.js';

/** A PodSource reading pods through `kubeConfig` (needs RBAC: get pods). */
export function createApiPodSource(kubeConfig: KubeConfig): PodSource {
  const api = kubeConfig.makeApiClient(CoreV1Api);
  return {
    async getPod(namespace: string, name: string): Promise<PodInfo | null> {
      try {
        const pod = await api.readNamespacedPod({ namespace, name });
        return { annotations: pod.metadata?.annotations ?? {} };
      } catch (error) {
        if (error instanceof ApiException && error.code === 404) return null;
        throw error;
      }
    },
  };
}
