/**
 * Loads the kubelet's plugin registration API and the DRA plugin API (v1 and v1beta1) from the
 * .proto files shipped in the package (proto/pluginregistration, proto/dra), with the same loader
 * options as the device plugin's APIs (device-plugin/protos.ts): field names as on the wire
 * (`request_names`, `cdi_device_ids`), empty repeated fields as arrays; but no virtual oneof
 * fields, so the proto3 `optional share_id` reads as itself (no `_share_id` beside it).
 *
 * Facts: ../shared docs K8S-DRA-CONTRACTS.md §3.1 (registration: package `pluginregistration`),
 * §3.2 (DRA: package `k8s.io.kubelet.pkg.apis.dra.v1`; v1beta1 the same without `share_id`).
 */
import * as grpc from '@grpc/grpc-js';
import { loadPackage } from '../device-plugin/protos.js';

/** No virtual oneof fields: `optional share_id` reads as itself. */
const load = (relativePath: string, packageName: string): grpc.GrpcObject =>
  loadPackage(relativePath, packageName, { oneofs: false });

/** A service's client constructor; its `service` is what a server adds. */
type ServiceConstructor = grpc.ServiceClientConstructor;

/** The DRA plugin API versions the driver serves, newest first (the order registration advertises). */
export const DRA_API_VERSIONS = ['v1', 'v1beta1'] as const;
/** A DRA plugin API version. */
export type DraApiVersion = (typeof DRA_API_VERSIONS)[number];

/** The loaded APIs. */
export interface DraApis {
  /** `pluginregistration.Registration` (served by the plugin, called by the kubelet). */
  readonly Registration: ServiceConstructor;
  /** `k8s.io.kubelet.pkg.apis.dra.<version>.DRAPlugin` per version. */
  readonly DRAPlugin: Readonly<Record<DraApiVersion, ServiceConstructor>>;
}

let apis: DraApis | null = null;

/** The registration and DRA APIs (loaded once). Throws when proto/ is missing from the package. */
export function loadDraApis(): DraApis {
  if (apis === null) {
    const registration = load('pluginregistration/v1/api.proto', 'pluginregistration');
    const plugin = Object.fromEntries(
      DRA_API_VERSIONS.map((v) => [
        v,
        load(`dra/${v}/api.proto`, `k8s.io.kubelet.pkg.apis.dra.${v}`).DRAPlugin as ServiceConstructor,
      ]),
    ) as Record<DraApiVersion, ServiceConstructor>;
    apis = { Registration: registration.Registration as ServiceConstructor, DRAPlugin: plugin };
  }
  return apis;
}
