/**
 * The API server's way into the "cluster" network for tests with no cluster network: an HTTP
 * CONNECT proxy on a Unix socket, named in an EgressSelectorConfiguration (kube-apiserver
 * `--egress-selector-config-file`, the mechanism of the Konnectivity proxy). kube-apiserver dials a
 * webhook given by a Service reference at the Service's ClusterIP and port, through the `cluster`
 * egress selection; the proxy sends each tunnel to the 127.0.0.1 port routed for that address.
 * TLS stays end to end: the API server still checks the webhook's certificate against the
 * configuration's caBundle, for the name `<service>.<namespace>.svc`.
 *
 * Facts (k8s.io/apiserver v0.37.2): pkg/util/webhook/authentication.go dials service webhooks
 * with the `cluster` egress dialer; pkg/server/egressselector/egress_selector.go sends
 * `CONNECT host:port HTTP/1.1` over `transport.uds.udsName` and expects a 200 status line.
 */
import { createServer, type Server } from 'node:http';
import { connect, type Socket } from 'node:net';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';

/** A running proxy. */
export interface EgressProxy {
  /** The EgressSelectorConfiguration file to pass to kube-apiserver. */
  readonly configPath: string;
  /** kube-apiserver flags that make it use the proxy for the `cluster` network. */
  readonly apiServerArgs: readonly string[];
  /** Sends tunnels to `address` (`host:port`, e.g. a Service's `10.96.0.12:443`) to 127.0.0.1:`localPort`. */
  route(address: string, localPort: number): void;
  /** Every CONNECT target asked for so far, in order. */
  readonly tunnels: readonly string[];
  close(): Promise<void>;
}

/** Starts the proxy on `<dir>/egress.sock` and writes `<dir>/egress-selector.yaml`. */
export async function startEgressProxy(dir: string): Promise<EgressProxy> {
  const socketPath = join(dir, 'egress.sock');
  const configPath = join(dir, 'egress-selector.yaml');
  const routes = new Map<string, number>();
  const tunnels: string[] = [];
  const open = new Set<Socket>();
  const server: Server = createServer((_req, res) => {
    res.writeHead(405).end();
  });
  server.on('connect', (req, client) => {
    const target = req.url ?? '';
    tunnels.push(target);
    const port = routes.get(target);
    if (port === undefined) {
      client.end(`HTTP/1.1 502 Bad Gateway\r\n\r\n`);
      return;
    }
    const upstream = connect(port, '127.0.0.1', () => {
      open.add(upstream).add(client as Socket);
      client.write('HTTP/1.1 200 Connection established\r\n\r\n');
      upstream.pipe(client);
      client.pipe(upstream);
    });
    upstream.on('close', () => open.delete(upstream));
    client.on('close', () => open.delete(client as Socket));
    upstream.on('error', () => client.destroy());
    client.on('error', () => upstream.destroy());
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(socketPath, resolve);
  });
  writeFileSync(
    configPath,
    [
      'apiVersion: apiserver.k8s.io/v1beta1',
      'kind: EgressSelectorConfiguration',
      'egressSelections:',
      '- name: cluster',
      '  connection:',
      '    proxyProtocol: HTTPConnect',
      '    transport:',
      '      uds:',
      `        udsName: ${socketPath}`,
      '',
    ].join('\n'),
  );
  return {
    configPath,
    apiServerArgs: [`--egress-selector-config-file=${configPath}`],
    route: (address, localPort) => routes.set(address, localPort),
    tunnels,
    close: () =>
      new Promise<void>((resolve) => {
        for (const socket of open) socket.destroy();
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
