/**
 * End-to-end: paths a caller names, on a real `gpushare serve` running as root (docs/security.md
 * "Paths a caller names"). A backup through a folder link that a tenant's uid owns, and one with a
 * `..` component, each get 422 naming `path` and nothing is written anywhere; the CLI passes `..`
 * on and exits non-zero with the server's message; a plain path gets a private backup. A root server
 * refuses a data directory that another uid owns, naming it and its owner. Without root (lchown,
 * chown) the suite is skipped with a message (a failure under GPUSHARE_REQUIRE_TOOLS=1).
 */
import { spawnSync } from 'node:child_process';
import { chownSync, lchownSync, mkdirSync, mkdtempSync, readdirSync, rmSync, statSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { WAIT_MS } from '../../src/testing/deadlines.js';
import { REQUIRE_TOOLS_ENV } from '../support/required-tool.js';
import { api, cleanupServe, cli, GPUSHARE_BIN, startServe, type ServeHandle } from './support/serve-harness.js';

/** A uid of the default sandbox range, as a tenant's jobs get. */
const TENANT_UID = 200_000;

function asRoot(): boolean {
  if (process.getuid?.() === 0) return true;
  const message = 'the path tests plant links owned by another uid and need root; run the tests as root';
  if (process.env[REQUIRE_TOOLS_ENV] === '1') throw new Error(`${message} (required because ${REQUIRE_TOOLS_ENV}=1)`);
  process.stderr.write(`skipped: ${message}\n`);
  return false;
}

describe.skipIf(!asRoot())('gpushare serve as root: paths a caller names', () => {
  let server: ServeHandle;
  let base: string;
  beforeAll(async () => {
    server = await startServe({ simulateGpus: '1xT4' });
    base = mkdtempSync(join(tmpdir(), 'gpushare-e2e-paths-'));
  });
  afterAll(async () => {
    await cleanupServe(server);
    rmSync(base, { recursive: true, force: true });
  });

  it("refuses a backup through a folder link a tenant's uid made, and writes nothing", async () => {
    const secret = join(base, 'secret');
    mkdirSync(secret, { mode: 0o700 });
    const home = join(base, 'home');
    mkdirSync(home, { mode: 0o755 });
    symlinkSync(secret, join(home, 'planted'));
    lchownSync(join(home, 'planted'), TENANT_UID, TENANT_UID);
    const answer = await api(server, 'POST', '/api/v1/backup', { path: join(home, 'planted', 'backup.db') });
    expect(answer.status).toBe(422);
    expect(answer.body.error.code).toBe('GPUSHARE_INVALID_FIELD');
    expect(answer.body.error.details).toEqual({ field: 'path' });
    expect(answer.body.error.message).toBe(
      `path: ${home}/planted/backup.db: ${home}/planted is a symbolic link that a user other than root could ` +
        `have placed (the link is uid ${TENANT_UID}'s, in a folder of uid 0 with mode 0755); give a path without it`,
    );
    expect(readdirSync(secret)).toEqual([]);
    expect(readdirSync(home)).toEqual(['planted']);
  });

  it('refuses a backup path with `..`, from the API and from the CLI, and writes nothing', async () => {
    const a = join(base, 'a');
    const b = join(base, 'b');
    mkdirSync(a);
    mkdirSync(b);
    const answer = await api(server, 'POST', '/api/v1/backup', { path: `${a}/../b/backup.db` });
    expect(answer.status).toBe(422);
    expect(answer.body.error.details).toEqual({ field: 'path' });
    expect(answer.body.error.message).toBe(`path: ${a}/../b/backup.db has a ".." component; give the path without it`);
    const run = cli(server, ['backup', '../b/cli.db'], a);
    expect(run.code).not.toBe(0);
    expect(run.stderr).toContain(`path: ${a}/../b/cli.db has a ".." component; give the path without it`);
    expect(readdirSync(a)).toEqual([]);
    expect(readdirSync(b)).toEqual([]);
  });

  it('writes a private backup where the path has neither', async () => {
    const folder = join(base, 'ok');
    mkdirSync(folder);
    const target = join(folder, 'backup.db');
    const answer = await api(server, 'POST', '/api/v1/backup', { path: target });
    expect(answer.status).toBe(200);
    expect(answer.body).toEqual({ path: target, bytes: statSync(target).size });
    expect(statSync(target).mode & 0o777).toBe(0o600);
    expect(readdirSync(folder)).toEqual(['backup.db']);
    const again = await api(server, 'POST', '/api/v1/backup', { path: target });
    expect(again.status).toBe(422);
    expect(again.body.error.message).toBe(
      `path: ${target} exists; the server never overwrites a file (choose a new name)`,
    );
  });

  it('refuses to start on a data directory another uid owns, naming it and its owner', () => {
    const dataDir = join(base, 'foreign-data');
    mkdirSync(dataDir, { mode: 0o700 });
    chownSync(dataDir, TENANT_UID, TENANT_UID);
    const run = spawnSync(
      process.execPath,
      [GPUSHARE_BIN, 'serve', '--port', '0', '--data-dir', dataDir, '--simulate-gpus', '1xT4', '--insecure-http'],
      { encoding: 'utf8', timeout: WAIT_MS, env: { ...process.env, XDG_CONFIG_HOME: join(base, 'config-home') } },
    );
    expect(run.status).not.toBe(0);
    expect(run.stderr).toContain(
      `--data-dir: ${dataDir} is owned by uid ${TENANT_UID}, not root; a server running as root uses only a data ` +
        `directory root owns`,
    );
    expect(readdirSync(dataDir)).toEqual([]);
  });
});
