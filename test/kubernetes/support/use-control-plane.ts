/**
 * One control plane per test file, for vitest: started in beforeAll (its start-up time printed),
 * stopped in afterAll whatever happened. When a test of the file failed, the tail of every
 * component's log is printed then and the folder is kept (its path printed) for a look afterwards.
 */
import { afterAll, afterEach, beforeAll } from 'vitest';
import { startControlPlane, type ControlPlane, type ControlPlaneOptions } from './control-plane.js';

/** Bound of the start in beforeAll: a loaded two-core machine starts one in about 20 s. */
export const CONTROL_PLANE_START_TIMEOUT_MS = 240_000;

/**
 * Registers the hooks and returns a getter of the running control plane (call it inside tests and
 * hooks registered after this call).
 */
export function useControlPlane(options: ControlPlaneOptions = {}): () => ControlPlane {
  let plane: ControlPlane | undefined;
  let failed = false;
  beforeAll(async () => {
    plane = await startControlPlane(options);
    const t = plane.timings;
    process.stdout.write(
      `test control plane at ${plane.serverUrl} up in ${t.totalMs} ms (certificates ${t.certificatesMs}, ` +
        `etcd ${t.etcdMs}, kube-apiserver ${t.apiServerMs}, controller manager and scheduler ` +
        `${t.controllersMs}, default ServiceAccount ${t.serviceAccountMs})\n`,
    );
  }, CONTROL_PLANE_START_TIMEOUT_MS);
  afterEach((context) => {
    if (context.task.result?.state === 'fail') failed = true;
  });
  afterAll(async () => {
    if (failed) plane?.printLogs();
    await plane?.stop({ keepDir: failed });
  }, 60_000);
  return () => {
    if (plane === undefined) throw new Error('the control plane is not running (did beforeAll fail?)');
    return plane;
  };
}
