/**
 * Loads the kubelet's gRPC APIs from the .proto files shipped in the package (proto/ at the package
 * root, four levels above this file in src/ and in dist/), with the options the APIs need:
 * `keepCase` (field names such as `ID`, `devices_ids`, `available_deviceIDs` stay as on the wire),
 * `defaults` (empty repeated fields arrive as arrays), int64 as JS numbers.
 */
import { fileURLToPath } from 'node:url';
import { join } from 'node:path';
import * as grpc from '@grpc/grpc-js';
import * as protoLoader from '@grpc/proto-loader';

/** The proto/ folder of the package. */
export const PROTO_DIR = fileURLToPath(new URL('../../../../proto/', import.meta.url));

const LOADER_OPTIONS: protoLoader.Options = {
  keepCase: true,
  longs: Number,
  enums: String,
  defaults: true,
  oneofs: true,
};

/** A service of a loaded package: its client constructor, whose `service` is what a server adds. */
type ServiceConstructor = grpc.ServiceClientConstructor;

/** The v1beta1 device plugin API: the kubelet's `Registration` and the plugin's `DevicePlugin`. */
export interface DevicePluginApi {
  readonly Registration: ServiceConstructor;
  readonly DevicePlugin: ServiceConstructor;
}

/** The v1 PodResources API. */
export interface PodResourcesApi {
  readonly PodResourcesLister: ServiceConstructor;
}

let devicePluginApi: DevicePluginApi | null = null;
let podResourcesApi: PodResourcesApi | null = null;

/**
 * Loads `proto/<relativePath>` and returns its package `packageName` (dotted names such as
 * `k8s.io.kubelet.pkg.apis.dra.v1` are walked), with the loader options above and `overrides`.
 * @throws Error when the file is missing or defines no such package
 */
export function loadPackage(
  relativePath: string,
  packageName: string,
  overrides: protoLoader.Options = {},
): grpc.GrpcObject {
  const definition = protoLoader.loadSync(join(PROTO_DIR, relativePath), { ...LOADER_OPTIONS, ...overrides });
  let node: grpc.GrpcObject = grpc.loadPackageDefinition(definition);
  for (const part of packageName.split('.')) {
    const next = node[part];
    if (next === undefined || typeof next === 'function')
      throw new Error(`${relativePath} defines no package ${packageName}`);
    node = next as grpc.GrpcObject;
  }
  return node;
}

/** The device plugin API (loaded once). Throws when proto/ is missing from the package. */
export function loadDevicePluginApi(): DevicePluginApi {
  if (devicePluginApi === null) {
    const pkg = loadPackage('deviceplugin/v1beta1/api.proto', 'v1beta1');
    devicePluginApi = {
      Registration: pkg.Registration as ServiceConstructor,
      DevicePlugin: pkg.DevicePlugin as ServiceConstructor,
    };
  }
  return devicePluginApi;
}

/** The PodResources API (loaded once). Throws when proto/ is missing from the package. */
export function loadPodResourcesApi(): PodResourcesApi {
  if (podResourcesApi === null) {
    const pkg = loadPackage('podresources/v1/api.proto', 'v1');
    podResourcesApi = { PodResourcesLister: pkg.PodResourcesLister as ServiceConstructor };
  }
  return podResourcesApi;
}

/** The gRPC target of a unix socket path. */
export function unixTarget(socketPath: string): string {
  return `unix:${socketPath}`;
}
