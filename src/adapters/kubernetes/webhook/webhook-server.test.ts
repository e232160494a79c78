import { request as httpsRequest } from 'node:https';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pino from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createLocalCa, issueServerCert, type PemPair } from '../../tls/local-ca.js';
import { applyJsonPatch, decodePatch } from './testing/apply-json-patch.js';
import { reviewOf, workloadOf } from './testing/reviews.js';
import { startWebhookServer, WEBHOOK_BODY_LIMIT_BYTES, type WebhookServer } from './webhook-server.js';
import type { JsonValue } from './json-patch.js';

type Json = { [key: string]: JsonValue };
interface Reply {
  status: number;
  body: Json;
  fingerprint: string;
}

/** One HTTPS request to 127.0.0.1 trusting only `caPem`. */
function call(
  server: WebhookServer,
  method: 'GET' | 'POST',
  path: string,
  caPem: string,
  body?: string,
): Promise<Reply> {
  return new Promise((resolve, reject) => {
    const req = httpsRequest(
      `${server.url}${path}`,
      {
        method,
        ca: caPem,
        agent: false,
        timeout: 10_000,
        headers:
          body === undefined ? {} : { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) },
      },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () => {
          const fingerprint = (res.socket as import('node:tls').TLSSocket).getPeerCertificate().fingerprint256;
          resolve({
            status: res.statusCode!,
            body: JSON.parse(Buffer.concat(chunks).toString('utf8')) as Json,
            fingerprint,
          });
        });
      },
    );
    req.on('timeout', () => req.destroy(new Error('timed out')));
    req.on('error', reject);
    req.end(body);
  });
}

/** The issue's manifest, as the API server posts it (0.5 → 500m, requests defaulted from limits). */
const ISSUE_DEPLOYMENT: Json = {
  apiVersion: 'apps/v1',
  kind: 'Deployment',
  metadata: { name: 'gpu-shared-job', namespace: 'ml' },
  spec: {
    template: {
      spec: {
        containers: [
          {
            name: 'tensorflow',
            image: 'tensorflow/tensorflow:latest',
            resources: { limits: { 'nvidia.com/gpu': '500m' }, requests: { 'nvidia.com/gpu': '500m' } },
            env: [{ name: 'NVIDIA_VISIBLE_DEVICES', value: '0' }],
          },
        ],
      },
    },
  },
};

let dir: string;
let ca: PemPair;
let server: WebhookServer;
const certFile = (): string => join(dir, 'tls.crt');
const keyFile = (): string => join(dir, 'tls.key');

async function writeServerCert(issuer: PemPair): Promise<PemPair> {
  const pair = await issueServerCert(issuer, ['127.0.0.1', 'gpushare-webhook.gpushare-system.svc'], Date.now());
  writeFileSync(certFile(), pair.certPem);
  writeFileSync(keyFile(), pair.keyPem);
  return pair;
}

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'gpushare-webhook-'));
  ca = await createLocalCa('webhook test CA', Date.now());
  await writeServerCert(ca);
  server = await startWebhookServer({
    host: '127.0.0.1',
    port: 0,
    tlsCertFile: certFile(),
    tlsKeyFile: keyFile(),
    tlsReloadIntervalMs: 0,
    config: { schedulerName: 'gpushare', maxGpuMemoryMiB: () => 81920 },
    logger: pino({ level: 'silent' }),
  });
});
afterAll(async () => {
  await server?.close();
  rmSync(dir, { recursive: true, force: true });
});

describe('webhook server over HTTPS on 127.0.0.1', () => {
  it('GET /healthz answers ok', async () => {
    const reply = await call(server, 'GET', '/healthz', ca.certPem);
    expect([reply.status, reply.body]).toEqual([200, { status: 'ok' }]);
    expect(server.url).toBe(`https://127.0.0.1:${server.port}`);
  });

  it(
    "POST /mutate rewrites the issue's Deployment: uid echoed, JSONPatch, warnings; the result " +
      'admits with no patch',
    async () => {
      const reply = await call(
        server,
        'POST',
        '/mutate',
        ca.certPem,
        JSON.stringify(reviewOf(ISSUE_DEPLOYMENT, { uid: 'a1b2' })),
      );
      expect(reply.status).toBe(200);
      const response = reply.body.response as {
        uid: string;
        allowed: boolean;
        patchType: string;
        patch: string;
        warnings: string[];
      };
      expect([reply.body.apiVersion, reply.body.kind, response.uid, response.allowed, response.patchType]).toEqual([
        'admission.k8s.io/v1',
        'AdmissionReview',
        'a1b2',
        true,
        'JSONPatch',
      ]);
      expect(response.warnings).toEqual([
        'container "tensorflow": removed NVIDIA_VISIBLE_DEVICES="0": gpushare assigns GPUs',
        'spec.selector and spec.template.metadata.labels were missing: added ' +
          'gpushare.io/workload=gpu-shared-job to both',
      ]);
      const result = applyJsonPatch(ISSUE_DEPLOYMENT, decodePatch(response)) as Json;
      const template = (result.spec as Json).template as Json;
      const container = ((template.spec as Json).containers as Json[])[0]!;
      expect(container.env).toBeUndefined();
      expect(container.resources).toEqual({
        limits: { 'gpushare.io/gpu-slot': '1', 'gpushare.io/gpu-milli': '500' },
        requests: { 'gpushare.io/gpu-slot': '1', 'gpushare.io/gpu-milli': '500' },
      });
      expect((template.spec as Json).schedulerName).toBe('gpushare');

      const again = await call(
        server,
        'POST',
        '/mutate',
        ca.certPem,
        JSON.stringify(reviewOf(result, { uid: 'a1b3' })),
      );
      expect(again.body).toEqual({
        apiVersion: 'admission.k8s.io/v1',
        kind: 'AdmissionReview',
        response: { uid: 'a1b3', allowed: true },
      });
    },
  );

  it('POST /mutate denies 1.5 GPUs with 200 and a status naming the container and field', async () => {
    const pod = workloadOf('Pod', 'p', {
      spec: { containers: [{ name: 'trainer', image: 'i', resources: { limits: { 'nvidia.com/gpu': '1500m' } } }] },
    });
    const reply = await call(server, 'POST', '/mutate', ca.certPem, JSON.stringify(reviewOf(pod, { uid: 'd1' })));
    expect(reply.status).toBe(200);
    expect(reply.body.response).toEqual({
      uid: 'd1',
      allowed: false,
      status: {
        status: 'Failure',
        code: 422,
        reason: 'Invalid',
        message:
          'container "trainer": spec.containers[0].resources.limits[nvidia.com/gpu]: 1500m GPUs: a ' +
          'request above 1 GPU must be a whole number of GPUs',
      },
    });
  });

  it('bad input: 400 naming the field; malformed JSON 400; a body over the limit 413', async () => {
    const noUid = await call(
      server,
      'POST',
      '/mutate',
      ca.certPem,
      JSON.stringify({
        apiVersion: 'admission.k8s.io/v1',
        kind: 'AdmissionReview',
        request: { kind: { group: '', version: 'v1', kind: 'Pod' }, operation: 'CREATE', object: {} },
      }),
    );
    expect([noUid.status, noUid.body]).toEqual([
      400,
      { error: 'BadRequest', message: 'AdmissionReview request.uid: Required' },
    ]);
    const malformed = await call(server, 'POST', '/mutate', ca.certPem, '{"apiVersion":');
    expect(malformed.status).toBe(400);
    const huge = JSON.stringify({ padding: 'x'.repeat(WEBHOOK_BODY_LIMIT_BYTES) });
    expect((await call(server, 'POST', '/mutate', ca.certPem, huge)).status).toBe(413);
  });

  it(
    'serves a renewed certificate from the same files without a restart; a pair that does not load ' +
      'keeps the old one',
    async () => {
      const before = await call(server, 'GET', '/healthz', ca.certPem);
      expect(server.reloadTls()).toBe(false);
      const ca2 = await createLocalCa('webhook test CA 2', Date.now());
      const renewed = await writeServerCert(ca2);
      expect(server.reloadTls()).toBe(true);
      const after = await call(server, 'GET', '/healthz', ca2.certPem);
      expect(after.status).toBe(200);
      expect(after.fingerprint).not.toBe(before.fingerprint);
      await expect(call(server, 'GET', '/healthz', ca.certPem)).rejects.toThrow(
        /self-signed|unable to verify|unable to get/,
      );
      // A certificate with another certificate's key does not load: the renewed pair stays.
      writeFileSync(keyFile(), (await issueServerCert(ca2, ['127.0.0.1'], Date.now())).keyPem);
      expect(server.reloadTls()).toBe(false);
      expect((await call(server, 'GET', '/healthz', ca2.certPem)).status).toBe(200);
      writeFileSync(keyFile(), renewed.keyPem);
    },
  );
});
