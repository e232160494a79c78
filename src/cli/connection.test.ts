import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { writeCliConfig } from '../config/cli-config-write.js';
import { resolveConnection, type Connection } from './connection.js';
import { UsageError } from './exit-codes.js';

let dir: string;

beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'gpushare-connection-'));
});

afterEach(() => {
  rmSync(dir, { recursive: true, force: true });
});

/** The settings of a connection, without the hint text. */
const settings = (c: Connection): { url: string; token: string; ca?: string | null } => ({
  url: c.url,
  token: c.token,
  ...(c.ca === null ? {} : { ca: c.ca.source }),
});
const PEM = (n: number): string => `-----BEGIN CERTIFICATE-----\nCA${n}\n-----END CERTIFICATE-----\n`;

describe('resolveConnection', () => {
  it('takes flags over environment over the config file, each setting on its own', async () => {
    const env = { XDG_CONFIG_HOME: dir };
    writeCliConfig({ url: 'http://file:1', token: 'file-token' }, env);
    expect(settings(await resolveConnection({}, { env }))).toEqual({ url: 'http://file:1', token: 'file-token' });
    const withEnv = { ...env, GPUSHARE_URL: 'http://env:2/', GPUSHARE_TOKEN: 'env-token' };
    expect(settings(await resolveConnection({}, { env: withEnv }))).toEqual({
      url: 'http://env:2',
      token: 'env-token',
    });
    expect(settings(await resolveConnection({ url: 'http://flag:3' }, { env: withEnv }))).toEqual({
      url: 'http://flag:3',
      token: 'env-token',
    });
    expect(settings(await resolveConnection({ token: 'flag-token' }, { env }))).toEqual({
      url: 'http://file:1',
      token: 'flag-token',
    });
  });

  it('does not read the config file when flags or environment give both', async () => {
    mkdirSync(join(dir, 'gpushare'));
    writeFileSync(join(dir, 'gpushare', 'config.yaml'), '[broken');
    expect(
      settings(await resolveConnection({ url: 'http://a:1', token: 't' }, { env: { XDG_CONFIG_HOME: dir } })),
    ).toEqual({
      url: 'http://a:1',
      token: 't',
    });
  });

  it('tells the user to start `gpushare serve` or set GPUSHARE_URL when nothing is configured', async () => {
    const env = { XDG_CONFIG_HOME: dir };
    await expect(resolveConnection({}, { env })).rejects.toThrow(UsageError);
    await expect(resolveConnection({}, { env })).rejects.toThrow(
      `no gpushare server configured: start one with \`gpushare serve\` (it writes ` +
        `${join(dir, 'gpushare', 'config.yaml')}), or set GPUSHARE_URL and GPUSHARE_TOKEN, or pass --url ` +
        `and --token`,
    );
  });

  it('names the missing token, and rejects a URL that is not http(s)', async () => {
    const env = { XDG_CONFIG_HOME: dir, GPUSHARE_URL: 'http://h:1' };
    await expect(resolveConnection({}, { env })).rejects.toThrow(
      /^no API token for http:\/\/h:1: pass --token, set GPUSHARE_TOKEN/,
    );
    await expect(resolveConnection({ url: 'h:1', token: 't' }, { env })).rejects.toThrow(
      /^--url \/ GPUSHARE_URL: 'h:1' is not an http or https URL/,
    );
  });

  const caOrder =
    'takes the CA from --ca, then GPUSHARE_CA_FILE, then GPUSHARE_CA_CERT, then ca or caFile of the config file';
  it(`${caOrder}, for https only`, async () => {
    const env = { XDG_CONFIG_HOME: dir };
    const configPath = join(dir, 'gpushare', 'config.yaml');
    writeCliConfig({ url: 'https://file:1', token: 'file-token', ca: PEM(1) }, env);
    writeFileSync(join(dir, 'flag-ca.crt'), PEM(2));
    writeFileSync(join(dir, 'env-ca.crt'), PEM(3));
    const fromConfig = await resolveConnection({}, { env });
    expect([fromConfig.ca?.pem, fromConfig.ca?.source]).toEqual([PEM(1), `ca in ${configPath}`]);
    expect(fromConfig.certificateHint).toBe(
      `it was checked against the CA from ca in ${configPath}; if that is not this server's CA, point ca: ` +
        `or caFile: in ${configPath}, --ca or GPUSHARE_CA_FILE at the right one`,
    );
    expect((await resolveConnection({}, { env: { ...env, GPUSHARE_CA_CERT: PEM(4) } })).ca).toEqual({
      pem: PEM(4),
      source: 'GPUSHARE_CA_CERT',
    });
    const envFile = join(dir, 'env-ca.crt');
    expect(
      (await resolveConnection({}, { env: { ...env, GPUSHARE_CA_CERT: PEM(4), GPUSHARE_CA_FILE: envFile } })).ca,
    ).toEqual({
      pem: PEM(3),
      source: `GPUSHARE_CA_FILE (${envFile})`,
    });
    const flagFile = join(dir, 'flag-ca.crt');
    expect((await resolveConnection({ ca: flagFile }, { env: { ...env, GPUSHARE_CA_FILE: envFile } })).ca).toEqual({
      pem: PEM(2),
      source: `--ca ${flagFile}`,
    });
    // an http URL uses no CA; a caFile is resolved against the config folder
    expect((await resolveConnection({ url: 'http://plain:2' }, { env })).ca).toBeNull();
    writeFileSync(configPath, 'url: https://file:1\ntoken: t\ncaFile: ../flag-ca.crt\n');
    expect((await resolveConnection({}, { env })).ca).toEqual({
      pem: PEM(2),
      source: `caFile ${flagFile} in ${configPath}`,
    });
  });

  it('names what to set for an https URL without a CA (config keys, flag, variable); refuses a bad --ca', async () => {
    const env = { XDG_CONFIG_HOME: dir };
    const configPath = join(dir, 'gpushare', 'config.yaml');
    writeCliConfig({ url: 'https://file:1', token: 'file-token' }, env);
    const connection = await resolveConnection({}, { env });
    expect(connection.ca).toBeNull();
    expect(connection.certificateHint).toBe(
      `no CA is configured for this https server: set ca: (the CA certificate's PEM text; \`gpushare ` +
        `serve\` writes it) or caFile: (its path) in ${configPath}, or pass --ca FILE or set ` +
        `GPUSHARE_CA_FILE`,
    );
    await expect(resolveConnection({ ca: join(dir, 'missing.crt') }, { env })).rejects.toThrow(
      `--ca: cannot read ${join(dir, 'missing.crt')}: ENOENT`,
    );
    await expect(resolveConnection({}, { env: { ...env, GPUSHARE_CA_CERT: 'not a pem' } })).rejects.toThrow(
      'GPUSHARE_CA_CERT: expected the PEM text of a CA certificate (-----BEGIN CERTIFICATE----- ...)',
    );
  });
});
