/**
 * A stand-in scheduler extender for tests of the scheduler's configuration and of the extender's
 * RBAC: HTTPS on 127.0.0.1 with its own CA, it passes every node at filter, gives every node the
 * same score, and binds as the real extender does (create the Binding with the assignment annotations) with
 * the credentials it is given. It records every call. The wire format (Go field names, no JSON
 * tags) is kube-scheduler's extender/v1 (k8s.io/kube-scheduler/extender/v1/types.go).
 */
import { createServer, type Server } from 'node:https';
import { writeFileSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import { createLocalCa, issueServerCert } from '../../../src/adapters/tls/local-ca.js';
import { kubeRequest, type KubeCredentials } from './kube-client.js';

/** One call the scheduler made: the verb (`filter`, `prioritize`, `bind`) and the request body. */
export interface ExtenderCall {
  readonly verb: string;
  readonly body: Record<string, unknown>;
}

/** A running stand-in. */
export interface FakeExtender {
  /** `https://127.0.0.1:PORT/scheduler`, for the configuration's urlPrefix. */
  readonly urlPrefix: string;
  /** The CA file to give the scheduler (tlsConfig.caFile). */
  readonly caFile: string;
  readonly calls: ExtenderCall[];
  /** Errors of bind steps (status and text), empty when every bind worked. */
  readonly bindErrors: string[];
  close(): Promise<void>;
}

/**
 * Starts the stand-in. At bind it POSTs the pod's Binding with `annotations` on it (the API server
 * writes them into the pod with its node), with `credentials` (the extender's ServiceAccount in the
 * RBAC test), as the real extender does.
 */
export async function startFakeExtender(
  caFile: string,
  credentials: KubeCredentials,
  annotations: Record<string, string>,
): Promise<FakeExtender> {
  const now = Date.now();
  const ca = await createLocalCa('gpushare-test-extender-ca', now);
  const serving = await issueServerCert(ca, ['127.0.0.1'], now);
  writeFileSync(caFile, ca.certPem);
  const calls: ExtenderCall[] = [];
  const bindErrors: string[] = [];
  const answer = async (verb: string, args: Record<string, unknown>): Promise<unknown> => {
    if (verb === 'filter')
      return { Nodes: null, NodeNames: args.NodeNames, FailedNodes: {}, FailedAndUnresolvableNodes: {}, Error: '' };
    if (verb === 'prioritize')
      return ((args.NodeNames as string[] | null) ?? []).map((name) => ({ Host: name, Score: 5 }));
    if (verb !== 'bind') return { Error: `unknown verb ${verb}` };
    const { PodName: name, PodNamespace: namespace, PodUID: uid, Node: node } = args as Record<string, string>;
    const pod = `/api/v1/namespaces/${namespace}/pods/${name}`;
    const bound = await kubeRequest(credentials, 'POST', `${pod}/binding`, {
      apiVersion: 'v1',
      kind: 'Binding',
      metadata: { name, namespace, uid, annotations },
      target: { apiVersion: 'v1', kind: 'Node', name: node },
    });
    if (bound.status !== 201) bindErrors.push(`binding ${bound.status} ${bound.text}`);
    return { Error: bound.status === 201 ? '' : `binding failed: ${bound.status}` };
  };
  const server: Server = createServer({ key: serving.keyPem, cert: serving.certPem }, (req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const verb = (req.url ?? '').replace(/^\/scheduler\//, '');
      const body = JSON.parse(Buffer.concat(chunks).toString('utf8') || '{}') as Record<string, unknown>;
      calls.push({ verb, body });
      answer(verb, body).then(
        (reply) => res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(reply)),
        (error: unknown) => res.writeHead(500).end(String(error)),
      );
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as AddressInfo).port;
  return {
    urlPrefix: `https://127.0.0.1:${port}/scheduler`,
    caFile,
    calls,
    bindErrors,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
