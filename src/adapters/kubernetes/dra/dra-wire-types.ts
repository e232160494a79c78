/**
 * The messages of the kubelet's plugin registration and DRA plugin APIs as @grpc/proto-loader
 * gives and takes them (proto/pluginregistration/v1, proto/dra/{v1,v1beta1}; field names as on
 * the wire). Facts: ../shared docs K8S-DRA-CONTRACTS.md §3.1, §3.2.
 */

/** `pluginregistration.PluginInfo`. */
export interface PluginInfo {
  type: string;
  name: string;
  endpoint: string;
  supported_versions: string[];
}

/** `pluginregistration.RegistrationStatus`. */
export interface RegistrationStatus {
  plugin_registered: boolean;
  error: string;
}

/** A claim as the kubelet names it: identity only, the driver reads the rest from the API server. */
export interface WireClaim {
  namespace: string;
  uid: string;
  name: string;
}

/** `Device` of a prepare answer; `share_id` only in v1. */
export interface WireDevice {
  request_names: string[];
  pool_name: string;
  device_name: string;
  cdi_device_ids: string[];
  share_id?: string;
}

/** `NodePrepareResourcesRequest` / `NodeUnprepareResourcesRequest`. */
export interface ClaimsRequest {
  claims: WireClaim[];
}

/** `NodePrepareResourceResponse`: devices, or a non-empty error. */
export interface WirePrepareResult {
  devices: WireDevice[];
  error: string;
}

/** `NodePrepareResourcesResponse`: by claim UID. */
export interface PrepareResponse {
  claims: Record<string, WirePrepareResult>;
}

/** `NodeUnprepareResourcesResponse`: by claim UID; empty error = done. */
export interface UnprepareResponse {
  claims: Record<string, { error: string }>;
}

/** The plugin type the kubelet's DRA plugin manager takes. */
export const DRA_PLUGIN_TYPE = 'DRAPlugin';

/** The service identifier of a DRA API version in `supported_versions`, e.g. `v1.DRAPlugin`. */
export function draServiceVersion(version: string): string {
  return `${version}.DRAPlugin`;
}
