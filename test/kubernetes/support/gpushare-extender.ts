/**
 * The real `gpushare extender` as a child process for tests on the test control plane: HTTPS on
 * 127.0.0.1 with a certificate from its own CA, the kubeconfig it is given (a ServiceAccount token
 * under deploy/kubernetes/rbac-extender.yaml), a short Lease so a restarted extender takes over
 * quickly. `writeSchedulerConfig` points deploy/'s KubeSchedulerConfiguration at it.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { createLocalCa, issueServerCert } from '../../../src/adapters/tls/local-ca.js';
import { issueClientCert } from './pki.js';
import { writeTestSchedulerConfig } from './scheduler-config.js';

const BIN = join(import.meta.dirname, '..', '..', '..', 'bin', 'gpushare');

/** A running extender process. */
export interface ExtenderProcess {
  readonly urlPrefix: string;
  readonly caFile: string;
  /** The kube-scheduler's client certificate and key for the extender (signed by the same CA). */
  readonly clientCertFile: string;
  readonly clientKeyFile: string;
  readonly child: ChildProcess;
  /** Everything it wrote to stderr (its log). */
  log(): string;
  /** Ends it with `signal` and waits for the exit. */
  kill(signal?: NodeJS.Signals): Promise<void>;
}

/** Options of {@link startExtenderProcess}. */
export interface ExtenderProcessOptions {
  readonly dir: string;
  readonly kubeconfig: string;
  /** Keep the port of a previous process (a restart: the scheduler's configuration names it). */
  readonly port?: number;
  /** Reuse the TLS files of a previous process. */
  readonly tls?: ExtenderTls;
  readonly leaseDurationSeconds?: number;
  readonly identity?: string;
  /** `--assignment-key-file`: the key the extender signs assignments with (none: unsigned). */
  readonly assignmentKeyFile?: string;
}

/** The extender's TLS files: serving certificate and key, the CA, and the scheduler's client certificate. */
export interface ExtenderTls {
  readonly certFile: string;
  readonly keyFile: string;
  readonly caFile: string;
  readonly clientCertFile: string;
  readonly clientKeyFile: string;
}

/** Makes a CA, a serving certificate for 127.0.0.1 and a client certificate for the kube-scheduler in `dir`. */
export async function extenderTls(dir: string): Promise<ExtenderTls> {
  const now = Date.now();
  const ca = await createLocalCa('gpushare-test-extender-ca', now);
  const serving = await issueServerCert(ca, ['127.0.0.1'], now);
  const client = await issueClientCert(ca, 'kube-scheduler', [], now);
  const files = {
    certFile: join(dir, 'extender.crt'),
    keyFile: join(dir, 'extender.key'),
    caFile: join(dir, 'extender-ca.crt'),
    clientCertFile: join(dir, 'scheduler-client.crt'),
    clientKeyFile: join(dir, 'scheduler-client.key'),
  };
  writeFileSync(files.certFile, serving.certPem);
  writeFileSync(files.keyFile, serving.keyPem, { mode: 0o600 });
  writeFileSync(files.caFile, ca.certPem);
  writeFileSync(files.clientCertFile, client.certPem);
  writeFileSync(files.clientKeyFile, client.keyPem, { mode: 0o600 });
  return files;
}

/** Starts `gpushare extender` and waits until it listens (bounded by `timeoutMs`). */
export async function startExtenderProcess(
  options: ExtenderProcessOptions,
  timeoutMs = 60_000,
): Promise<ExtenderProcess & { tls: ExtenderTls; port: number }> {
  const tls = options.tls ?? (await extenderTls(options.dir));
  const child = spawn(
    process.execPath,
    [
      BIN,
      'extender',
      '--kubeconfig',
      options.kubeconfig,
      '--host',
      '127.0.0.1',
      '--port',
      String(options.port ?? 0),
      '--tls-cert',
      tls.certFile,
      '--tls-key',
      tls.keyFile,
      '--client-ca',
      tls.caFile,
      '--lease-duration-seconds',
      String(options.leaseDurationSeconds ?? 3),
      '--identity',
      options.identity ?? `test-extender-${process.pid}-${Date.now()}`,
      '--log-level',
      'info',
      ...(options.assignmentKeyFile !== undefined ? ['--assignment-key-file', options.assignmentKeyFile] : []),
    ],
    { stdio: ['ignore', 'pipe', 'pipe'] },
  );
  let stderr = '';
  let stdout = '';
  child.stderr!.on('data', (c: Buffer) => (stderr += c.toString('utf8')));
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  const url = await new Promise<string>((resolve, reject) => {
    const timer = setTimeout(
      () => reject(new Error(`gpushare extender did not listen within ${timeoutMs} ms:\n${stderr}`)),
      timeoutMs,
    );
    child.stdout!.on('data', (c: Buffer) => {
      stdout += c.toString('utf8');
      const match = /listening on (https:\/\/\S+)/.exec(stdout);
      if (match) {
        clearTimeout(timer);
        resolve(match[1]!);
      }
    });
    child.once('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`gpushare extender exited (${code}) before listening:\n${stderr}`));
    });
  });
  const port = Number(new URL(url).port);
  return {
    urlPrefix: url.replace(/\/$/, ''),
    caFile: tls.caFile,
    clientCertFile: tls.clientCertFile,
    clientKeyFile: tls.clientKeyFile,
    child,
    tls,
    port,
    log: () => stderr,
    async kill(signal: NodeJS.Signals = 'SIGTERM') {
      if (child.exitCode === null && child.signalCode === null) child.kill(signal);
      await exited;
    },
  };
}

/**
 * Writes deploy/'s scheduler configuration pointed at `extender` to `<dir>/scheduler-config.yaml` and returns the path.
 */
export function writeSchedulerConfig(
  dir: string,
  extender: { urlPrefix: string; caFile: string; clientCertFile: string; clientKeyFile: string },
): string {
  const path = join(dir, 'scheduler-config.yaml');
  writeTestSchedulerConfig(path, extender.urlPrefix, extender.caFile, {
    certFile: extender.clientCertFile,
    keyFile: extender.clientKeyFile,
  });
  return path;
}

/** GET over HTTPS trusting the extender's CA, with the scheduler's client certificate (the extender asks for one). */
export async function fetchExtenderText(
  url: string,
  tls: { caFile: string; clientCertFile: string; clientKeyFile: string },
): Promise<string> {
  const https = await import('node:https');
  return await new Promise((resolve, reject) => {
    https
      .get(
        url,
        { ca: readFileSync(tls.caFile), cert: readFileSync(tls.clientCertFile), key: readFileSync(tls.clientKeyFile) },
        (res) => {
          let text = '';
          res.on('data', (c: Buffer) => (text += c.toString('utf8')));
          res.on('end', () => resolve(text));
        },
      )
      .on('error', reject);
  });
}
