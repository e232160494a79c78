/**
 * A stand-in API server for the DRA driver's calls, on 127.0.0.1 over HTTP: a Node, ResourceSlices
 * (list with the driver's field selector, create, replace, delete, with resourceVersions and
 * AlreadyExists/Conflict answers) and ResourceClaims (get), all in memory; every request is
 * recorded. For tests of `gpushare dra-driver` as a child process without a control plane.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

/** A stored object. */
export interface KubeObject {
  metadata: { name: string; namespace?: string; uid?: string; resourceVersion?: string; ownerReferences?: unknown };
  [field: string]: unknown;
}

/** The running stand-in. */
export interface StandInDraApi {
  /** `http://127.0.0.1:<port>`. */
  readonly url: string;
  /** The ResourceSlices by name. */
  readonly slices: Map<string, KubeObject>;
  /** The ResourceClaims by `namespace/name`. */
  readonly claims: Map<string, KubeObject>;
  /** `METHOD path` of every request, in order. */
  readonly requests: string[];
  /** Answers the next `count` requests with 500 InternalError. */
  failNext(count: number): void;
  /** A kubeconfig (JSON) pointing at the stand-in. */
  kubeconfig(): string;
  close(): Promise<void>;
}

/** Starts the stand-in with Node `nodeName` (uid `node-uid-1`). */
export async function startStandInDraApi(nodeName: string): Promise<StandInDraApi> {
  const slices = new Map<string, KubeObject>();
  const claims = new Map<string, KubeObject>();
  const requests: string[] = [];
  let version = 1;
  let failures = 0;
  const server: Server = createServer((req, res) => {
    let text = '';
    req.on('data', (c: Buffer) => (text += c.toString()));
    req.on('end', () => {
      const url = new URL(req.url!, 'http://x');
      requests.push(`${req.method} ${url.pathname}`);
      const send = (status: number, body: unknown): void => {
        res.statusCode = status;
        res.setHeader('content-type', 'application/json');
        res.end(JSON.stringify(body));
      };
      const status = (code: number, reason: string): void =>
        send(code, { kind: 'Status', apiVersion: 'v1', status: 'Failure', reason, code, message: reason });
      const path = url.pathname;
      if (failures > 0) {
        failures--;
        return status(500, 'InternalError');
      }
      if (req.method === 'GET' && path === `/api/v1/nodes/${nodeName}`)
        return send(200, { kind: 'Node', apiVersion: 'v1', metadata: { name: nodeName, uid: 'node-uid-1' } });
      const claim = /^\/apis\/resource\.k8s\.io\/v1\/namespaces\/([^/]+)\/resourceclaims\/([^/]+)$/.exec(path);
      if (req.method === 'GET' && claim) {
        const found = claims.get(`${claim[1]}/${claim[2]}`);
        return found ? send(200, found) : status(404, 'NotFound');
      }
      if (path === '/apis/resource.k8s.io/v1/resourceslices') {
        if (req.method === 'GET') {
          const selector = url.searchParams.get('fieldSelector') ?? '';
          const items = [...slices.values()].filter((s) => {
            const spec = s.spec as { driver: string; nodeName: string };
            return selector
              .split(',')
              .filter((t) => t !== '')
              .every((t) => {
                const [k, v] = t.split('=');
                return k === 'spec.driver' ? spec.driver === v : k === 'spec.nodeName' ? spec.nodeName === v : false;
              });
          });
          return send(200, { kind: 'ResourceSliceList', apiVersion: 'resource.k8s.io/v1', items });
        }
        if (req.method === 'POST') {
          const body = JSON.parse(text) as KubeObject;
          if (slices.has(body.metadata.name)) return status(409, 'AlreadyExists');
          body.metadata.resourceVersion = String(version++);
          slices.set(body.metadata.name, body);
          return send(201, body);
        }
      }
      const one = /^\/apis\/resource\.k8s\.io\/v1\/resourceslices\/([^/]+)$/.exec(path);
      if (one) {
        const before = slices.get(one[1]!);
        if (before === undefined) return status(404, 'NotFound');
        if (req.method === 'PUT') {
          const body = JSON.parse(text) as KubeObject;
          if (body.metadata.resourceVersion !== before.metadata.resourceVersion) return status(409, 'Conflict');
          body.metadata.resourceVersion = String(version++);
          slices.set(one[1]!, body);
          return send(200, body);
        }
        if (req.method === 'DELETE') {
          slices.delete(one[1]!);
          return send(200, before);
        }
      }
      status(404, 'NotFound');
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    url,
    slices,
    claims,
    requests,
    failNext: (count) => void (failures = count),
    kubeconfig: () =>
      JSON.stringify({
        apiVersion: 'v1',
        kind: 'Config',
        'current-context': 'test',
        clusters: [{ name: 'test', cluster: { server: url, 'insecure-skip-tls-verify': true } }],
        users: [{ name: 'driver', user: { token: 'driver-token' } }],
        contexts: [{ name: 'test', context: { cluster: 'test', user: 'driver' } }],
      }),
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
