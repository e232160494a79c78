/**
 * `gpushare extender --assignment-key-file` (the built CLI): a key that is too short or a file that
 * cannot be read stops the start with exit code 1 and a message naming the flag, before anything
 * listens.
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

const BIN = join(fileURLToPath(new URL('../../', import.meta.url)), 'bin', 'gpushare');
const ENV = { ...process.env, KUBERNETES_SERVICE_HOST: undefined } as NodeJS.ProcessEnv;

let dir: string;

beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'gpushare-extender-key-'));
  // A kubeconfig that is never called: the key is read before the first request.
  writeFileSync(
    join(dir, 'kubeconfig'),
    [
      'apiVersion: v1',
      'kind: Config',
      'clusters: [{name: c, cluster: {server: "https://127.0.0.1:9"}}]',
      'users: [{name: u, user: {token: unused}}]',
      'contexts: [{name: c, context: {cluster: c, user: u}}]',
      'current-context: c',
    ].join('\n'),
  );
  writeFileSync(join(dir, 'short.key'), 'short\n');
});

afterAll(() => rmSync(dir, { recursive: true, force: true }));

function run(keyFile: string): { code: number | null; stdout: string; stderr: string } {
  const result = spawnSync(
    process.execPath,
    [
      BIN,
      'extender',
      '--kubeconfig',
      join(dir, 'kubeconfig'),
      '--insecure-http',
      '--host',
      '127.0.0.1',
      '--port',
      '0',
      '--assignment-key-file',
      keyFile,
    ],
    { env: ENV, encoding: 'utf8', timeout: 60_000 },
  );
  return { code: result.status, stdout: result.stdout, stderr: result.stderr };
}

describe('gpushare extender --assignment-key-file', () => {
  it('refuses a key under 16 bytes, saying how to make one', () => {
    const short = join(dir, 'short.key');
    expect(run(short)).toEqual({
      code: 1,
      stdout: '',
      stderr:
        `error: --assignment-key-file ${short}: the assignment key must hold at least 16 bytes (got 5); ` +
        'make one with: head -c 32 /dev/urandom | base64\n',
    });
  });

  it('refuses a file it cannot read', () => {
    const missing = join(dir, 'missing.key');
    expect(run(missing)).toEqual({
      code: 1,
      stdout: '',
      stderr: `error: --assignment-key-file ${missing}: ENOENT: no such file or directory, open '${missing}'\n`,
    });
  });
});
