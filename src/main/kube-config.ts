/**
 * The kubeconfig of a gpushare command that talks to the API server (`extender`, `webhook`,
 * `node-agent`, `autoscaler`): the file its `--kubeconfig` names, or the in-cluster ServiceAccount.
 */
import { KubeConfig } from '@kubernetes/client-node';

/**
 * Loads `file`, or the in-cluster ServiceAccount when null.
 * @throws Error when the file cannot be read or parsed, or no in-cluster credentials exist
 */
export function loadKubeConfig(file: string | null): KubeConfig {
  const kubeconfig = new KubeConfig();
  if (file !== null) kubeconfig.loadFromFile(file);
  else kubeconfig.loadFromCluster();
  return kubeconfig;
}
