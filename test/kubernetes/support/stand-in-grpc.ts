/**
 * gRPC helpers of the stand-in kubelet: unary calls with a deadline, binding a server to a unix
 * socket, errors with a status code, and the kubelet's resource name check.
 */
import { statSync } from 'node:fs';
import * as grpc from '@grpc/grpc-js';
import { unixTarget } from '../../../src/adapters/kubernetes/device-plugin/protos.js';

type Unary<Req, Res> = (request: Req, options: grpc.CallOptions, callback: grpc.requestCallback<Res>) => void;

/** Calls unary `method` of a loaded client with a deadline `timeoutMs` from now. */
export function callUnary<Req, Res>(
  client: grpc.Client,
  method: string,
  request: Req,
  timeoutMs: number,
): Promise<Res> {
  const fn = (client as unknown as Record<string, Unary<Req, Res>>)[method]!.bind(client);
  return new Promise((resolve, reject) =>
    fn(request, { deadline: Date.now() + timeoutMs }, (error, response) =>
      error ? reject(error) : resolve(response as Res),
    ),
  );
}

/** Binds `server` to the unix socket `socketPath` (insecure, as the kubelet's sockets are). */
export function bindUnix(server: grpc.Server, socketPath: string): Promise<void> {
  return new Promise((resolve, reject) =>
    server.bindAsync(unixTarget(socketPath), grpc.ServerCredentials.createInsecure(), (error) =>
      error ? reject(error) : resolve(),
    ),
  );
}

/** A gRPC error with `code` and `message`. */
export function serviceError(code: grpc.status, message: string): grpc.ServiceError {
  return Object.assign(new Error(message), { code, details: message, metadata: new grpc.Metadata() });
}

/**
 * The kubelet's check of a device plugin's resource name (IsExtendedResourceName, simplified): one
 * `/`, a domain outside kubernetes.io, no `requests.` prefix.
 */
export function isExtendedResourceName(name: string): boolean {
  const slash = name.indexOf('/');
  if (slash <= 0 || slash !== name.lastIndexOf('/') || slash === name.length - 1) return false;
  const domain = name.slice(0, slash);
  return !(domain === 'kubernetes.io' || domain.endsWith('.kubernetes.io') || name.startsWith('requests.'));
}

/** True when `path` is a unix socket. */
export function isSocket(path: string): boolean {
  try {
    return statSync(path).isSocket();
  } catch {
    return false;
  }
}
