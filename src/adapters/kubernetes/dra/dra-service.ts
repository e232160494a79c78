/**
 * The gRPC handlers of the kubelet plugin: `pluginregistration.Registration` (GetInfo,
 * NotifyRegistrationStatus) and `DRAPlugin` (NodePrepareResources, NodeUnprepareResources) of
 * each DRA API version, over a {@link ClaimPreparer}. Every claim of a request gets an entry in
 * the answer (the kubelet retries missing ones); a claim that fails gets its `error`, the others
 * their devices. `share_id` is sent on v1 only (v1beta1 has no such field).
 *
 * Facts: ../shared docs K8S-DRA-CONTRACTS.md §3.1 (GetInfo answers {type DRAPlugin, name, endpoint,
 * supported_versions}; `plugin_registered=false` is an error), §3.2 (per-claim errors; calls must
 * be idempotent).
 */
import type * as grpc from '@grpc/grpc-js';
import type { ClaimPreparer } from './claim-preparer.js';
import { PrepareFailure } from './prepare-failure.js';
import type { DraApiVersion } from './dra-protos.js';
import type {
  ClaimsRequest,
  PluginInfo,
  PrepareResponse,
  RegistrationStatus,
  UnprepareResponse,
  WireDevice,
  WirePrepareResult,
} from './dra-wire-types.js';

/** What the handlers report, for logs. */
export interface DraServiceEvents {
  onRegistrationStatus?(status: RegistrationStatus): void;
  onPrepared?(
    claim: { namespace: string; name: string; uid: string },
    result: WirePrepareResult,
    created: boolean,
  ): void;
  onUnprepared?(uid: string, error: string): void;
}

function errorText(error: unknown): string {
  if (error instanceof PrepareFailure) return error.wireError();
  return `Internal: ${error instanceof Error ? error.message : String(error)}`;
}

/** The Registration handlers answering `info`. */
export function registrationHandlers(
  info: PluginInfo,
  events: DraServiceEvents = {},
): grpc.UntypedServiceImplementation {
  return {
    GetInfo: (_call: grpc.ServerUnaryCall<object, PluginInfo>, callback: grpc.sendUnaryData<PluginInfo>) =>
      callback(null, info),
    NotifyRegistrationStatus: (
      call: grpc.ServerUnaryCall<RegistrationStatus, object>,
      callback: grpc.sendUnaryData<object>,
    ) => {
      events.onRegistrationStatus?.(call.request);
      callback(null, {});
    },
  };
}

/** The DRAPlugin handlers of API `version` over `preparer`. */
export function draPluginHandlers(
  version: DraApiVersion,
  preparer: ClaimPreparer,
  events: DraServiceEvents = {},
): grpc.UntypedServiceImplementation {
  return {
    NodePrepareResources: (
      call: grpc.ServerUnaryCall<ClaimsRequest, PrepareResponse>,
      callback: grpc.sendUnaryData<PrepareResponse>,
    ) => {
      void (async () => {
        const claims: Record<string, WirePrepareResult> = {};
        for (const claim of call.request.claims) {
          let result: WirePrepareResult;
          let created = false;
          try {
            const outcome = await preparer.prepare(claim);
            created = outcome.created;
            result = {
              devices: outcome.devices.map((d): WireDevice => ({
                request_names: [d.request],
                pool_name: d.pool,
                device_name: d.device,
                cdi_device_ids: [...d.cdiDeviceIds],
                ...(version === 'v1' && d.shareId !== null ? { share_id: d.shareId } : {}),
              })),
              error: '',
            };
          } catch (error) {
            result = { devices: [], error: errorText(error) };
          }
          claims[claim.uid] = result;
          events.onPrepared?.(claim, result, created);
        }
        callback(null, { claims });
      })().catch((error: unknown) => callback(error as Error));
    },
    NodeUnprepareResources: (
      call: grpc.ServerUnaryCall<ClaimsRequest, UnprepareResponse>,
      callback: grpc.sendUnaryData<UnprepareResponse>,
    ) => {
      void (async () => {
        const claims: Record<string, { error: string }> = {};
        for (const claim of call.request.claims) {
          let error = '';
          try {
            await preparer.unprepare(claim.uid);
          } catch (e) {
            error = errorText(e);
          }
          claims[claim.uid] = { error };
          events.onUnprepared?.(claim.uid, error);
        }
        callback(null, { claims });
      })().catch((error: unknown) => callback(error as Error));
    },
  };
}
