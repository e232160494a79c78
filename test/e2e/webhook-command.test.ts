/**
 * End-to-end test of `gpushare webhook` (the built CLI): usage errors, then a real process serving
 * HTTPS on 127.0.0.1 with a generated certificate, answering AdmissionReviews with the configured
 * schedulerName and memory bound, and stopping cleanly on SIGTERM. Also checks that the client
 * bundle does not carry the webhook.
 */
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { request as httpsRequest } from 'node:https';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createLocalCa, issueServerCert, type PemPair } from '../../src/adapters/tls/local-ca.js';
import { decodePatch } from '../../src/adapters/kubernetes/webhook/testing/apply-json-patch.js';
import { reviewOf, workloadOf } from '../../src/adapters/kubernetes/webhook/testing/reviews.js';
import { WAIT_MS } from '../../src/testing/deadlines.js';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const BIN = join(ROOT, 'bin', 'gpushare');
const ENV = { ...process.env, KUBERNETES_SERVICE_HOST: undefined } as NodeJS.ProcessEnv;

let dir: string;
let ca: PemPair;
let child: ChildProcess | undefined;

function post(url: string, body: unknown): Promise<{ status: number; json: { response: Record<string, unknown> } }> {
  const text = JSON.stringify(body);
  return new Promise((resolve, reject) => {
    const req = httpsRequest(
      `${url}/mutate`,
      {
        method: 'POST',
        ca: ca.certPem,
        agent: false,
        timeout: WAIT_MS,
        headers: { 'content-type': 'application/json' },
      },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () =>
          resolve({
            status: res.statusCode!,
            json: JSON.parse(Buffer.concat(chunks).toString('utf8')) as { response: Record<string, unknown> },
          }),
        );
      },
    );
    req.on('timeout', () => req.destroy(new Error('timed out')));
    req.on('error', reject);
    req.end(text);
  });
}

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'gpushare-webhook-cmd-'));
  ca = await createLocalCa('webhook e2e CA', Date.now());
  const server = await issueServerCert(ca, ['127.0.0.1'], Date.now());
  writeFileSync(join(dir, 'tls.crt'), server.certPem);
  writeFileSync(join(dir, 'tls.key'), server.keyPem);
});
afterAll(() => {
  if (child !== undefined && child.exitCode === null) child.kill('SIGKILL');
  rmSync(dir, { recursive: true, force: true });
});

describe('gpushare webhook (built CLI)', () => {
  it('refuses a command line without TLS files, without a way to know the GPU memory, or with a bad port', () => {
    const run = (...args: string[]) =>
      spawnSync(process.execPath, [BIN, 'webhook', ...args], {
        cwd: ROOT,
        encoding: 'utf8',
        timeout: 60_000,
        env: ENV,
      });
    const noTls = run('--max-gpu-memory-mib', '81920');
    expect([noTls.status, noTls.stderr]).toEqual([
      2,
      'error: --tls-cert and --tls-key are required: the API server calls webhooks over HTTPS only\n',
    ]);
    const noBound = run('--tls-cert', join(dir, 'tls.crt'), '--tls-key', join(dir, 'tls.key'));
    expect([noBound.status, noBound.stderr]).toEqual([
      2,
      "error: not running in a cluster: give --kubeconfig (to watch the nodes' GPU memory) or --max-gpu-memory-mib\n",
    ]);
    const badPort = run('--port', '70000', '--max-gpu-memory-mib', '81920');
    expect([badPort.status, badPort.stderr]).toEqual([
      2,
      "error: --port: '70000' is not valid; expected an integer 0..65535\n",
    ]);
  });

  it(
    'serves AdmissionReviews over HTTPS with the configured schedulerName and memory bound, and ' + 'stops on SIGTERM',
    async () => {
      child = spawn(
        process.execPath,
        [
          BIN,
          'webhook',
          '--host',
          '127.0.0.1',
          '--port',
          '0',
          '--tls-cert',
          join(dir, 'tls.crt'),
          '--tls-key',
          join(dir, 'tls.key'),
          '--max-gpu-memory-mib',
          '81920',
          '--scheduler-name',
          'gpushare',
          '--log-level',
          'warn',
        ],
        { cwd: ROOT, env: ENV, stdio: ['ignore', 'pipe', 'pipe'] },
      );
      let stdout = '';
      let stderr = '';
      child.stdout!.on('data', (c: Buffer) => (stdout += c.toString('utf8')));
      child.stderr!.on('data', (c: Buffer) => (stderr += c.toString('utf8')));
      const url = await new Promise<string>((resolve, reject) => {
        const timer = setTimeout(
          () => reject(new Error(`no listening line in ${WAIT_MS} ms; stdout ${stdout}; stderr ${stderr}`)),
          WAIT_MS,
        );
        const check = (): void => {
          const match = /listening on (https:\/\/127\.0\.0\.1:\d+)/.exec(stdout);
          if (match) {
            clearTimeout(timer);
            resolve(match[1]!);
          }
        };
        child!.stdout!.on('data', check);
        child!.once('exit', (code) => reject(new Error(`exited ${code}: ${stderr}`)));
      });
      expect(stdout).toBe(
        `gpushare webhook listening on ${url} (POST /mutate, GET /healthz); GPU memory bound: 81920 MiB ` +
          `(--max-gpu-memory-mib); schedulerName: gpushare\n`,
      );

      const pod = workloadOf('Pod', 'p', {
        spec: { containers: [{ name: 'c', image: 'i', resources: { limits: { 'nvidia.com/gpu': '0.5' } } }] },
      });
      const ok = await post(url, reviewOf(pod, { uid: 'u-1' }));
      expect(ok.status).toBe(200);
      expect(ok.json.response.allowed).toBe(true);
      expect(decodePatch(ok.json.response as { patch?: string; patchType?: string })).toContainEqual({
        op: 'add',
        path: '/spec/schedulerName',
        value: 'gpushare',
      });

      const big = workloadOf('Pod', 'p', {
        metadata: { annotations: { 'gpushare.io/gpu-memory-mib': '90000' } },
        spec: { containers: [{ name: 'c', image: 'i', resources: { limits: { 'nvidia.com/gpu': '1' } } }] },
      });
      const denied = await post(url, reviewOf(big, { uid: 'u-2' }));
      expect(denied.json.response).toEqual({
        uid: 'u-2',
        allowed: false,
        status: {
          status: 'Failure',
          code: 422,
          reason: 'Invalid',
          message:
            'container "c": metadata.annotations[gpushare.io/gpu-memory-mib]: 90000 MiB per GPU: more than ' +
            'the largest GPU of any gpushare node (81920 MiB)',
        },
      });

      const exited = new Promise<number | null>((resolve) => child!.once('exit', (code) => resolve(code)));
      child.kill('SIGTERM');
      const code = await Promise.race([
        exited,
        new Promise<string>((resolve) =>
          setTimeout(() => resolve(`still running after ${WAIT_MS} ms`), WAIT_MS).unref(),
        ),
      ]);
      expect(code).toBe(0);
      // Denials are logged at warn (stderr, JSON lines).
      expect(stderr).toContain('"allowed":false');
    },
  );

  it('keeps the webhook out of the client bundle (its first file and every chunk)', () => {
    const chunks = join(ROOT, 'dist', 'main', 'gpushare-chunks');
    const files = [join(ROOT, 'dist', 'main', 'gpushare.cjs'), ...readdirSync(chunks).map((f) => join(chunks, f))];
    expect(files.length).toBeGreaterThan(10);
    for (const file of files) {
      const text = readFileSync(file, 'utf8');
      expect(text, file).not.toContain('AdmissionReview');
      expect(text, file).not.toContain('@kubernetes/client-node');
    }
  });
});
