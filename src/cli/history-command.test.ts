import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { startFakeApiServer, type FakeApiServer } from '../adapters/http-client/testing/fake-api-server.js';
import { runClientCli } from './testing/run-client-cli.js';

const CSV = 'name,cpu_milli,memory_mib,num_gpu,gpu_milli\n' + 'train-1,0,0,1,500\n' + 'eval-2,0,0,1,1000\n';

describe('gpushare history export', () => {
  let server: FakeApiServer | undefined;
  let folder: string | undefined;
  afterEach(async () => {
    await server?.close();
    if (folder) rmSync(folder, { recursive: true, force: true });
  });

  it('prints the CSV, or writes it atomically to -o FILE; --since and --until become ms since the epoch', async () => {
    server = await startFakeApiServer(() => ({ status: 200, body: CSV, contentType: 'text/csv; charset=utf-8' }));
    folder = mkdtempSync(join(tmpdir(), 'gpushare-history-cli-'));
    const env = { GPUSHARE_URL: server.url, GPUSHARE_TOKEN: 'gs_admin' };
    const printed = await runClientCli(['history', 'export', '--since', '1h', '--until', '2025-01-01T00:04:00Z'], {
      env,
    });
    expect(printed).toEqual({ code: 0, stdout: CSV, stderr: '' });
    // nowMs of runClientCli is 2025-01-01T00:05:00Z: one hour back is 2024-12-31T23:05:00Z.
    expect(server.requests[0]?.query.toString()).toBe(
      `since=${Date.parse('2024-12-31T23:05:00Z')}&until=${Date.parse('2025-01-01T00:04:00Z')}`,
    );
    const written = await runClientCli(['history', 'export', '-o', 'history.csv'], { env, cwd: folder });
    expect(written).toEqual({ code: 0, stdout: '', stderr: `exported 2 jobs to ${join(folder, 'history.csv')}\n` });
    expect(readFileSync(join(folder, 'history.csv'), 'utf8')).toBe(CSV);
    expect(readdirSync(folder)).toEqual(['history.csv']);
  });

  it('exits 2 for a bad --since, 1 naming the file when it cannot be written (no file left)', async () => {
    server = await startFakeApiServer(() => ({ status: 200, body: CSV, contentType: 'text/csv' }));
    folder = mkdtempSync(join(tmpdir(), 'gpushare-history-cli-'));
    const env = { GPUSHARE_URL: server.url, GPUSHARE_TOKEN: 'gs_admin' };
    const bad = await runClientCli(['history', 'export', '--since', 'yesterday'], { env });
    expect([bad.code, bad.stderr]).toEqual([
      2,
      "error: option '--since <time>' argument 'yesterday' is invalid. 'yesterday' is neither an ISO 8601 time " +
        '(e.g. 2025-01-31T12:00:00Z) nor a duration (e.g. 90s, 30m, 1h, 7d)\n',
    ]);
    for (const [flag, value, why] of [
      ['--since', '1969-12-31T00:00:00Z', 'is before 1970-01-01T00:00:00Z; expected a later time'],
      ['--until', '99999999d', 'is before 1970-01-01T00:00:00Z; expected a later time'],
      ['--since', '999999999d', 'reaches back past the earliest time there is; expected a shorter duration'],
    ]) {
      const refused = await runClientCli(['history', 'export', flag!, value!], { env });
      expect([refused.code, refused.stderr]).toEqual([
        2,
        `error: option '${flag} <time>' argument '${value}' is invalid. '${value}' ${why}\n`,
      ]);
    }
    const missing = join(folder, 'no-such-folder', 'history.csv');
    const unwritable = await runClientCli(['history', 'export', '-o', missing], { env });
    expect(unwritable.code).toBe(1);
    expect(unwritable.stderr).toMatch(new RegExp(`^error: cannot write --output file '${missing}': ENOENT`));
    expect(existsSync(`${missing}.tmp`)).toBe(false);
  });
});
