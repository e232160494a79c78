/**
 * The kubelet's side of the driver's gRPC APIs, for tests: GetInfo and NotifyRegistrationStatus on
 * the registration socket, NodePrepareResources and NodeUnprepareResources on the DRA socket, each
 * call with a deadline, over real unix sockets.
 */
import * as grpc from '@grpc/grpc-js';
import { unixTarget } from '../../device-plugin/protos.js';
import { loadDraApis, type DraApiVersion } from '../dra-protos.js';
import type {
  PluginInfo,
  PrepareResponse,
  RegistrationStatus,
  UnprepareResponse,
  WireClaim,
} from '../dra-wire-types.js';

type Unary = (request: object, options: grpc.CallOptions, callback: grpc.requestCallback<object>) => void;

function call<T>(client: grpc.Client, method: string, request: object, timeoutMs: number): Promise<T> {
  const fn = (client as unknown as Record<string, Unary>)[method]!.bind(client);
  return new Promise((resolve, reject) =>
    fn(request, { deadline: Date.now() + timeoutMs }, (error, response) =>
      error ? reject(error) : resolve(response as T),
    ),
  );
}

/** GetInfo on the registration socket. */
export async function getPluginInfo(registrationSocket: string, timeoutMs = 5000): Promise<PluginInfo> {
  const client = new (loadDraApis().Registration)(unixTarget(registrationSocket), grpc.credentials.createInsecure());
  try {
    return await call<PluginInfo>(client, 'GetInfo', {}, timeoutMs);
  } finally {
    client.close();
  }
}

/** NotifyRegistrationStatus on the registration socket. */
export async function notifyRegistration(
  registrationSocket: string,
  status: RegistrationStatus,
  timeoutMs = 5000,
): Promise<void> {
  const client = new (loadDraApis().Registration)(unixTarget(registrationSocket), grpc.credentials.createInsecure());
  try {
    await call<object>(client, 'NotifyRegistrationStatus', status, timeoutMs);
  } finally {
    client.close();
  }
}

/** A DRA client of one API version on the DRA socket. */
export interface DraKubeletClient {
  prepare(claims: WireClaim[]): Promise<PrepareResponse>;
  unprepare(claims: WireClaim[]): Promise<UnprepareResponse>;
  close(): void;
}

/** Dials the DRA socket with API `version`. */
export function draKubeletClient(draSocket: string, version: DraApiVersion, timeoutMs = 30_000): DraKubeletClient {
  const client = new (loadDraApis().DRAPlugin[version])(unixTarget(draSocket), grpc.credentials.createInsecure());
  return {
    prepare: (claims) => call<PrepareResponse>(client, 'NodePrepareResources', { claims }, timeoutMs),
    unprepare: (claims) => call<UnprepareResponse>(client, 'NodeUnprepareResources', { claims }, timeoutMs),
    close: () => client.close(),
  };
}
