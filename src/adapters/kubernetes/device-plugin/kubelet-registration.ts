/**
 * The plugin's side of `v1beta1.Registration/Register` on the kubelet's socket. The kubelet checks
 * the version and the resource name, dials the plugin at `<its dir>/<endpoint>` and calls
 * GetDevicePluginOptions before it answers (kubelet pkg/kubelet/cm/devicemanager/plugin/v1beta1
 * server.go, Register → connectClient), so the plugin must be serving first.
 */
import * as grpc from '@grpc/grpc-js';
import { loadDevicePluginApi, unixTarget } from './protos.js';
import type { RegisterRequest } from './wire-types.js';

/**
 * Calls Register on the kubelet listening at `kubeletSocket`.
 * Rejects with the gRPC error: the kubelet's refusal (unsupported version, bad or taken resource
 * name, plugin not reachable) or UNAVAILABLE / DEADLINE_EXCEEDED after `timeoutMs`.
 */
export function registerWithKubelet(kubeletSocket: string, request: RegisterRequest, timeoutMs: number): Promise<void> {
  const api = loadDevicePluginApi();
  const client = new api.Registration(unixTarget(kubeletSocket), grpc.credentials.createInsecure());
  return new Promise((resolve, reject) => {
    (
      client as unknown as {
        Register(req: RegisterRequest, options: grpc.CallOptions, cb: grpc.requestCallback<object>): void;
      }
    ).Register(request, { deadline: Date.now() + timeoutMs }, (error) => {
      client.close();
      if (error) reject(error);
      else resolve();
    });
  });
}
