/**
 * End-to-end: TLS by default. A real `gpushare serve` listens HTTPS with a certificate of its local
 * CA (keys 0600, reused across a restart), writes the CA into the CLI config, and the real CLI
 * verifies the server against that CA: it refuses a server whose certificate another CA signed.
 * Plain HTTP to the HTTPS port gets no API answer; `--insecure-http` serves plain HTTP and warns,
 * and an old CLI config (http URL, no CA) works against it.
 */
import { X509Certificate } from 'node:crypto';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { request as httpRequest } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { cleanupServe, cli, serverFetch, startServe, stopServe, type ServeHandle } from './support/serve-harness.js';

const mode = (path: string): number => statSync(path).mode & 0o777;
const tlsFile = (server: ServeHandle, name: string): string => join(server.dataDir, 'data', 'tls', name);

/** A plain-HTTP GET to `port`: the answer's status and body, or the socket error's code. */
function plainHttpGet(port: number, path: string): Promise<{ status: number; body: string } | { error: string }> {
  return new Promise((resolve) => {
    const req = httpRequest({ host: '127.0.0.1', port, path, method: 'GET' }, (res) => {
      let body = '';
      res.on('data', (d: Buffer) => (body += d.toString()));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body }));
    });
    req.on('error', (error: NodeJS.ErrnoException) => resolve({ error: error.code ?? error.message }));
    req.end();
  });
}

describe('gpushare serve: TLS by default', () => {
  const servers: ServeHandle[] = [];
  const scratch = mkdtempSync(join(tmpdir(), 'gpushare-e2e-tls-'));
  afterAll(async () => {
    for (const server of servers) await cleanupServe(server);
    rmSync(scratch, { recursive: true, force: true });
  });
  const start = async (options: Parameters<typeof startServe>[0]): Promise<ServeHandle> => {
    const server = await startServe({
      simulateGpus: '1xT4',
      ...options,
      extraArgs: [...(options.extraArgs ?? []), '--log-level', 'info'],
    });
    servers.push(server);
    return server;
  };

  it('listens HTTPS with a local CA, keys 0600, the CA in the CLI config, and reuses the CA at a restart', async () => {
    const server = await start({});
    expect(server.url).toMatch(/^https:\/\/127\.0\.0\.1:\d+$/);
    expect(mode(join(server.dataDir, 'data', 'tls'))).toBe(0o700);
    expect([
      mode(tlsFile(server, 'ca.key')),
      mode(tlsFile(server, 'server.key')),
      mode(tlsFile(server, 'ca.crt')),
      mode(tlsFile(server, 'server.crt')),
    ]).toEqual([0o600, 0o600, 0o644, 0o644]);
    const ca = new X509Certificate(readFileSync(tlsFile(server, 'ca.crt')));
    const cert = new X509Certificate(readFileSync(tlsFile(server, 'server.crt')));
    expect([ca.ca, cert.ca, cert.checkIssued(ca), cert.verify(ca.publicKey)]).toEqual([true, false, true, true]);
    expect(cert.subjectAltName).toMatch(
      /^IP Address:127\.0\.0\.1, IP Address:0:0:0:0:0:0:0:1, DNS:localhost, DNS:\S+$/,
    );
    expect(server.stderr).toContain('TLS: local CA created');
    // The CLI config: https URL, token, and the CA's PEM text under `ca`; 0600.
    const configPath = join(server.configHome, 'gpushare', 'config.yaml');
    expect(mode(configPath)).toBe(0o600);
    const config = parse(readFileSync(configPath, 'utf8')) as Record<string, string>;
    expect(Object.keys(config)).toEqual(['url', 'token', 'ca']);
    expect([config.url, config.token, config.ca!.trim()]).toEqual([
      server.url,
      server.adminToken,
      readFileSync(tlsFile(server, 'ca.crt'), 'utf8').trim(),
    ]);
    // The real CLI verifies the server against that CA and works without flags.
    const status = cli(server, ['status']);
    expect([status.code, status.stderr]).toEqual([0, '']);
    expect(status.stdout).toContain('server:');

    const before = {
      ca: readFileSync(tlsFile(server, 'ca.crt'), 'utf8'),
      key: readFileSync(tlsFile(server, 'ca.key'), 'utf8'),
      cert: readFileSync(tlsFile(server, 'server.crt'), 'utf8'),
    };
    expect(await stopServe(server)).toBe(0);
    const again = await start({ dataDir: server.dataDir, configHome: server.configHome });
    expect(again.stderr).toContain('TLS: local CA reused');
    expect(again.stderr).toContain('server certificate reused');
    expect([
      readFileSync(tlsFile(again, 'ca.crt'), 'utf8'),
      readFileSync(tlsFile(again, 'ca.key'), 'utf8'),
      readFileSync(tlsFile(again, 'server.crt'), 'utf8'),
    ]).toEqual([before.ca, before.key, before.cert]);
    expect((await serverFetch(again, '/healthz')).status).toBe(200);

    // Plain HTTP to the HTTPS port: the TLS layer closes the connection; no API answer (no 401, no JSON).
    const port = Number(new URL(again.url).port);
    expect(await plainHttpGet(port, '/api/v1/status')).toEqual({ error: 'ECONNRESET' });
    expect(await plainHttpGet(port, '/healthz')).toEqual({ error: 'ECONNRESET' });
    const plain = cli(again, ['gpus', '--url', again.url.replace('https:', 'http:')]);
    expect([plain.code, plain.stderr]).toEqual([
      3,
      `error: cannot reach the gpushare server at ${again.url.replace('https:', 'http:')}: connection ` +
        `reset; if the server uses TLS (the default), use its https:// URL\n`,
    ]);

    // An https URL without a CA: the CLI names the config keys, the flag and the variable to set.
    const bare = join(scratch, 'bare-config');
    mkdirSync(join(bare, 'gpushare'), { recursive: true });
    writeFileSync(join(bare, 'gpushare', 'config.yaml'), `url: ${again.url}\ntoken: ${again.adminToken}\n`);
    const noCa = cli({ ...again, configHome: bare }, ['gpus']);
    expect(noCa.code).toBe(3);
    expect(noCa.stderr).toBe(
      `error: cannot reach the gpushare server at ${again.url}: the server's TLS certificate is not ` +
        `trusted: unable to verify the first certificate (UNABLE_TO_VERIFY_LEAF_SIGNATURE); ` +
        (`no CA is configured for this https server: set ca: (the CA certificate's PEM text; \`gpushare ` +
          `serve\` writes it) or caFile: (its path) in ${join(bare, 'gpushare', 'config.yaml')}, or pass ` +
          `--ca FILE or set GPUSHARE_CA_FILE\n`),
    );
    // caFile (a path) works as well as ca.
    writeFileSync(
      join(bare, 'gpushare', 'config.yaml'),
      `url: ${again.url}\ntoken: ${again.adminToken}\ncaFile: ${tlsFile(again, 'ca.crt')}\n`,
    );
    expect(cli({ ...again, configHome: bare }, ['gpus']).code).toBe(0);
  });

  it(
    'refuses a server whose certificate another CA signed (--ca, and a server started with ' +
      '--tls-cert/--tls-key of another CA)',
    async () => {
      const first = await start({});
      const second = await start({});
      expect(readFileSync(tlsFile(first, 'ca.crt'), 'utf8')).not.toBe(readFileSync(tlsFile(second, 'ca.crt'), 'utf8'));
      // The first server, checked against the second server's CA.
      const wrongCa = cli(first, ['gpus', '--ca', tlsFile(second, 'ca.crt')]);
      expect(wrongCa.code).toBe(3);
      expect(wrongCa.stderr).toBe(
        `error: cannot reach the gpushare server at ${first.url}: the server's TLS certificate is not ` +
          `trusted: unable to verify the first certificate (UNABLE_TO_VERIFY_LEAF_SIGNATURE); ` +
          (`it was checked against the CA from --ca ${tlsFile(second, 'ca.crt')}; if that is not this ` +
            `server's CA, point ca: or caFile: in ${join(first.configHome, 'gpushare', 'config.yaml')}, --ca ` +
            `or GPUSHARE_CA_FILE at the right one\n`),
      );
      // A server with the second server's certificate and key, announcing the first server's CA.
      const own = await start({
        extraArgs: [
          '--tls-cert',
          tlsFile(second, 'server.crt'),
          '--tls-key',
          tlsFile(second, 'server.key'),
          '--tls-ca',
          tlsFile(first, 'ca.crt'),
        ],
      });
      expect(own.stderr).toContain(
        `TLS: certificate ${tlsFile(second, 'server.crt')}, CA ${tlsFile(first, 'ca.crt')} (written into ` +
          `the CLI config)`,
      );
      const refused = cli(own, ['gpus']);
      expect([refused.code, refused.stdout]).toEqual([3, '']);
      expect(refused.stderr).toContain(
        `error: cannot reach the gpushare server at ${own.url}: the server's TLS certificate is not ` +
          `trusted: unable to verify the first certificate (UNABLE_TO_VERIFY_LEAF_SIGNATURE); it was checked ` +
          `against the CA from ca in `,
      );
      // ... and with the CA that did sign it, the same server is trusted.
      expect(cli(own, ['gpus', '--ca', tlsFile(second, 'ca.crt')]).code).toBe(0);
      expect(
        (await serverFetch({ url: own.url, caCert: readFileSync(tlsFile(second, 'ca.crt'), 'utf8') }, '/healthz'))
          .status,
      ).toBe(200);
      // A key that is not the certificate's: the server does not start, and says why.
      await expect(
        startServe({
          simulateGpus: '1xT4',
          extraArgs: ['--tls-cert', tlsFile(second, 'server.crt'), '--tls-key', tlsFile(first, 'server.key')],
        }),
      ).rejects.toThrow(
        `error: --tls-key: ${tlsFile(first, 'server.key')} is not the key of --tls-cert ` +
          `${tlsFile(second, 'server.crt')}`,
      );
    },
  );

  it(
    'serves plain HTTP only with --insecure-http, warns, and keeps an old CLI config (http URL, no ' + 'CA) working',
    async () => {
      const server = await start({ extraArgs: ['--insecure-http'] });
      expect(server.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
      expect(server.stderr).toContain('"level":40');
      expect(server.stderr).toContain('TLS is off (--insecure-http): the API, tokens included, travels in clear text');
      const config = parse(readFileSync(join(server.configHome, 'gpushare', 'config.yaml'), 'utf8')) as Record<
        string,
        string
      >;
      expect(config).toEqual({ url: server.url, token: server.adminToken });
      const gpus = cli(server, ['gpus']);
      expect([gpus.code, gpus.stderr]).toEqual([0, '']);
      expect(await plainHttpGet(Number(new URL(server.url).port), '/healthz')).toEqual({
        status: 200,
        body: '{"status":"ok"}',
      });
      expect(() => statSync(join(server.dataDir, 'data', 'tls'))).toThrow(/ENOENT/);
    },
  );
});
